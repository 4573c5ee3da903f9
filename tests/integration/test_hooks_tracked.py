"""`stratum hooks install` into a hooks folder the repository tracks (``core.hooksPath=.githooks``,
committed for a team): our scripts and the renamed team hook showed in `git status`, blocked
checkouts and carried this machine's paths into the next `git add -A` (a probe). Refused instead."""

from __future__ import annotations

import pytest

from pipeline import hooks
from stratum.errors import InvalidArgument
from tests.gitrepo import Repo, git


def test_a_tracked_hooks_folder_is_refused_and_left_clean(tmp_path):
    r = Repo(tmp_path / "team")
    r.commit("init", {"a.py": "def a():\n    return 1\n", ".githooks/post-commit": "#!/bin/sh\necho team\n"})
    git(r.path, "config", "core.hooksPath", ".githooks")
    with pytest.raises(InvalidArgument, match="tracks.*core.hooksPath .git/hooks"):
        hooks.install(r.path, tmp_path / "store")
    assert git(r.path, "status", "--porcelain") == ""
    # what the message says to do works, and leaves `git status` clean
    git(r.path, "config", "core.hooksPath", ".git/hooks")
    assert hooks.install(r.path, tmp_path / "store")[0] == "post-commit: installed"
    assert git(r.path, "status", "--porcelain") == ""


def test_an_untracked_hooks_folder_in_the_work_tree_is_still_used(tmp_path):
    r = Repo(tmp_path / "mine")
    r.commit("init", {"a.py": "x = 1\n", ".gitignore": "myhooks/\n"})
    git(r.path, "config", "core.hooksPath", "myhooks")
    hooks.install(r.path, tmp_path / "store")
    assert hooks.survey(r.path).installed == list(hooks.HOOKS)
