"""The reaper's last look finds Ray's processes by the session folder they hold open, named after
the driver (``session_<date>_<driver pid>``): Ray's gcs and raylet die with the driver (their
parent-death signal), so agents the raylet started just before a kill -9 are orphans no walk from
the driver reaches (CI: ray::DashboardAgent and ray::RuntimeEnv outlived the kill under load), and
their process title has overwritten their environment. A double fork makes such an orphan here,
without Ray; one holding another driver's session folder is left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_ORPHAN = """
import os, subprocess, sys
p = subprocess.Popen([sys.executable, "-c", '''
import sys, time
open("/proc/self/comm", "w").write("ray::Agent")
log = open(sys.argv[1], "a")
print("up", flush=True)
time.sleep(300)
''', sys.argv[1]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
p.stdout.readline()
print(p.pid, flush=True)       # its parent exits now: an orphan
"""

_DRIVER = """
import time
from pipeline.reaper import start_reaper
start_reaper(lambda: None)          # never ready: as a driver killed during its Ray start
print("ready", flush=True)
time.sleep(300)
"""


def _orphan(tmp_path: Path, session: str) -> int:
    """A process named as Ray names its agents, holding a log open in ``session``, whose parent has
    exited: made by this test, so no walk from the driver ever reaches it."""
    logs = tmp_path / session / "logs"
    logs.mkdir(parents=True)
    o = subprocess.run([sys.executable, "-c", _ORPHAN, str(logs / "agent.log")], capture_output=True, text=True,
                       timeout=60)
    return int(o.stdout.strip())


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the reaper watches /proc (Linux)")
def test_an_orphaned_ray_process_of_the_drivers_session_is_killed_after_kill_9(tmp_path):
    p = subprocess.Popen([sys.executable, "-c", _DRIVER], stdout=subprocess.PIPE, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    ours = theirs = 0
    try:
        assert p.stdout.readline().strip() == b"ready"
        ours = _orphan(tmp_path, f"session_2026-12-06_01-02-03_456_{p.pid}")
        theirs = _orphan(tmp_path, f"session_2026-12-06_01-02-03_456_{p.pid}0")     # another driver's
        time.sleep(1.2)                          # two of the reaper's looks: neither is a descendant
        for q in (ours, theirs):
            ppid = int(Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()[1])
            assert ppid != p.pid and _running(q) and Path(f"/proc/{q}/comm").read_text().strip() == "ray::Agent"
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        deadline = time.monotonic() + 20
        while _running(ours) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _running(ours)
        assert _running(theirs)                  # another driver's Ray: not this reaper's
    finally:
        if p.poll() is None:
            p.kill()
        for q in (ours, theirs):
            if q and _running(q):
                os.kill(q, signal.SIGKILL)
