"""A `--server` query from a linked worktree asked git (rev-parse twice, status --untracked-files=all)
for the worktree's branch and edits on every query. The look is kept in the user's cache with what
could change it, so a query after which nothing moved runs no git; an edit, a new file or a switch
is seen by the next query. The real CLI in this process, a real repository and worktree, a real
`stratum serve`; every git process counted by a `git` on PATH that logs each run."""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest

from stratum.cli import main
from stratum.config import default_store_path
from tests.gitrepo import Repo, git
from tests.servecli import stratum_serve

pytestmark = pytest.mark.slow
PRICING = ('"""Pricing."""\n\n\ndef shipping(weight):\n    """Shipping."""\n    return 5.0 + weight\n')
TARGET = "shop/pricing.py::shipping"


def _log_git(tmp_path: Path, monkeypatch) -> Path:
    real = shutil.which("git")
    assert real
    (tmp_path / "bin").mkdir()
    log, wrapper = tmp_path / "git.log", tmp_path / "bin" / "git"
    log.write_text("")
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    return log


def _get(capsys, addr: str) -> tuple[str, list[str]]:
    capsys.readouterr()
    assert main(["get", TARGET, "--level", "full", "--server", addr, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    return got["items"][0]["text"], got["envelope"]["warnings"]


def _settled() -> None:
    time.sleep(0.12)        # past the file clock's tick (freshness.racy): a look of what moved within it is not kept


def test_repeated_server_queries_from_a_worktree_run_no_git_until_something_moves(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STRATUM_CACHE", str(tmp_path / "cache"))
    r = Repo(tmp_path / "main")
    r.commit("init", {"shop/pricing.py": PRICING})
    assert main(["index", str(r.path), "--no-embed", "--no-ray"]) == 0
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "6.0 + weight"))
    git(wt, "commit", "-qam", "fw: shipping")
    monkeypatch.chdir(wt)
    with stratum_serve(default_store_path(r.path)) as (_, addr):
        log = _log_git(tmp_path, monkeypatch)            # after the server started: this process's runs only
        runs = lambda: len(log.read_text().splitlines())      # noqa: E731
        _settled()
        first = _get(capsys, addr)
        assert "6.0 + weight" in first[0] and runs() == 3, log.read_text()
        assert _get(capsys, addr) == first and runs() == 3, log.read_text()      # nothing moved: no git

        (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "7.0 + weight"))
        _settled()
        text, warnings = _get(capsys, addr)
        assert "6.0 + weight" in text and any("uncommitted edits (1 file: shop/pricing.py)" in w for w in warnings)
        n = runs()
        assert n > 3 and _get(capsys, addr) == (text, warnings) and runs() == n

        (wt / "shop" / "extra").mkdir()
        (wt / "shop" / "extra" / "new.py").write_text("x = 1\n")       # untracked, in a new folder
        _settled()
        assert any("uncommitted edits (2 files: shop/extra/new.py, shop/pricing.py)" in w
                   for w in _get(capsys, addr)[1]), log.read_text()
        (wt / "shop" / "extra" / "more.py").write_text("y = 2\n")      # in a folder the last look saw
        assert any("uncommitted edits (3 files:" in w for w in _get(capsys, addr)[1])

        git(wt, "stash", "-q", "-u")                    # clean again, and on another branch: seen at once
        git(wt, "switch", "-q", "-c", "fw2")
        text, warnings = _get(capsys, addr)
        assert not any("uncommitted" in w for w in warnings), warnings
        assert "6.0 + weight" in text and any("answers reflect 'fw2'" in w for w in warnings), warnings
