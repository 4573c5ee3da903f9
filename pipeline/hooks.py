"""Git hooks that re-index in the background (post-commit, post-checkout, post-merge, post-applypatch
for `git am`, post-rewrite for a finished rebase; no hook fires for `git reset` or an `--abort`).

A hook must never slow or fail the git command: ours starts a detached `stratum hooks run` (the
installed Stratum's code, never the repository's own modules: ``_script``) and returns at once; a
hook already there is kept (moved aside to ``<name>.stratum-chained`` and run first, its exit
status kept: post-checkout's becomes git's own). Hooks firing while an index runs
coalesce through a dirty mark and a runner lock (``coalesced``): one runner at a time, and it
indexes again if a hook fired meanwhile, so a checkout storm is one or two re-indexes.

Every run appends to ``<store>/hooks.log``. Past ``LOG_CAP`` (1 MiB) the runner holding the
runner lock renames it to ``hooks.log.1`` (the generation before goes) and a new one starts, so
the two stay near 2 MiB (``rotate_log``); a run that had the old one open follows to the new one at
its next line (``LogFollower``), and ``last_run`` reads both.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shlex
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from pipeline import gitio
from stratum.errors import InvalidArgument
from stratum.storehome import LEGACY, SHARED, default_store_path, git_dirs

# post-applypatch: `git am` runs it, not post-commit, for each patch; post-rewrite: the end of a rebase
# (and an amend, which post-commit covers already: the two coalesce). Both left the store behind (a probe)
HOOKS = ("post-commit", "post-checkout", "post-merge", "post-applypatch", "post-rewrite")
MARK = "# stratum-hook: installed by `stratum hooks install`"
CHAINED = ".stratum-chained"
# where another hook manager moves a hook it finds and runs it from (pre-commit: post-commit.legacy):
# ours there still runs, so uninstall and status look there too (uninstall had left it active and
# status said "installed: none": a probe)
MOVED = (".legacy",)
LOG, OLD_LOG = "hooks.log", "hooks.log.1"
LOG_CAP = 1 << 20       # bytes: past this the next run rotates hooks.log (it grew without end: a year of commits)
SCRIPT = "# stratum-hook-script:"      # + the fingerprint of the script's text (``_fingerprint``)
DEFAULT = "# stratum-default-store: chosen when the hook runs"   # a hook for the repository's default store
# git exports these to a hook; relative to the hook's cwd, they would misdirect our own git calls
GIT_HOOK_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR",
                "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES")


def hooks_dir(repo: str | os.PathLike) -> Path:
    """Where git looks for this repository's hooks (core.hooksPath honoured)."""
    root = gitio.repo_root(repo)
    d = gitio.decode(gitio.run_git(root, "rev-parse", "--path-format=absolute", "--git-path", "hooks")).strip()
    return Path(d)


def script(name: str, repo: Path, store: Path, options: tuple[str, ...] = (), default: bool = False) -> str:
    """The hook: ``options`` (e.g. ``--no-embed``) go to every `stratum hooks run` it starts.
    ``default``: the store is the repository's default, chosen when the hook runs (``_pick``); the
    header names git's directory's (where it goes once a ``.stratum`` is moved)."""
    store = _home_of(repo) if default else store
    return _script(name, shlex.quote(str(repo)), _pick(repo, store, default), f"{_named(repo)} into {_named(store)}",
                   "".join(f" {shlex.quote(o)}" for o in options), f"{SCRIPT} {_fingerprint()}")


def _pick(repo: Path, store: Path, default: bool) -> str:
    """The lines that set ``$store``. The default store is chosen as the CLI chooses it
    (``storehome.default_store_path``): git's directory's, or the older ``<repo>/.stratum`` only
    while that holds a store and git's holds none, never made again once moved. A hook that named
    ``.stratum`` made it again at the next commit after the printed `mv`, and the empty store it
    indexed there hid every note (a probe)."""
    if not default:
        return f"store={shlex.quote(str(store))}"
    legacy = shlex.quote(str(repo / LEGACY))
    return (f"{DEFAULT}\nstore={shlex.quote(str(store))}\n"
            f'if [ ! -f "$store/manifest.json" ] && [ ! -d "$store/deltalog" ] && '
            f"{{ [ -f {legacy}/manifest.json ] || [ -d {legacy}/deltalog ]; }}; then\n"
            f"    store={legacy}\nfi")


def _home_of(repo: Path) -> Path:
    """The default store in git's directory of the checkout ``repo`` (where a new store goes)."""
    dirs = git_dirs(repo)
    return (dirs.common / SHARED) if dirs is not None else repo / LEGACY


def _script(name: str, repo: str, pick: str, said: str, opts: str, stamp: str) -> str:
    """``-P``: `python -m` put the hook's cwd, the repository's top folder, first on sys.path, so a
    repository's own top-level pipeline/ ran inside every hook, and a stratum.py made each one fail
    (a probe); a Ray the run starts is started from Stratum's own folder (``pipeline.job``). A run
    that exits non-zero (Python or Stratum failing to start, a kill) is logged with a stamp as `hook
    run failed`, which `hooks status` reads (``last_run``). Every descriptor of the background run
    is redirected: one left on git's stdout kept a caller reading it (a pipe) waiting for the whole
    index."""
    return f"""#!/bin/sh
{MARK}
# Re-indexes {said} in the background; never blocks or fails git.
{stamp}
rc=0
chained="$(dirname "$0")/{name}{CHAINED}"
# a shell script kept aside runs with this hook's path as its $0, as git ran it: husky's stubs find
# their `h` beside $0 and the user's hook by $0's name (renamed, that hook silently ran no more)
shell_of() {{
    IFS= read -r line <"$1" || [ -n "$line" ] || return 0
    case "$line" in '#!'*) ;; *) return 0 ;; esac
    set -f; set -- ${{line#??}}; set +f
    [ "${{1##*/}}" = env ] && shift
    case "${{1##*/}}" in sh|bash|dash|ksh|zsh) printf '%s' "$*" ;; esac
}}
if [ -x "$chained" ]; then
    shell="$(shell_of "$chained")"
    if [ -n "$shell" ]; then
        STRATUM_CHAINED="$chained" $shell -c '. "$STRATUM_CHAINED"' "$0" "$@"; rc=$?
    else
        "$chained" "$@"; rc=$?
    fi
fi
if [ ! -e {repo}/.git ]; then    # moved: no ghost folder, no silent staleness (a probe)
    echo "stratum: this hook indexes {said}, which is gone (moved?): run 'stratum hooks install' again" >&2
    exit $rc
fi
{pick}
mkdir -p "$store" 2>/dev/null
( {{ {shlex.quote(sys.executable)} -P -m stratum.cli hooks run --store "$store" --hook {name}{opts} {repo} \\
    || echo "$(date +%Y-%m-%dT%H:%M:%S) [{name}] hook run failed (exit $?)"; }} </dev/null >>"$store/hooks.log" 2>&1 & ) 2>/dev/null
exit $rc
"""


def _fingerprint() -> str:
    """What the hooks this code writes have in common (all but their paths, options, hook name and
    Python): a hook carrying another was written by an older version (`hooks status` says so)."""
    pick = _pick(Path("REPO"), Path("STORE"), True) + _pick(Path("REPO"), Path("STORE"), False)
    text = _script("HOOK", "REPO", pick, "SAID", " OPTS", SCRIPT)     # the store-choosing lines too
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def ours(path: Path) -> bool:
    return MARK in _text(path)


def install(repo: str | os.PathLike, store: str | os.PathLike, options: tuple[str, ...] = ()) -> list[str]:
    """Install (or refresh) our hooks; returns one line per hook saying what happened."""
    root, d = _root(repo), hooks_dir(repo)      # as uninstall and status read it: a linked worktree's main checkout
    _own_folder(root, d)
    d.mkdir(parents=True, exist_ok=True)
    store = Path(store).resolve()
    default = store == default_store_path(root).resolve()
    out = []
    for name in HOOKS:
        p, aside = _where(d, name), d / f"{name}{CHAINED}"
        what = "installed"
        if p.exists() and not ours(p):
            if aside.exists():
                raise InvalidArgument(f"{p} exists and so does {aside}: move one away, then install again")
            os.replace(p, aside)
            what = f"installed (existing hook kept, runs first: {aside.name})"
        elif p.exists():
            current = f"{SCRIPT} {_fingerprint()}\n" in _text(p)
            what = "refreshed" if current else "refreshed (it was an older script)"
            if p.name != name:          # refreshed where the manager runs it: a second one would run twice
                what += f" (as {p.name}, which the {name} there runs)"
        tmp = d / f".{p.name}.stratum-tmp"
        tmp.write_text(script(name, root, store, options, default))
        tmp.chmod(0o755)
        os.replace(tmp, p)
        out.append(f"{name}: {what}")
    return out


def _own_folder(root: Path, d: Path) -> None:
    """Refuse a hooks folder that is not this repository's alone. A machine-wide ``core.hooksPath``
    (outside the git dir and the work tree) is every repository's: installing in B "refreshed" A's
    hooks, so A's commits re-indexed B, and uninstall in A removed B's (a probe)."""
    at, own = d.resolve(), (gitio.common_dir(root), root.resolve())
    if not any(at == o or o in at.parents for o in own):
        raise InvalidArgument(
            f"the hooks folder {d} (core.hooksPath) is outside this repository, so other repositories "
            f"share it: hooks installed there would run for all of them. Give this repository a hooks "
            f"folder of its own (`git -C {shlex.quote(str(root))} config core.hooksPath .git/hooks`, "
            f"copying in the shared hooks it needs) and install again, or use `stratum watch`")
    top = root.resolve()
    if top in at.parents and gitio.run_git(root, "ls-files", "-z", "--", f":(literal){at.relative_to(top)}"):
        # a committed folder (a team's .githooks): our scripts and the renamed hooks showed in `git
        # status`, blocked checkouts and carried this machine's paths into the team's commits (a probe)
        raise InvalidArgument(
            f"the hooks folder {d} (core.hooksPath) holds files this repository tracks: our hooks there "
            f"would show in `git status` and carry this machine's paths into commits. Install into a "
            f"local hooks folder instead: `git -C {shlex.quote(str(root))} config core.hooksPath .git/hooks`, "
            f"copy the team's hooks there (they are kept and run first), then `stratum hooks install` again")
    for name in HOOKS:
        at_hook = _where(d, name)       # where our hook is, as install, status and uninstall find it
        other = _foreign(_text(at_hook), root)
        if other is not None:
            raise InvalidArgument(f"{at_hook} is our hook for another repository ({other}): its hooks folder "
                                  f"is shared with this one. Give this repository a hooks folder of its own "
                                  f"(`git config core.hooksPath .git/hooks`) and install again")


def _foreign(text: str, root: Path) -> Path | None:
    """The other repository a hook of ours indexes: a folder that holds a repository, not ``root``.
    None for a hook naming ``root``, or a folder that is gone (this repository, moved since)."""
    if MARK not in text:
        return None
    named, _ = _header(text)
    if named is None or named.resolve() == root.resolve() or not (named / ".git").exists():
        return None
    return named


def _where(d: Path, name: str) -> Path:
    """The file holding our hook ``name``: where git runs it, or where another manager moved it."""
    return next((p for p in (d / f"{name}{m}" for m in MOVED) if not ours(d / name) and ours(p)), d / name)


def _root(repo: str | os.PathLike) -> Path:
    """The checkout our hooks name: from a linked worktree, the main one (the hooks are shared)."""
    return gitio.main_worktree(repo) or gitio.repo_root(repo)


def uninstall(repo: str | os.PathLike) -> list[str]:
    """Remove only our hooks for this repository, putting back any hook we had chained."""
    d, root = hooks_dir(repo), _root(repo)
    out = []
    for name in HOOKS:
        p, aside = _where(d, name), d / f"{name}{CHAINED}"
        if not ours(p):
            out.append(f"{name}: {'not ours, left alone' if p.exists() else 'none'}")
            continue
        other = _foreign(_text(p), root)
        if other is not None:           # a shared folder: another repository's hook is not ours to remove
            out.append(f"{name}: written for another repository ({other}), left alone")
            continue
        moved = f" ({p.name}, where another hook manager had moved it)" if p.name != name else ""
        if aside.exists():
            os.replace(aside, p)        # the chained hook back where it is run from (the manager runs .legacy)
            out.append(f"{name}: removed{moved} (previous hook restored)")
        else:
            p.unlink()
            out.append(f"{name}: removed{moved}")
    return out


@dataclass(frozen=True)
class Survey:
    """Our hooks in a repository, as `hooks status` reports them."""
    installed: list[str]
    elsewhere: list[str]        # written for another folder (the repository moved since: they index a gone path)
    older: list[str]            # written by an older version: `hooks install` again brings the current script
    store: Path | None          # the store they index into (its hooks.log says how their last run went)
    foreign: dict[str, Path] = field(default_factory=dict)  # ours for another repository (a shared folder)
    chained: list[str] = field(default_factory=list)        # ours that run the hook kept aside first
    gone: list[str] = field(default_factory=list)   # ours naming a store folder that is no more (moved, deleted)


def survey(repo: str | os.PathLike) -> Survey:
    """What our hooks in this repository's hooks folder say (each read once here; ``_where`` looks for
    them): which are on, for another repository, older or of another store, chaining a hook, naming
    a store folder that is gone (an older hook made it again at the next commit). A hook for the
    default store indexes the one the CLI reads now (``default_store_path``)."""
    root = _root(repo)
    said, stamp, d = f"# Re-indexes {_named(root)} into ", f"{SCRIPT} {_fingerprint()}\n", hooks_dir(repo)
    files = {n: _where(d, n) for n in HOOKS}        # each named by its file: post-commit.legacy says where
    texts = {n: _text(f) for n, f in files.items()}
    foreign = {files[n].name: o for n, o in ((n, _foreign(t, root)) for n, t in texts.items()) if o is not None}
    on = [n for n, t in texts.items() if MARK in t and files[n].name not in foreign]
    named_store = {n: default_store_path(root) if DEFAULT in texts[n] else _header(texts[n])[1] for n in on}
    stores = [s for s in named_store.values() if s is not None]
    gone = [n for n, at in named_store.items() if DEFAULT not in texts[n] and at is not None and not at.is_dir()]

    def named(ns: list[str]) -> list[str]:
        return [files[n].name for n in ns]
    return Survey(named(on), named([n for n in on if said not in texts[n]]),
                  named([n for n in on if stamp not in texts[n]]), stores[0] if stores else None, foreign,
                  [n for n in on if (d / f"{n}{CHAINED}").exists()], named(gone))


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _header(text: str) -> tuple[Path | None, Path | None]:
    """The repository and store a hook's header names (``_named`` read back)."""
    head = next((x for x in text.splitlines() if x.startswith("# Re-indexes ")), "")
    try:
        words = shlex.split(head.removeprefix("# Re-indexes ").encode("ascii").decode("unicode_escape"))
    except (ValueError, UnicodeError):
        return None, None
    if len(words) > 2 and words[1] == "into":
        return Path(words[0]), Path(words[2])
    return None, None


_STAMPED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \[[^\]\n]*\] (.*)")


def log_line(store: str | os.PathLike, line: str) -> None:
    """Append one line to ``<store>/hooks.log`` (a manual `hooks run`: its outcome is the last
    run's too; a failure it mends stayed "the last hook run failed" until the next commit)."""
    try:
        with open(Path(store) / LOG, "a", encoding="utf-8", errors="replace") as f:
            f.write(line + "\n")
    except OSError:
        pass                            # the store's folder is gone or read-only: the run says it anyway


def rotate_log(store: str | os.PathLike) -> bool:
    """Past ``LOG_CAP``, rename hooks.log to hooks.log.1 (replacing the generation before); True if it
    did. Only the runner holding the runner lock calls it, so two runs never rotate at once. A rename,
    not a rewrite in place: a writer holding the log open (a hook's ``>>``) keeps writing whole lines,
    into hooks.log.1 until it follows (``LogFollower``), where a truncation would have cut them. A
    folder that refuses the rename (read-only) leaves the log whole and the run going on."""
    log = Path(store) / LOG
    try:
        if log.stat().st_size <= LOG_CAP:
            return False
        os.replace(log, log.with_name(OLD_LOG))
    except OSError:
        return False
    return True


class LogFollower:
    """Keeps a background run writing to the current hooks.log. Its hook opened the log once for the
    whole run (``>>``): once a run rotated it, this run's lines (its outcome too) went to hooks.log.1.
    Called before each line, it points stdout and stderr back at hooks.log; only the descriptors
    that were the log when it was made (a terminal or a pipe is left alone)."""

    def __init__(self, store: str | os.PathLike):
        self._path = Path(store) / LOG
        logs = {_ident(self._path), _ident(self._path.with_name(OLD_LOG))} - {None}
        self._fds = [fd for fd in (1, 2) if _fd_ident(fd) in logs]

    def __call__(self) -> None:
        if not self._fds:
            return
        now = _ident(self._path)
        stale = [fd for fd in self._fds if _fd_ident(fd) != now]
        if not stale:
            return
        try:
            new = os.open(self._path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError:
            return                      # the folder is read-only or gone: the lines go where they went
        for f in (sys.stdout, sys.stderr):
            f.flush()                   # what is buffered was written before the rotation: the old file
        try:
            for fd in stale:
                os.dup2(new, fd)
        finally:
            os.close(new)


def _ident(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _fd_ident(fd: int) -> tuple[int, int] | None:
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def last_run(store: str | os.PathLike, tail: int = 65536) -> tuple[bool, str] | None:
    """How the last hook run that came to an end ended, from the end of ``<store>/hooks.log`` and of
    hooks.log.1: (ok, its line). Its runner logs `index failed: ...` or what it published; the hook
    itself logs `hook run failed (exit N)` when the run exits non-zero (Python or Stratum failing to
    start), into the file it opened, which a rotation since made hooks.log.1: of the two files' last
    outcomes the later-stamped one is the last run's (the current log's on a tie).
    A failure followed by a version published later (`stratum index`, `stratum repair`) is over."""
    found = [x for x in (_last_outcome(Path(store) / name, tail) for name in (LOG, OLD_LOG)) if x is not None]
    if not found:
        return None
    ok, line = max(found, key=lambda x: x[1][:19])      # the first of equals: the current log's
    if not ok and _published_after(store, line[:19]):
        return True, f"{line} (a version was published since)"
    return ok, line


def _last_outcome(path: Path, tail: int) -> tuple[bool, str] | None:
    """The last line of a log's end that says how a run ended: (ok, line)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - tail))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        m = _STAMPED.fullmatch(line)
        if m and m[1].startswith(("index failed", "hook run failed")):
            return False, line
        if m and (m[1].startswith("up to date at v") or re.match(r"v\d+ published", m[1])):
            return True, line
    return None


def _published_after(store: str | os.PathLike, stamp: str) -> bool:
    """Whether the store's manifest was written after a log line's local-time stamp."""
    try:
        at = time.mktime(time.strptime(stamp, "%Y-%m-%dT%H:%M:%S"))
        return os.stat(Path(store) / "manifest.json").st_mtime >= at + 1
    except (OSError, ValueError, OverflowError):
        return False


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
              failures: list[str] | None = None, hook: str = "") -> int:
    """Mark the store dirty, then index until it is clean, unless another runner does already.

    ``settle``: wait until no hook fired for this long first (a checkout storm is one run).
    The writer lock held by someone else (a manual `stratum index`, `stratum watch`) is waited
    for, ``retries`` times ``retry_wait``. Returns how many indexes this runner made; each failed
    one's message goes to ``failures`` too (a person running the hook is told by its exit status).
    ``hook``: the hook this runner runs for, written into the dirty mark: a run that indexes for
    other hooks that fired meanwhile names them on its line, which the log labels with this
    runner's hook (a probe: after `git merge --no-ff`, "[post-merge] ... will index again", then
    "[post-commit] v15 published": the merge's re-index read as the commit's)."""
    from stratum.errors import StratumError

    root = Path(store)
    root.mkdir(parents=True, exist_ok=True)
    dirty, lock = root / "hooks.dirty", root / "hooks.lock"
    with open(dirty, "a", encoding="utf-8") as f:      # one name a line: the hooks this mark is for
        f.write(f"{hook}\n")
    runs = 0
    while dirty.exists():
        with _try_lock(lock) as mine:
            if not mine:
                log("an index run for this store is under way; it will index again")
                return runs
            rotate_log(root)            # under the lock: one run at a time rotates
            while dirty.exists():
                _settle(dirty, settle)
                said = _for_hooks(dirty, hook)
                for attempt in range(retries + 1):
                    t = time.perf_counter()
                    try:
                        log(f"{index()} ({time.perf_counter() - t:.2f}s){said}")
                        break
                    except StratumError as e:
                        if not e.retryable or attempt == retries:
                            log(f"index failed: {e.message}{said}")
                            if failures is not None:
                                failures.append(e.message)
                            break
                        time.sleep(retry_wait)
                runs += 1
        # released: a hook that fired just before the release found the lock taken, so look again
    return runs


def _for_hooks(dirty: Path, hook: str) -> str:
    """Take the dirty mark (it is gone when this returns); the words its run's line ends with when
    hooks other than ``hook`` marked it: " (for post-merge)", " (for post-merge too)" when
    ``hook`` did as well; "" otherwise."""
    taken = dirty.with_name(f"{dirty.name}.{os.getpid()}")
    try:
        os.replace(dirty, taken)        # a hook firing from now on marks a new one
        names = set(taken.read_text(encoding="utf-8", errors="replace").split())
        taken.unlink(missing_ok=True)
    except OSError:
        dirty.unlink(missing_ok=True)
        return ""
    others = sorted(names - {hook})
    if not hook or not others:
        return ""
    return f" (for {', '.join(others)}{' too' if hook in names else ''})"


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


__all__ = ["install", "uninstall", "survey", "last_run", "coalesced", "hooks_dir", "clean_hook_env", "HOOKS",
           "LOG_CAP", "rotate_log", "LogFollower", "log_line"]
