"""`stratum index A B --report F` says which repository is under way and which waits its turn, while
it runs and after a stop: a nightly's collector (or whoever reads the file a killed run left) was
told every repository submitted to Ray was "running", the ones waiting for a free CPU too."""

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
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]  # CLI processes (one starts a local Ray)


def _stuck_repo(path: Path) -> tuple[Repo, Path]:
    """A repository whose index waits for good: its refs are a FIFO nobody writes (a stuck mount)."""
    r = Repo(path)
    r.commit("one", {"pkg/a.py": "def f():\n    return 1\n"})
    git(r.path, "pack-refs", "--all")
    fifo = r.path / ".git" / "packed-refs"
    fifo.unlink()
    os.mkfifo(fifo)
    return r, fifo


def _states(report: Path) -> list[str]:
    try:
        return [r["state"] for r in json.loads(report.read_text())["repositories"]]
    except (OSError, ValueError):       # not written yet
        return []


@pytest.mark.parametrize("engine", ["--no-ray", "--ray"])
def test_a_repository_waiting_its_turn_is_queued_and_never_ran_after_a_stop(tmp_path, engine):
    """One CPU, two repositories that both hang: one runs, the other waits. On Ray both read
    "running" from their submission on (and "interrupted" after the stop); without Ray the one
    waiting read "not_run", as did a job that never started."""
    (one, fifo1), (two, fifo2) = _stuck_repo(tmp_path / "one"), _stuck_repo(tmp_path / "two")
    report = tmp_path / "r.json"
    env = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "index", str(one.path), str(two.path), "--store-root",
                          str(tmp_path / "s"), "--report", str(report), "--no-embed", engine, "--num-cpus", "1"],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while "running" not in _states(report) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)                 # the one CPU is taken for good: the other stays where it is
        waiting = _states(report)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        for fifo in (fifo1, fifo2):     # a git still waiting on a FIFO gets its end of file
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass                    # no reader left
    # in turn without Ray; on Ray whichever a worker took first
    assert (waiting == ["running", "queued"] if engine == "--no-ray" else sorted(waiting) == ["queued", "running"]), \
        (waiting, err)
    assert p.returncode == 143, err
    rep = json.loads(report.read_text())
    assert [r["state"] for r in rep["repositories"]] == [{"running": "interrupted", "queued": "not_run"}[s]
                                                         for s in waiting], rep
    assert rep["counts"] == {"not_run": 1, "queued": 0, "running": 0, "ok": 0, "failed": 0, "interrupted": 1}
    assert "stopped by SIGTERM" in out and "NOT RUN " in out and "INTERRUPTED " in out, out
