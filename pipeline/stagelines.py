"""What an index run says as it goes, and the flags its steps heed (``pipeline.job``'s helpers).

Each stage says when it starts and when it ends, and the end comes when the stage's work does, timed
by the clock the run report uses (``Stage``): a probe saw ``parse: done (1 items in 0.7s)`` where the
report said parse 4.4 s (the parse stage also collects the parsed files and reads the unchanged ones
back; an embed plans before it embeds), and 2.4-2.6 s gaps between stages in no line. An engine's
steps (files parsed, texts embedded, commits read for symbols) are passed on between.

The history mine runs on a thread of its own from the start of a run (``MineWatch``): a long one
says how far it is (a line every ``MineWatch.every`` seconds: commits read, of how many) and when
it ends, with its own time; the ``history`` stage is the main thread's wait for it (a probe saw
``history: done (1 items in 0.0s)`` after a 39-75 s mine that no line had shown).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

from pipeline import stages as st
from pipeline.gitio import GitError
from pipeline.report import RunReport

if TYPE_CHECKING:
    from pipeline.history import StopFlag

Progress = st.Progress
Say = Callable[[str], None]


def noop(stage: str, done: int, total: int) -> None:
    return None


class Stage:
    """One stage of a run: ``progress(name, 0, total)`` as it starts, the steps of its work passed on
    (``steps``, handed to an engine), ``progress(name, n, n)`` once all its work is done, and its
    seconds in the report (``RunReport.timed``, the same clock). An engine's last step is held until
    then: the stage's own work after it (collecting, attaching) is still the stage. ``total``: the
    items, when known at the start (1: one step; an engine's steps may give the count later). A
    stage left by an error or a stop says no end: the progress says where it stopped. ``quiet``:
    timed only (a stage with nothing to do by the settings)."""

    def __init__(self, rep: RunReport, name: str, progress: Progress, total: int = 1, quiet: bool = False):
        self.rep, self.name, self.total = rep, name, max(total, 1)
        self.progress = noop if quiet else progress     # quiet: timed, not said (an embed turned off)
        self.done = 0
        self.t = 0.0

    def __enter__(self) -> Progress:
        self.t = time.perf_counter()
        self.progress(self.name, 0, self.total)
        return self.steps

    def steps(self, stage: str, done: int, total: int) -> None:
        if stage != self.name:          # a stage of its own inside this one: passed on as it is
            self.progress(stage, done, total)
            return
        self.total, self.done = max(total, 1), done
        if done < total:
            self.progress(stage, done, total)

    def __exit__(self, kind, err, tb) -> None:
        self.rep.timed(self.name, time.perf_counter() - self.t)
        if kind is None:
            self.progress(self.name, self.total, self.total)


def timed(fn):
    """``fn()`` and the seconds it took (on whichever thread runs it)."""
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


class MineWatch:
    """The history thread's stop flag, and its ears (``history.mine`` calls ``mining`` and ``read``):
    set when the run leaves early on the main thread (an error, a signal handler's exception), or
    when the caller's ``stop`` is. A plain attribute: setting it takes no lock, and the main thread
    may be unwinding from inside one (``pipeline.watch.SignalStop``). ``say``: a line of its own
    (the CLI's ``Progress.line``; None: quiet). A mine says nothing in its first ``every`` seconds
    (a re-index's few commits, a small repository: two more lines each run would be noise), then
    how far it is every ``every`` seconds while git is read (commits read, of how many), and its
    end with its own time."""

    every = 10.0

    def __init__(self, caller: StopFlag | None, say: Say | None = None):
        self.caller = caller
        self.left = False
        self.say = say
        self.count: Callable[[], int] | None = None
        self.total: int | None = None
        self.started = self.last = time.perf_counter()
        self.spoke = False

    def set(self) -> None:
        self.left = True

    def is_set(self) -> bool:
        return self.left or (self.caller is not None and self.caller.is_set())

    def mining(self, since: str | None, count: Callable[[], int]) -> None:
        """The mine starts: the commits since ``since``, or all of them (``count``: how many, asked
        once the mine is long enough to be said)."""
        self.started = self.last = time.perf_counter()
        self.count = count if since is None else None

    def read(self, commits: int) -> None:
        now = time.perf_counter()
        if self.say is None or now - self.last < self.every:
            return
        if self.count is not None:
            count, self.count = self.count, None
            try:
                self.total = count()
            except (GitError, ValueError):     # a line without the total: the mine goes on
                self.total = None
        self.last, self.spoke = now, True
        of = f" of {self.total:,}" if self.total else ""
        part = f" ({100 * commits / self.total:.0f}%)" if self.total else ""
        self.say(f"history (in the background): {commits:,}{of} commits read{part} in {now - self.started:.0f}s")

    def mined(self, commits: int | None, seconds: float) -> None:
        """The mine's end (called on its thread), said when the mine was long: its own time (the
        ``history`` stage is the main thread's wait for it)."""
        if self.say is not None and (self.spoke or seconds >= self.every):
            n = "" if commits is None else f"{commits:,} commit{'s' if commits != 1 else ''} "
            self.say(f"history (in the background): mined {n}in {seconds:.1f}s")


@contextmanager
def mine_ends_with_run(pool: ThreadPoolExecutor, stop: MineWatch) -> Iterator[None]:
    """On any early way out, the history thread is told to stop and joined: it must not outlive
    the run (it reads git and the store, after the writer lock is released otherwise), nor hold the
    process at exit (a SIGTERM during a long mine waited for the whole mine, past a pod's 30 s
    grace). It looks at the flag between chunks of git's output, so the join is short."""
    try:
        yield
    except BaseException:
        stop.set()
        pool.shutdown(wait=True)
        raise


def heeding(progress: Progress, stop: StopFlag | None) -> Progress:
    """``progress`` that raises ``RunStopped`` once ``stop`` is set: parse, embed and symbols call it
    per batch (on either engine), the other stages as they start, so a caller's stop ends a long
    stage at its next step."""
    if stop is None:
        return progress
    from pipeline.history import check_stop

    def step(stage: str, done: int, total: int) -> None:
        if done < total:            # a stage's last step is done work: the next stage's first looks
            check_stop(stop, stage)
        progress(stage, done, total)
    return step


__all__ = ["Stage", "MineWatch", "mine_ends_with_run", "heeding", "timed", "noop", "Progress"]
