"""Re-index when HEAD moves: a cheap poll of git's own files, debounced, no Ray here.

Why a poll of stat() and not inotify: it needs no dependency, works on every file system a
repository lives on (network mounts included), and three stats every half second cost nothing.
HEAD moves when `.git/HEAD` changes (checkout to a branch or a commit), when the ref it names
changes (commit, merge, reset, pull) or when packed-refs is rewritten (gc, fetch of a packed ref).
After an index that failed for good at this HEAD (a damaged store), the store's own files are
looked at too (``store_signature``): a `stratum repair` publishes a manifest, and the watch indexes
again. It had taken the failed HEAD as indexed and left the repaired store commits behind for good.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pipeline import gitio
from stratum.errors import NotARepository


def git_dirs(repo: str | os.PathLike) -> tuple[Path, Path]:
    """(the work tree's git dir, the common dir): they differ in a linked worktree, where HEAD is
    per-worktree and refs are shared."""
    out = gitio.decode(gitio.run_git(repo, "rev-parse", "--path-format=absolute", "--git-dir",
                                     "--git-common-dir")).splitlines()
    return Path(out[0]), Path(out[1])


def _stat(p: Path) -> tuple | None:
    try:
        s = p.stat()
    except OSError:
        return None
    return (s.st_ino, s.st_size, s.st_mtime_ns)


def head_signature(git_dir: Path, common_dir: Path) -> tuple:
    """What changes whenever HEAD moves: HEAD's text, the stat of the ref it names, packed-refs'
    stat. Git replaces a ref by renaming a lock file, so the inode changes even within one tick."""
    try:
        head = (git_dir / "HEAD").read_text(errors="replace").strip()
    except OSError:
        head = ""
    ref = _stat(common_dir / head[5:].strip()) if head.startswith("ref:") else None
    return (head, ref, _stat(common_dir / "packed-refs"))


def store_signature(store: Path) -> tuple:
    """What a repair or another run changes in a store: manifest.json (a publish renames a new
    one in), the copies' folder and the warm folders (a rebuild in place renames one)."""
    return tuple(_stat(store / name) for name in ("manifest.json", "manifests", "indexes"))


@dataclass
class Run:
    """One re-index the watcher made: why, how long, what came of it."""

    reason: str
    seconds: float
    summary: str = ""
    error: str = ""
    ok: bool = True
    retryable: bool = False     # a failure retried after the next debounce (another run holds the lock)


class SignalStop:
    """A stop flag a signal handler may set: ``threading.Event.set`` takes the lock the interrupted
    main thread may be holding (a handler runs between two bytecodes, and the main thread spends
    its time inside ``Event.wait``), and a `watch` once hung for good on SIGTERM that way (a
    full-suite run: the process outlived its test by 16 minutes, every thread in a futex wait).
    Setting it takes no lock; ``wait`` sleeps in short steps (a signal ends a step early)."""

    STEP = 0.05

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        while not self._set:
            left = self.STEP if end is None else min(self.STEP, end - time.monotonic())
            if left <= 0:
                break
            time.sleep(left)
        return self._set


@dataclass
class Watcher:
    """Call ``index()`` once HEAD has been still for ``debounce`` seconds after it moved.

    A storm of checkouts is one re-index (the timer restarts at each move); a move during an
    index is seen at the next poll and indexed after it settles. ``index`` returns a one-line
    summary; an exception is reported through ``report`` and watching goes on (a retryable one,
    such as another run holding the writer lock, is retried after the next debounce). ``index``
    may heed ``stop`` itself (``index_repository(stop=)``): a run it gives up for the stop is not
    reported, and ``abandoned`` says why it ran. A repository gone from its folder (moved or
    deleted; still gone after ``debounce``) ends ``run`` with ``NotARepository``: it had been
    reported as "HEAD ->  (detached): index failed: NotARepository" and watched for good.

    A failure that is no retry's business (a damaged store) is reported once; with ``store``
    given, the watch indexes the same HEAD again once the store's files change after it (a
    `stratum repair`, an index run by hand), so a repair is followed by a re-index to HEAD."""

    repo: str
    index: Callable[[], str]
    report: Callable[[Run], None] = lambda run: None
    interval: float = 0.5
    debounce: float = 1.0
    stop: threading.Event | SignalStop = field(default_factory=threading.Event)
    store: str | None = None            # the store indexed: looked at after a failed index
    runs: list[Run] = field(default_factory=list)
    abandoned: str = ""                 # the reason of a run the stop cut short ("": none)
    failed_store: tuple | None = None   # the store's signature after a failed index (None: none failed)

    def __post_init__(self) -> None:
        if self.interval <= 0 or self.debounce < 0:
            from stratum.errors import InvalidArgument

            raise InvalidArgument(f"--interval must be > 0 and --debounce >= 0 "
                                  f"(got {self.interval} and {self.debounce})")
        self.git_dir, self.common_dir = git_dirs(self.repo)

    def signature(self) -> tuple:
        return head_signature(self.git_dir, self.common_dir)

    def gone(self) -> bool:
        """The work tree or its git dir is no longer there (two stats)."""
        return not (os.path.isdir(self.repo) and (self.git_dir / "HEAD").exists())

    def run(self, initial: bool = True) -> list[Run]:
        """Watch until ``stop`` is set. ``initial``: first bring the store up to HEAD (the fast
        no-change path answers at once when it already is)."""
        seen = self.signature()
        indexed = None if initial else seen
        moved_at = time.monotonic() - (self.debounce if initial else 0.0)   # initial: index at once
        gone_at: float | None = None
        why = ""                            # a re-index of the same HEAD: what changed
        while not self.stop.is_set():
            now_sig = self.signature()
            now = time.monotonic()
            if self.gone():             # a checkout replaced in place comes back within the debounce
                gone_at = now if gone_at is None else gone_at
                if now - gone_at >= self.debounce:
                    raise NotARepository(f"repository gone: {self.repo} (moved or deleted); watch stopped "
                                         f"after {len(self.runs)} index run(s): start it where the repository is now")
                self.stop.wait(self.interval)
                continue
            gone_at = None
            if now_sig != seen:
                seen, moved_at = now_sig, now
            if self.failed_store is not None and seen == indexed and self.store_changed():
                indexed, moved_at, why = None, now, "store changed since the failed index; "
            if seen != indexed and now - moved_at >= self.debounce:
                # "start" only for the initial run: with --no-initial the first run is a move (a probe)
                reason = "start" if initial and not self.runs else why + _describe(seen)
                if self._index_once(reason):
                    indexed, why = seen, ""
                else:                        # retryable: try again once HEAD is still a while more
                    moved_at = time.monotonic()
                    self.stop.wait(max(self.interval, self.debounce))
                continue                     # look again at once: HEAD may have moved meanwhile
            self.stop.wait(self.interval)
        return self.runs

    def store_changed(self) -> bool:
        return self.store is not None and store_signature(Path(self.store)) != self.failed_store

    def _index_once(self, reason: str) -> bool:
        """Index and report; False when the failure is worth a retry at the same HEAD."""
        t = time.perf_counter()
        try:
            summary = self.index()
        except Exception as e:       # noqa: BLE001 - reported, and watching goes on
            if self.stop.is_set():   # the run gave up for the stop (pipeline.history.RunStopped): no failure
                self.abandoned = reason
                return True
            if self.gone():          # removed under the run: the loop says so (or indexes it once back)
                return False
            retryable = bool(getattr(e, "retryable", False))
            run = Run(reason, time.perf_counter() - t, error=f"{type(e).__name__}: {e}", ok=False, retryable=retryable)
            self.runs.append(run)
            self.report(run)
            if not retryable and self.store is not None:    # taken after the run: its own writes are no change
                self.failed_store = store_signature(Path(self.store))
            return not retryable
        self.failed_store = None
        run = Run(reason, time.perf_counter() - t, summary=summary)
        self.runs.append(run)
        self.report(run)
        return True


def _describe(sig: tuple) -> str:
    head = sig[0]
    if not head:
        return "HEAD unreadable"
    return f"HEAD -> {head[5:].strip()}" if head.startswith("ref:") else f"HEAD -> {head[:12]} (detached)"


__all__ = ["Watcher", "Run", "SignalStop", "head_signature", "store_signature", "git_dirs"]
