"""Git hooks that re-index in the background (post-commit, post-checkout, post-merge).

A hook must never slow or fail the git command: ours starts a detached `stratum hooks run` and
returns at once; a hook already there is kept (moved aside to ``<name>.stratum-chained`` and run
first, its exit status kept: post-checkout's becomes git's own). Hooks firing while an index runs
coalesce through a dirty mark and a runner lock (``coalesced``): one runner at a time, and it
indexes again if a hook fired meanwhile, so a checkout storm is one or two re-indexes.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from pipeline import gitio
from stratum.errors import InvalidArgument

HOOKS = ("post-commit", "post-checkout", "post-merge")
MARK = "# stratum-hook: installed by `stratum hooks install`"
CHAINED = ".stratum-chained"
# git exports these to a hook; relative to the hook's cwd, they would misdirect our own git calls
GIT_HOOK_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR",
                "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES")


def hooks_dir(repo: str | os.PathLike) -> Path:
    """Where git looks for this repository's hooks (core.hooksPath honoured)."""
    root = gitio.repo_root(repo)
    d = gitio.decode(gitio.run_git(root, "rev-parse", "--path-format=absolute", "--git-path", "hooks")).strip()
    return Path(d)


def script(name: str, repo: Path, store: Path, options: tuple[str, ...] = ()) -> str:
    """The hook: ``options`` (e.g. ``--no-embed``) go to every `stratum hooks run` it starts."""
    py = shlex.quote(sys.executable)
    opts = "".join(f" {shlex.quote(o)}" for o in options)
    log = shlex.quote(str(store / "hooks.log"))
    said = f"{_named(repo)} into {_named(store)}"
    return f"""#!/bin/sh
{MARK}
# Re-indexes {said} in the background; never blocks or fails git.
rc=0
chained="$(dirname "$0")/{name}{CHAINED}"
if [ -x "$chained" ]; then "$chained" "$@"; rc=$?; fi
if [ ! -e {shlex.quote(str(repo))}/.git ]; then    # moved: no ghost folder, no silent staleness (a probe)
    echo "stratum: this hook indexes {said}, which is gone (moved?): run 'stratum hooks install' again" >&2
    exit $rc
fi
mkdir -p {shlex.quote(str(store))} 2>/dev/null
( {py} -m stratum.cli hooks run --store {shlex.quote(str(store))} --hook {name}{opts} {shlex.quote(str(repo))} \\
    </dev/null >>{log} 2>&1 & ) 2>/dev/null
exit $rc
"""


def ours(path: Path) -> bool:
    try:
        return MARK in path.read_text(errors="replace")
    except OSError:
        return False


def install(repo: str | os.PathLike, store: str | os.PathLike, options: tuple[str, ...] = ()) -> list[str]:
    """Install (or refresh) our hooks; returns one line per hook saying what happened."""
    root, d = gitio.repo_root(repo), hooks_dir(repo)
    d.mkdir(parents=True, exist_ok=True)
    store = Path(store).resolve()
    out = []
    for name in HOOKS:
        p, aside = d / name, d / f"{name}{CHAINED}"
        what = "installed"
        if p.exists() and not ours(p):
            if aside.exists():
                raise InvalidArgument(f"{p} exists and so does {aside}: move one away, then install again")
            os.replace(p, aside)
            what = f"installed (existing hook kept, runs first: {aside.name})"
        elif p.exists():
            what = "refreshed"
        tmp = d / f".{name}.stratum-tmp"
        tmp.write_text(script(name, root, store, options))
        tmp.chmod(0o755)
        os.replace(tmp, p)
        out.append(f"{name}: {what}")
    return out


def uninstall(repo: str | os.PathLike) -> list[str]:
    """Remove only our hooks, putting back any hook we had chained."""
    d = hooks_dir(repo)
    out = []
    for name in HOOKS:
        p, aside = d / name, d / f"{name}{CHAINED}"
        if not ours(p):
            out.append(f"{name}: {'not ours, left alone' if p.exists() else 'none'}")
            continue
        if aside.exists():
            os.replace(aside, p)
            out.append(f"{name}: removed (previous hook restored)")
        else:
            p.unlink()
            out.append(f"{name}: removed")
    return out


def installed(repo: str | os.PathLike) -> list[str]:
    d = hooks_dir(repo)
    return [n for n in HOOKS if ours(d / n)]


def elsewhere(repo: str | os.PathLike) -> list[str]:
    """Our installed hooks written for another folder than this repository's (it moved since: they
    index the old path, which is gone)."""
    root = gitio.main_worktree(repo) or gitio.repo_root(repo)      # from a linked worktree: the main checkout
    said, d = f"# Re-indexes {_named(root)} into ", hooks_dir(repo)
    return [n for n in HOOKS if ours(d / n) and said not in (d / n).read_text(errors="replace")]


def _named(path: str | os.PathLike) -> str:
    """A path as a hook's header comment names it, quoted as the shell reads it, one line (a newline
    in a path, "x\ntouch pwn\n#", had ended the comment and run its rest at every commit)."""
    return shlex.quote(str(path)).encode("unicode_escape").decode("ascii")


# ---- the background runner ----------------------------------------------------------------------
@contextmanager
def _try_lock(path: Path) -> Iterator[bool]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def coalesced(store: str | os.PathLike, index: Callable[[], str], log: Callable[[str], None],
              settle: float = 0.3, retries: int = 30, retry_wait: float = 1.0,
              failures: list[str] | None = None) -> int:
    """Mark the store dirty, then index until it is clean, unless another runner does already.

    ``settle``: wait until no hook fired for this long first (a checkout storm is one run).
    The writer lock held by someone else (a manual `stratum index`, `stratum watch`) is waited
    for, ``retries`` times ``retry_wait``. Returns how many indexes this runner made; each failed
    one's message goes to ``failures`` too (a person running the hook is told by its exit status)."""
    from stratum.errors import StratumError

    root = Path(store)
    root.mkdir(parents=True, exist_ok=True)
    dirty, lock = root / "hooks.dirty", root / "hooks.lock"
    dirty.touch()
    runs = 0
    while dirty.exists():
        with _try_lock(lock) as mine:
            if not mine:
                log("an index run for this store is under way; it will index again")
                return runs
            while dirty.exists():
                _settle(dirty, settle)
                dirty.unlink(missing_ok=True)
                for attempt in range(retries + 1):
                    t = time.perf_counter()
                    try:
                        log(f"{index()} ({time.perf_counter() - t:.2f}s)")
                        break
                    except StratumError as e:
                        if not e.retryable or attempt == retries:
                            log(f"index failed: {e.message}")
                            if failures is not None:
                                failures.append(e.message)
                            break
                        time.sleep(retry_wait)
                runs += 1
        # released: a hook that fired just before the release found the lock taken, so look again
    return runs


def _settle(dirty: Path, settle: float) -> None:
    while True:
        try:
            age = time.time() - dirty.stat().st_mtime
        except OSError:
            return
        if age >= settle:
            return
        time.sleep(settle - age)


def clean_hook_env() -> None:
    for k in GIT_HOOK_ENV:
        os.environ.pop(k, None)


__all__ = ["install", "uninstall", "installed", "coalesced", "hooks_dir", "clean_hook_env", "HOOKS"]
