"""The local Ray start as a user meets it: a signal during its seconds, a `ray start --head`
cluster's leftover address file, and what the output says of it. Each test is one `stratum index`
process with a Ray folder of its own (one local start each)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.gitrepo import Repo, sample_python_repo

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


@pytest.fixture
def ray_tmp():
    d = tempfile.mkdtemp(prefix="r2", dir="/tmp")        # short: Ray's socket paths are limited
    yield d
    for pid in _ray_pids(d):                              # a failing test leaves nothing running
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(d, ignore_errors=True)


def _ray_pids(ray_tmp: str) -> list[int]:
    """Processes started with this test's ``RAY_TMPDIR`` (Ray's gcs, raylet, agents and workers
    inherit it; the agents' command lines do not name it), zombies excepted."""
    out, mark = [], f"RAY_TMPDIR={ray_tmp}".encode()
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                env = (d / "environ").read_bytes().split(b"\0")
                state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if mark in env and state != "Z":
                out.append(int(d.name))
    return out


def _env(ray_tmp: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    return {**env, "RAY_TMPDIR": ray_tmp, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT)}


def test_sigterm_during_the_ray_start_is_interrupted_and_leaves_nothing(tmp_path, ray_tmp):
    """It exited 15 with the report "running", and Ray's agents (which ignore SIGTERM) stayed."""
    r = sample_python_repo(tmp_path / "shop")
    report = tmp_path / "r.json"
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "index", str(r.path), "--store", str(tmp_path / "s"),
                          "--ray", "--num-cpus", "1", "--no-embed", "--report", str(report)],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=_env(ray_tmp), cwd=ROOT, text=True)
    try:
        assert p.stderr is not None
        for line in p.stderr:
            if line.startswith("ray: starting"):        # the Ray start (4-6 s) begins
                break
        deadline = time.monotonic() + 20
        while not _ray_pids(ray_tmp) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _ray_pids(ray_tmp), "no Ray process seen: the signal would not land during the start"
        time.sleep(0.5)                           # its first processes up, the rest starting: mid-start
        p.send_signal(signal.SIGTERM)
        rest = p.stderr.read()
        # a signal after the start proves nothing here (the restored handler gave 143 already: a review)
        assert "ray: started in" not in rest, "the signal landed after the start: " + rest
        assert p.wait(timeout=30) == 143, rest
    finally:
        if p.poll() is None:
            p.kill()
    assert json.loads(report.read_text())["state"] == "interrupted"
    assert "stopped by SIGTERM" in rest and "Traceback" not in rest, rest
    assert not (tmp_path / "s" / "manifest.json").exists()
    deadline = time.monotonic() + 10
    while _ray_pids(ray_tmp) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _ray_pids(ray_tmp) == []


def test_ray_beside_a_clusters_address_file_starts_its_own_and_says_so(tmp_path, ray_tmp):
    """A `ray start --head` on this machine leaves ``ray_current_cluster``: --ray joined (tried to)
    that cluster and failed with ValueError "num_cpus and num_gpus must not be provided". Now a
    local Ray of its own; the start is said and timed, and each repository says what ran it."""
    os.makedirs(f"{ray_tmp}/ray")
    Path(f"{ray_tmp}/ray/ray_current_cluster").write_text("127.0.0.1:6379\n")
    a = sample_python_repo(tmp_path / "a")
    b = Repo(tmp_path / "b")
    b.commit("one", {"m.py": "def f():\n    return 1\n"})
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "index", str(a.path), str(b.path), "--store-root",
                        str(tmp_path / "stores"), "--ray", "--num-cpus", "1", "--no-embed", "--report", str(tmp_path / "r.json")],
                       capture_output=True, text=True, env=_env(ray_tmp), cwd=ROOT, timeout=240)
    assert p.returncode == 0, p.stderr
    assert "ray: starting a local Ray (1 CPU)" in p.stderr and "ray: started in" in p.stderr, p.stderr
    out = json.loads((tmp_path / "r.json").read_text())
    assert out["engine"] == "ray (--ray)" and out["ray_start"] > 0
    for row in out["repositories"]:
        assert row["report"]["engine"] == "a Ray task on a local Ray (1 CPU), its stages in-process", row
