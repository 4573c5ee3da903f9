"""`stratum hooks` in a hooks folder that is not the repository's alone: a machine-wide
``core.hooksPath`` shared by every repository, or a folder holding our hooks for another one (a probe:
installing in B "refreshed" A's hooks, A's commits then re-indexed B, uninstall in A removed B's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import hooks
from stratum.errors import InvalidArgument
from tests.gitrepo import GIT_ENV, Repo, git

pytestmark = pytest.mark.slow        # CLI processes


def stratum(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def _repo(path: Path) -> Repo:
    r = Repo(path)
    r.commit("init", {"a.py": "def a():\n    return 1\n"})
    return r


def test_a_machine_wide_hooks_folder_is_refused_and_another_repositorys_hooks_left_alone(tmp_path):
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    company = "#!/bin/sh\necho company\n"
    (shared / "post-commit").write_text(company)
    (shared / "post-commit").chmod(0o755)
    glob = tmp_path / "gitconfig"
    glob.write_text(f"[core]\n\thooksPath = {shared}\n")
    env = {**os.environ, **GIT_ENV, "GIT_CONFIG_GLOBAL": str(glob)}
    a, b = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    # A's hooks as an earlier Stratum wrote them into the shared folder
    for name in ("post-checkout", "post-merge"):
        (shared / name).write_text(hooks.script(name, a.path, a.path / ".stratum"))
        (shared / name).chmod(0o755)
    before = {p.name: p.read_text() for p in shared.iterdir()}

    p = stratum("hooks", "install", str(b.path), "--no-embed", env=env)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "outside this repository" in p.stderr and "core.hooksPath" in p.stderr, p.stderr
    p = stratum("hooks", "status", str(b.path), "--json", env=env)
    data = json.loads(p.stdout)
    assert data["installed"] == [] and data["foreign"] == {n: str(a.path) for n in ("post-checkout", "post-merge")}
    p = stratum("hooks", "uninstall", str(b.path), env=env)
    assert p.returncode == 0 and "written for another repository" in p.stdout, p.stdout + p.stderr
    assert {p.name: p.read_text() for p in shared.iterdir()} == before       # nothing of A's touched


def test_our_hooks_for_another_repository_in_this_ones_folder_are_refused(tmp_path):
    a, b = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    hooks.install(a.path, a.path / ".stratum")
    # B's hooks folder is A's (another repository's folder pointed at it, or its hooks copied)
    git(b.path, "config", "core.hooksPath", str(b.path / "hk"))
    (b.path / "hk").mkdir()
    for name in hooks.HOOKS:
        (b.path / "hk" / name).write_text((a.path / ".git" / "hooks" / name).read_text())
    with pytest.raises(InvalidArgument, match="for another repository"):
        hooks.install(b.path, b.path / ".stratum")
    assert all(str(a.path) in (b.path / "hk" / n).read_text() for n in hooks.HOOKS)
    assert hooks.survey(b.path).installed == []
    # a hook naming a folder that is gone is this repository's, moved since: refreshed as before
    moved = tmp_path / "moved"
    os.rename(a.path, moved)
    assert hooks.install(moved, moved / ".stratum")[0].startswith(f"{hooks.HOOKS[0]}: refreshed")
