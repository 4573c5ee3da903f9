"""A CLI query on a store whose disk is full: its first query creates the page-token secret, and
a failed write there (ENOSPC, EDQUOT; EFBIG here, made real by a file-size limit) failed the query
("stratum: error: No space left on device") while `serve` answered."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from stratum.cli import main
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]

_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))      # no file can grow past 16 bytes
from stratum.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_query_answers_when_no_secret_can_be_written(tmp_path):
    r = Repo(tmp_path / "r")
    r.commit("i", {"calc.py": "def total(x):\n    return x + 1\n"})
    store = tmp_path / "s"
    assert main(["index", str(r.path), "--store", str(store), "--no-ray", "--no-embed"]) == 0
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STRATUM_CACHE": str(tmp_path / "cache")}
    p = subprocess.run([sys.executable, "-c", _LIMITED, "search", "total", "--store", str(store)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "[calc.py::total]" in p.stdout
    assert not (store / "cli.secret").exists()
