"""The watchdog of a local Ray this process starts (Linux): it kills Ray's processes when the
driver dies without shutting Ray down (kill -9), or when the start itself was cut short (a signal
during ``ray.init``'s seconds). Apart from ``pipeline.job`` because it imports no Ray: it watches
processes, whatever they run.

It is started *before* ``ray.init``: started after it (as it was), a signal or kill -9 in the
4-6 s of the start left ``ray::DashboardAgent`` and ``ray::RuntimeEnvAgent`` behind (they ignore
SIGTERM), with no watchdog yet to kill them.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
from contextlib import contextmanager
from typing import Callable, Iterator, NoReturn

# Runs in its own process, watching the driver through a pipe. Every half second it records the
# driver's descendants (Ray's gcs, raylet, agents, workers) with their start times; EOF without
# b"done" means the driver died (kill -9) or its Ray start never finished: one last look (from the
# driver and every process recorded, so agents started since the last look are found under their
# raylet) and it kills every recorded process still running (a start time that differs is a
# reused pid, never hit). Recording ahead matters: once the raylet dies its agents are re-parented
# and no longer look like the driver's. Before the kill every recorded process is stopped (SIGSTOP)
# and looked at again until no new one appears, so nothing spawned between the look and the kill
# (a raylet starting its agents) escapes it. The last look also finds Ray's processes by the session
# folder they hold open (``session_<date>_<driver pid>``, named after the driver that started Ray):
# Ray's gcs and raylet die with the driver (their parent-death signal), and agents the raylet
# started since the last half-second look are then orphans no walk from the driver reaches (CI:
# ray::DashboardAgent and ray::RuntimeEnv outlived a kill -9 under load). Their environment cannot
# carry a mark: their process title overwrites it.
_REAPER = r"""
import os, select, signal, sys
driver, me = int(sys.argv[1]), os.getpid()
ours = f"_{driver}"
def ray_of_ours(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            if not f.read().startswith("ray::"):
                return False
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if any(p.startswith("session_") and p.endswith(ours) for p in link.split("/")):
            return True
    return False
def stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
seen = {}
def alive(pid, start):
    s = stat(pid)
    return s is not None and s[19] == start
def record(final=False):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            s = stat(d)
            if s:
                kids.setdefault(int(s[1]), []).append((int(d), s[19]))
    todo = [driver] + ([p for p, start in seen.items() if alive(p, start)] if final else [])
    if final:
        for pid, start in [(p, s) for ps in kids.values() for p, s in ps]:
            if pid != me and pid not in seen and ray_of_ours(pid):
                seen[pid] = start
                todo.append(pid)
    while todo:
        for pid, start in kids.get(todo.pop(), []):
            if pid != me and pid not in seen:
                seen[pid] = start
                todo.append(pid)
while True:
    record()
    if select.select([sys.stdin], [], [], 0.5)[0]:
        data = os.read(sys.stdin.fileno(), 16)
        if data.startswith(b"done"):
            sys.exit(0)
        if not data:
            break
record(final=True)
for _ in range(20):     # frozen first: a raylet still starting its agents spawned one after the last look
    n = len(seen)       # (under load a DashboardAgent and a RuntimeEnv agent outlived the kill)
    for pid, start in list(seen.items()):
        if alive(pid, start):
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
    record(final=True)
    if len(seen) == n:
        break
for pid, start in seen.items():
    if alive(pid, start):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""


_EXIT: list[int] = []      # the exit code of a run stopped during the start (``stopping``)


def stopping(code: int) -> None:
    """A signal stopped the run during the Ray start: it exits with ``code``, before the reaper kills
    the half-started Ray (whose threads in this process abort when its raylet dies under them)."""
    _EXIT[:] = [code]


def start_reaper(shutdown: Callable[[], None]) -> Callable[[], None]:
    """Start the watchdog; returns ``ready``, to call once Ray started. At this process's exit
    ``shutdown`` (``ray.shutdown``) runs; then a ready watchdog is told "done" and leaves quietly.
    One whose start never finished kills what it recorded, and is waited for, and ``shutdown`` is
    not run (Ray's own exit hook for it is dropped too): nothing is left running when this process
    ends, and it ends with its own code."""
    if not os.path.isdir("/proc"):
        return lambda: None      # not Linux: see docs/operations.md (ray stop) for what may remain
    reaper = subprocess.Popen([sys.executable, "-c", _REAPER, str(os.getpid())], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    started: list[bool] = []

    def release() -> None:
        if reaper.stdin is None or reaper.stdin.closed:
            return
        if started:
            try:
                shutdown()
            except KeyboardInterrupt:   # a Ctrl-C in its seconds (the first one stopped the run; the
                started.clear()         # handlers are Python's again): traceback twice, Ray's own hook
                stopping(128 + signal.SIGINT)       # ran it again. Now: the reaper ends Ray, exit 130
        if not started:  # a start cut short (a signal in ray.init): its half-made worker's teardown, here or
            atexit.unregister(shutdown)      # at Ray's own exit hook, aborted (exit -6 in 1 of 3 runs)
            if _EXIT:           # and so did its threads when the reaper killed the raylet under them:
                reaper.stdin.close()            # the pipe's end tells the reaper; this process ends first
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(_EXIT[0])
        try:
            if started:
                reaper.stdin.write(b"done")
            reaper.stdin.close()
            reaper.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass   # the reaper is gone already (or still killing): nothing left to release here

    atexit.register(release)
    return lambda: started.append(True)


def _dropping_raises() -> frozenset:
    """Code where an exception raised by a signal handler is dropped ("Exception ignored in"): the
    at-fork hooks logging registers, which run in this process as Ray forks its processes with a
    ``preexec_fn``. A Ctrl-C landing there (seen under load) left the start running to its end."""
    import logging

    hooks = [getattr(logging, name, None) for name in ("_acquireLock", "_releaseLock", "_prepareFork",
                                                        "_afterFork")]
    return frozenset(h.__code__ for h in hooks if callable(h) and hasattr(h, "__code__"))


_DROPS_RAISES = _dropping_raises()


@contextmanager
def callers_sigterm() -> Iterator[None]:
    """The caller's stop signals across ``ray.init``. Its SIGTERM handler is kept, though Ray sets
    its own (``sys.exit(15)``): `stratum index A B --ray` stopped by SIGTERM ended 1 with its report
    still "running", and `watch` lost its stop. A SIGTERM *during* the start met Ray's handler (exit
    15, the report "running"): its ``SystemExit(15)`` is handed to the caller's handler (the CLI's
    raises its stop: exit 143, "interrupted"). Without one of the caller's, Ray's stays. A SIGINT
    during the start runs the caller's handler too; one that only sets a flag (watch's) left the
    start running for its 4-12 s (a Ctrl-C seemed ignored), so the start is cut there as well.

    A stop during the start ends the process before the reaper kills the half-started Ray
    (``stopping``): with the CLI's code (143, 130), or, when the caller's handler only set a flag
    (watch), with 0, as a stop heeded anywhere else ends it ("stopped"); this context then raises
    ``RunStopped`` to its caller, whose run gives up as at any other step."""
    import threading

    main = threading.current_thread() is threading.main_thread()
    held = signal.getsignal(signal.SIGTERM) if main else None
    held_int = signal.getsignal(signal.SIGINT) if main else None
    flagged: list[int] = []             # a signal the caller's handler took without raising (watch's)
    hit: list[int] = []                 # every SIGINT taken during the start
    done: list[bool] = []               # the start is over (left or ended)
    lock = threading.Lock()

    def again() -> None:
        with lock:
            if not done:
                os.kill(os.getpid(), signal.SIGINT)

    def interrupt(signum, frame) -> None:
        assert callable(held_int)
        if done:                        # a resend landing as the start is left: heeded already
            if not hit:
                held_int(signum, frame)
            return
        hit.append(signum)
        if frame is not None and frame.f_code in _DROPS_RAISES:
            retry = threading.Timer(0.05, again)        # raised here it is lost: sent again, to land
            retry.daemon = True                         # in the start's own code
            retry.start()
            return
        held_int(signum, frame)         # the CLI's raises its stop; Python's default, KeyboardInterrupt
        flagged.append(signum)
        raise KeyboardInterrupt         # Ray re-raises only this (or SystemExit) from inside its waits

    if callable(held_int):
        signal.signal(signal.SIGINT, interrupt)
    try:
        try:
            yield
        finally:
            with lock:
                done.append(True)
        if hit:                         # a raise was dropped all the same: the start ended, the stop stands
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        if not flagged:
            stopping(128 + signal.SIGINT)
            raise
        _flag_stop()
    except SystemExit as ended:
        if ended.code != signal.SIGTERM or not callable(held):
            raise
        stopping(128 + signal.SIGTERM)
        held(signal.SIGTERM, None)          # the CLI's raises; one that only sets a flag (watch):
        _flag_stop()
    finally:
        if callable(held_int):
            signal.signal(signal.SIGINT, held_int)
        if main and held is not None and held != signal.SIG_DFL:
            signal.signal(signal.SIGTERM, held)


def _flag_stop() -> NoReturn:
    """The caller's handler only set its flag: its run gives up here, and the process, which ends
    for that stop, ends 0 (watch's "stopped") before the half-started Ray is killed. Waiting for the
    reaper instead (the exit code left to the caller) kept the process alive while the raylet
    died under Ray's threads in it."""
    from pipeline.history import RunStopped

    stopping(0)
    raise RunStopped("stopped during the Ray start") from None


__all__ = ["start_reaper", "stopping", "callers_sigterm"]
