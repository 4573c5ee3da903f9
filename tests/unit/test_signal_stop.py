"""The stop flag `watch` sets from its signal handlers takes no lock: threading.Event.set takes the
lock the interrupted main thread may hold inside Event.wait, and a watch once hung for good on
SIGTERM. Here a real signal lands while the main thread holds what an Event would need."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import os, signal, sys, threading, time
    from pipeline.watch import SignalStop
    stop = threading.Event() if sys.argv[1] == "event" else SignalStop()
    lock = getattr(stop, "_cond", None)
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if lock is not None:
        lock.acquire()                  # where Event.wait stands when a signal lands between bytecodes
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.01)                    # the handler runs here
    if lock is not None:
        lock.release()
    print("stopped" if stop.wait(5) else "not stopped", flush=True)
""")


def _run(kind: str, timeout: float) -> str:
    try:
        p = subprocess.run([sys.executable, "-c", SCRIPT, kind], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hung"
    return p.stdout.strip()


def test_a_signal_landing_where_the_main_thread_holds_the_stops_lock_still_stops():
    assert _run("signal-stop", 30) == "stopped"
    assert _run("event", 4) == "hung"       # what watch used: the handler waits for its own thread


def test_signal_stop_waits_and_wakes():
    from pipeline.watch import SignalStop

    s = SignalStop()
    assert not s.wait(0.06) and not s.is_set()
    s.set()
    assert s.wait(10) and s.is_set()
