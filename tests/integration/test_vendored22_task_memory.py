"""Each repository's Ray task asks memory, so Ray starts no more of them on a worker than its memory
holds: a task asked one CPU and nothing else, and a 4-CPU 8 GiB worker took four sympy-sized
repositories (~2.5 GB each) at once. Here a local Ray of 2 CPUs and a request larger than its
memory: one repository runs, the other waits its turn (both ran at once before)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.gitrepo import Repo, git

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]  # a CLI process that starts a local Ray


def _stuck_repo(path: Path) -> tuple[Repo, Path]:
    """A repository whose index waits for good: its refs are a FIFO nobody writes."""
    r = Repo(path)
    r.commit("one", {"pkg/a.py": "def f():\n    return 1\n"})
    git(r.path, "pack-refs", "--all")
    fifo = r.path / ".git" / "packed-refs"
    fifo.unlink()
    os.mkfifo(fifo)
    return r, fifo


def _report(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):       # not written yet
        return {}


def test_a_task_asking_more_memory_than_the_local_ray_has_runs_one_repository_at_a_time(tmp_path):
    (one, fifo1), (two, fifo2) = _stuck_repo(tmp_path / "one"), _stuck_repo(tmp_path / "two")
    report = tmp_path / "r.json"
    env = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0",
           "STRATUM_TASK_MEMORY": "1T"}
    env.pop("RAY_ADDRESS", None)
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "index", str(one.path), str(two.path), "--store-root",
                          str(tmp_path / "s"), "--report", str(report), "--no-embed", "--ray", "--num-cpus", "2"],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while "running" not in [r["state"] for r in _report(report).get("repositories", [])] \
                and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(3)                   # two CPUs free: only the memory keeps the other waiting
        during = _report(report)
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        for fifo in (fifo1, fifo2):     # a git still waiting on a FIFO gets its end of file
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
    assert sorted(r["state"] for r in during["repositories"]) == ["queued", "running"], during
    assert during["engine"].startswith("ray (--ray); each task asked 1024.0 GiB of memory, more than the local "
                                       "Ray has ("), during["engine"]
    assert during["engine"].endswith("GiB): one repository at a time"), during["engine"]
