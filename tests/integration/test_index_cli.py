"""`stratum index` as a user runs it: the confinement reproduction, several repositories with one
summary, progress lines in a log, and no Ray process left behind after kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from stratum.cli import main
from tests.gitrepo import Repo, sample_python_repo

pytestmark = pytest.mark.xdist_group("ray")   # a local Ray cluster: one worker starts them, in turn (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def test_the_etcleak_reproduction_is_refused(tmp_path, capsys):
    """Issue 10.1 with a directory outside the repository in place of /etc."""
    outside = tmp_path / "etc"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0:SECRET:/root:/bin/sh\n")
    r = Repo(tmp_path / "t")
    r.commit("i", {"a.py": "x = 1\n"})
    r.commit("leak", {"etcleak/passwd": "p\n"})
    (r.path / "etcleak" / "passwd").unlink()
    (r.path / "etcleak").rmdir()
    (r.path / "etcleak").symlink_to(outside)
    store = tmp_path / "s"
    assert main(["index", str(r.path), "--store", str(store), "--no-embed", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["skipped"]["outside_repository"] >= 1 and "etcleak/passwd" in rep["skipped_samples"]["outside_repository"]
    assert main(["get", "etcleak/passwd", "--level", "full", "--store", str(store)]) == 2   # NotFound
    out = capsys.readouterr()
    assert "SECRET" not in out.out + out.err
    assert "'etcleak/passwd' is not in the index: the index skipped it (outside repository" in out.err


def test_several_repositories_one_summary_and_a_failing_exit(tmp_path, capsys):
    a = sample_python_repo(tmp_path / "a")
    b = Repo(tmp_path / "nested" / "a")          # the same name: stores made unique
    b.commit("one", {"m.py": "def f():\n    return 1\n"})
    plain = tmp_path / "plain"
    plain.mkdir()
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# nightly\n{plain}\n\nnested/a\n")
    rc = main(["index", str(a.path), "--repos-file", str(listing), "--store-root", str(tmp_path / "stores"),
               "--no-embed", "--json", "--report", str(tmp_path / "r.json")])
    assert rc == 1                                # one repository failed
    out = json.loads(capsys.readouterr().out)
    assert json.loads((tmp_path / "r.json").read_text()) == out
    rows = {Path(r["repo"]).relative_to(tmp_path).as_posix(): r for r in out["repositories"]}
    assert set(rows) == {"a", "plain", "nested/a"}
    assert rows["a"]["error"] is None and rows["a"]["report"]["nodes"]["file"] == 6
    assert rows["nested/a"]["store"].endswith("stores/a-2") and rows["a"]["store"].endswith("stores/a")
    assert rows["plain"]["error"]["type"] == "NotARepository"
    assert (tmp_path / "stores" / "a-2" / "manifest.json").is_file()
    assert main(["index", str(a.path), "--store", "x", "--store-root", "y"]) == 2   # a clear user error


def test_progress_in_a_log_is_one_line_per_stage_start_and_end(tmp_path, capsys):
    r = sample_python_repo(tmp_path / "shop")
    assert main(["index", str(r.path), "--store", str(tmp_path / "s"), "--no-embed"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert "parse: started (6 items)" in err and any(line.startswith("parse: done (6 items in") for line in err)
    assert all("[" not in line and "\r" not in line for line in err)             # no bars in a log
    assert len(err) <= 12


@pytest.mark.slow
def test_kill_9_of_the_driver_leaves_no_local_ray_process(tmp_path):
    """The reaper kills the local Ray the driver started (gcs, raylet, workers) when the driver is
    killed with SIGKILL, which gives it no chance to shut Ray down."""
    ray_tmp = tempfile.mkdtemp(prefix="rk", dir="/tmp")     # short: Ray's socket paths are limited
    script = ("import sys, time\n"
              "from pipeline.job import ensure_ray\n"
              "from stratum.config import IndexConfig\n"
              "ray = ensure_ray(IndexConfig(num_cpus=1))\n"
              "ray.get(ray.remote(lambda: 1).remote())\n"
              "print('ready', flush=True)\n"
              "time.sleep(300)\n")
    env = {**os.environ, "RAY_TMPDIR": ray_tmp, "RAY_USAGE_STATS_ENABLED": "0", "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=env, cwd=ROOT)
    try:
        assert p.stdout.readline().strip() == b"ready"
        time.sleep(2)                                 # Ray's agents start just after the first task
        ray_pids = _descendants(p.pid)
        names = {_comm(q) for q in ray_pids}
        assert {"gcs_server", "raylet"} <= names and any(n.startswith("ray::") for n in names), names
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        deadline = time.monotonic() + 30
        while _alive(ray_pids) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert {q: _comm(q) for q in _alive(ray_pids)} == {}   # without the reaper: ray::DashboardAgent, ray::RuntimeEnv
    finally:
        if p.poll() is None:
            p.kill()


def _descendants(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        q = todo.pop()
        for t in Path(f"/proc/{q}/task").glob("*/children"):
            try:
                kids = [int(c) for c in t.read_text().split()]
            except OSError:
                continue
            for c in kids:
                if c not in out:
                    out.add(c)
                    todo.append(c)
    return out


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _alive(pids: set[int]) -> set[int]:
    """Those still running (not zombies), excluding the test's own reaper helper."""
    out = set()
    for q in pids:
        try:
            state = Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(q)
    return out


def test_a_no_change_index_over_damaged_data_says_what_to_run(tmp_path, capsys):
    """Probe: `stratum index` said "up to date" over a store whose Lance data was damaged, while
    `stratum repair` said to re-index with --full. The up-to-date check now runs the quick
    integrity check: the run refuses with what to run, and the way out works end to end."""
    r = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    argv = ["index", str(r.path), "--store", str(store), "--no-embed"]
    assert main(argv) == 0
    note = subprocess.run([sys.executable, "-m", "stratum.cli", "remember", "rca", "totals round twice", "--about",
                           "shop/cart.py", "--store", str(store)], capture_output=True, text=True, timeout=300)
    assert note.returncode == 0, note.stderr    # its own process: its log segment is sealed when it ends
    assert main(argv) == 0                      # merges the note
    capsys.readouterr()
    assert main(argv) == 0 and "is up to date" in capsys.readouterr().out
    m = json.loads((store / "manifest.json").read_text())
    data = sorted(f for f in m["integrity"]["nodes"]["files"] if f.startswith("data/"))
    f = store / "data-v1" / "nodes.lance" / data[0]
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0xFF                      # the middle of one data file: sizes still agree
    f.write_bytes(bytes(b))

    assert main(argv) == 1
    out = capsys.readouterr()
    assert "up to date" not in out.out and "is damaged" in out.err and f"stratum repair --store {store}" in out.err
    assert main(["repair", "--store", str(store)]) == 0
    assert "rolled back to the data of version 1" in capsys.readouterr().out
    assert main(argv) == 0 and "is up to date" not in capsys.readouterr().out     # merges the note again
    assert main(argv) == 0 and "is up to date" in capsys.readouterr().out
    assert main(["notes", "list", "--json", "--store", str(store)]) == 0
    assert [n["text"] for n in json.loads(capsys.readouterr().out)["notes"]] == ["totals round twice"]
