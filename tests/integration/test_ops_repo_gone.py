"""A store whose repository left its folder (moved, deleted, or the folder left without its `.git`
inside another checkout): `status` and `watch` say so instead of answering for nothing, or for
the checkout around it. Real repositories, the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from stratum.cli import main
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}


def _shard(store: Path, capsys) -> dict:
    assert main(["status", "--store", str(store), "--json"]) == 0
    [shard] = json.loads(capsys.readouterr().out)["data"]["shards"]
    return shard


def test_status_of_a_store_whose_repository_folder_is_gone_or_only_a_folder_of_another(tmp_path, capsys):
    """Gone: it said repo_available=True (head None). A folder of the same name inside another
    checkout: it reported that checkout's HEAD as the store's repository's (git looks upward)."""
    outer = Repo(tmp_path / "outer")
    outer_head = outer.commit("outer", {".gitignore": "inner/\n", "o.py": "x = 1\n"})
    inner = Repo(outer.path / "inner")
    inner_head = inner.commit("inner", {"m.py": "def f():\n    return 1\n"})
    store = tmp_path / "st"
    assert main(["index", str(inner.path), "--store", str(store), "--no-ray", "--no-embed"]) == 0
    capsys.readouterr()
    assert _shard(store, capsys)["head"] == inner_head
    shutil.move(inner.path, tmp_path / "elsewhere")
    gone = _shard(store, capsys)
    assert gone["repo_available"] is False and "head" not in gone
    (outer.path / "inner").mkdir()                      # the folder again, without its .git
    (outer.path / "inner" / "m.py").write_text("def f():\n    return 2\n")
    shard = _shard(store, capsys)
    assert shard["repo_available"] is False and shard.get("head") != outer_head
    shutil.rmtree(outer.path / "inner")
    shutil.move(tmp_path / "elsewhere", outer.path / "inner")        # back where it was
    assert _shard(store, capsys)["head"] == inner_head


def test_watch_stops_saying_the_repository_is_gone(tmp_path):
    """It printed "HEAD ->  (detached): index failed: NotARepository ... (still watching)" and
    watched the empty path for good."""
    r = Repo(tmp_path / "r")
    r.commit("one", {"m.py": "def f():\n    return 1\n"})
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "watch", str(r.path), "--store", str(tmp_path / "st"),
                          "--no-embed", "--no-ray", "--interval", "0.1", "--debounce", "0.3"],
                         cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None
        lines = [p.stdout.readline(), p.stdout.readline()]          # "watching ...", then the first index
        assert " start: v1 published" in lines[1], lines
        shutil.move(r.path, tmp_path / "moved")
        t = time.monotonic()
        out, err = p.communicate(timeout=30)
        took = time.monotonic() - t
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 2
    assert f"stratum: error: repository gone: {r.path} (moved or deleted); watch stopped after 1 index run(s)" in err
    assert "index failed" not in out and "detached" not in out
    assert took < 10
