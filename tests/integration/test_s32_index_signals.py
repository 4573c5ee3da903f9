"""Signals at the edges of a one-repository `stratum index` (an index-lifecycle probe):
- SIGTERM once the summary is out (the version live, the report written) is exit 0, not a silent
  143: the interpreter's teardown puts back the default handler of a Python one, and a supervisor
  read 143 as "nothing published";
- a run stopped under --json says so as JSON on stdout (it printed nothing there; a multi-repository
  run and a failed run print JSON)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
FAST = ["--no-ray", "--no-embed"]


def _index(repo: Repo, store: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "stratum.cli", "index", str(repo.path), "--store", str(store),
                             *FAST, *extra], cwd=ROOT, env=ENV, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_sigterm_after_the_summary_is_exit_0_for_the_live_version(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("one", {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(30)})
    store = tmp_path / "store"
    report = tmp_path / "report.json"
    for attempt in range(3):            # a fresh run each time: the first, then two after one-file commits
        if attempt:
            r.commit(f"more {attempt}", {"m0.py": f"def f0():\n    return {100 + attempt}\n"})
        p = _index(r, store, "--report", str(report))
        first = p.stdout.readline()     # the summary: the run is done, its report written
        assert first.startswith("indexed "), first + p.stderr.read()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, (attempt, p.returncode, err)
        assert json.loads(report.read_text())["version"] == attempt + 1


def test_a_run_stopped_under_json_says_so_as_json(tmp_path):
    r = Repo(tmp_path / "repo")
    body = "".join(f"def f{j}(x):\n    return x + {j}\n\n" for j in range(300))
    r.commit("one", {f"pkg/m{i}.py": body for i in range(300)})
    p = _index(r, tmp_path / "store", "--json")
    time.sleep(1.5)                     # under way (the parse of 300 files takes longer)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, (out, err)
    said = json.loads(out)
    assert said["state"] == "interrupted" and said["interrupted"] == "SIGINT"
    assert "stopped by SIGINT" in err
