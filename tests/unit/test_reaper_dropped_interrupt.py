"""A Ctrl-C during the Ray start whose raise lands where Python drops exceptions: an at-fork hook
(Ray forks its processes with a ``preexec_fn``), where CI saw "Exception ignored in: _releaseLock
... KeyboardInterrupt" and the start ran on to its end with the stop lost. Each case runs in a
process of its own: at-fork hooks cannot be unregistered."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(body: str) -> subprocess.CompletedProcess:
    script = textwrap.dedent("""
        import logging, os, signal, subprocess, sys
        from pipeline.history import RunStopped
        from pipeline.reaper import callers_sigterm
        flag = []
        signal.signal(signal.SIGINT, lambda *a: flag.append(1))      # watch's: only a flag
    """) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_stop_whose_raise_an_at_fork_hook_dropped_still_stops_the_run():
    p = _run("""
        armed = [True]
        def hook():                     # the signal is handled in this hook's frame: its raise is dropped
            if armed:
                armed.clear()
                os.kill(os.getpid(), signal.SIGINT)
                sum(range(10))
        os.register_at_fork(after_in_parent=hook)
        try:
            with callers_sigterm():
                subprocess.run(["true"], preexec_fn=lambda: None)
                print("start ran to its end", flush=True)
            print("RAN ON")
        except RunStopped:
            print("stopped", flag)
    """)
    assert p.stdout.splitlines()[-1] == "stopped [1]", p.stdout + p.stderr


def test_a_stop_landing_in_loggings_fork_hook_is_sent_again_into_the_start():
    p = _run("""
        import threading, time
        class Frame:                    # where the handler was called: logging's after-fork hook
            f_code = logging._releaseLock.__code__
        try:
            with callers_sigterm():
                signal.getsignal(signal.SIGINT)(signal.SIGINT, Frame())      # not raised there
                t = time.monotonic()
                while time.monotonic() - t < 5:
                    time.sleep(0.01)    # the start's own code: the resent signal lands here
            print("RAN ON")
        except RunStopped:
            print("stopped", flag, "in the start" if time.monotonic() - t < 4 else "after it")
    """)
    assert p.stdout.splitlines()[-1] == "stopped [1] in the start", p.stdout + p.stderr
    assert "Exception ignored" not in p.stderr and "Traceback" not in p.stderr, p.stderr
