"""The reaper's last look finds processes by the driver's mark in their environment: Ray's gcs
and raylet die with the driver (parent-death signal), so agents the raylet started just before a
kill -9 are orphans no walk from the driver reaches (CI: ray::DashboardAgent, ray::RuntimeEnv
outlived the kill under load). A double fork makes such an orphan here, without Ray."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_DRIVER = """
import os, subprocess, sys, time
from pipeline.reaper import start_reaper
start_reaper(lambda: None)          # never ready: as a driver killed during its Ray start
orphan = subprocess.Popen([sys.executable, "-c",
    "import os, subprocess, sys; p = subprocess.Popen(['sleep', '300']); print(p.pid, flush=True)"],
    stdout=subprocess.PIPE)
print(orphan.stdout.readline().decode().strip(), flush=True)   # its parent has exited: an orphan
orphan.wait()
time.sleep(300)
"""


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the reaper watches /proc (Linux)")
def test_an_orphan_with_the_drivers_mark_is_killed_after_kill_9():
    p = subprocess.Popen([sys.executable, "-c", _DRIVER], stdout=subprocess.PIPE, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    orphan = 0
    try:
        orphan = int(p.stdout.readline())
        time.sleep(1.2)                          # two of the reaper's looks: the orphan is not a descendant
        ppid = int(Path(f"/proc/{orphan}/stat").read_text().rsplit(")", 1)[1].split()[1])
        assert ppid != p.pid and _running(orphan)
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        deadline = time.monotonic() + 20
        while _running(orphan) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _running(orphan)
    finally:
        if p.poll() is None:
            p.kill()
        if orphan and _running(orphan):
            os.kill(orphan, signal.SIGKILL)


def test_the_mark_is_not_left_to_the_drivers_later_children(monkeypatch):
    from pipeline import reaper

    monkeypatch.delenv(reaper._MARK, raising=False)
    ready = reaper.start_reaper(lambda: None)
    assert os.environ[reaper._MARK].startswith(f"{os.getpid()}-")
    ready()
    assert reaper._MARK not in os.environ
