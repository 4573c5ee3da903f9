"""`stratum index REPO --report F` for one repository: the file says "running" from the start, then
the run report, "failed" with the error, or "interrupted" on SIGTERM (exit 143). A run that failed
or was killed had left an earlier run's report in place, which read as today's success (a review)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from stratum.cli import main
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]


def _repo(path: Path) -> Repo:
    r = Repo(path)
    r.commit("init", {"a.py": "def alpha():\n    return 1\n"})
    return r


def test_a_failed_run_replaces_yesterdays_report_with_its_error(tmp_path, capsys):
    r = _repo(tmp_path / "repo")
    report = tmp_path / "r.json"
    assert main(["index", str(r.path), "--store", str(tmp_path / "s"), "--no-embed", "--report", str(report)]) == 0
    assert "version" in json.loads(report.read_text())            # the run report
    (tmp_path / "file").write_text("not a store")
    assert main(["index", str(r.path), "--store", str(tmp_path / "file"), "--no-embed", "--report", str(report)]) != 0
    got = json.loads(report.read_text())
    assert got["state"] == "failed" and got["error"]["message"], got


def test_sigterm_leaves_an_interrupted_report_and_exit_143(tmp_path):
    r = _repo(tmp_path / "repo")
    subprocess.run(["git", "-C", str(r.path), "pack-refs", "--all"], check=True)
    fifo = r.path / ".git" / "packed-refs"
    fifo.unlink()
    os.mkfifo(fifo)                         # its refs never come: a stuck mount
    report = tmp_path / "r.json"
    report.write_text(json.dumps({"version": 7}))                  # yesterday's report
    env = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "index", str(r.path), "--store", str(tmp_path / "s"),
                          "--no-embed", "--no-ray", "--report", str(report)],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and json.loads(report.read_text() or "{}").get("state") != "running":
            time.sleep(0.1)
        time.sleep(1.0)                     # past the handlers' installation, into the stuck read
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    assert p.returncode == 143, err
    got = json.loads(report.read_text())
    assert got["state"] == "interrupted" and got["interrupted"] == "SIGTERM", got
    assert "stopped by SIGTERM" in err
