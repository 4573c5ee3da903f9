"""Which branch ``gitio.default_branch`` names (a note written on another records that one,
``branchnotes.served_branch``), in layouts a probe found: a repository with both main and master and
nothing deciding was said to default to main, and a remote named ``team/up`` or a plain (non-symbolic)
remote HEAD hid the default a remote's HEAD names. "" is the answer when git cannot say."""

from __future__ import annotations

import os
import subprocess

import pytest

from pipeline import gitio


@pytest.fixture(autouse=True)
def _own_config_only(monkeypatch):
    """The user's own git config (an init.defaultBranch of theirs) must not decide these."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


def _repo(path, branch="main"):
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", branch)
    (path / "a.py").write_text("def f():\n    return 1\n")
    _git(path, "add", "a.py")
    _git(path, "commit", "-q", "-m", "init")
    return path


def test_main_and_master_both_branches_name_no_default_unless_something_decides(tmp_path):
    repo = _repo(tmp_path / "r", "master")
    _git(repo, "branch", "main")            # a half-done rename, or a branch that happens to be called main
    assert gitio.default_branch(repo) == ""
    _git(repo, "config", "init.defaultBranch", "master")
    assert gitio.default_branch(repo) == "master"
    _git(repo, "config", "init.defaultBranch", "main")
    assert gitio.default_branch(repo) == "main"
    _git(repo, "config", "init.defaultBranch", "nonesuch")      # names no branch here: decides nothing
    assert gitio.default_branch(repo) == ""
    _git(repo, "branch", "-D", "main")
    assert gitio.default_branch(repo) == "master"


def test_a_remote_named_with_a_slash_names_its_head(tmp_path):
    src = _repo(tmp_path / "src")
    _git(src, "checkout", "-q", "-b", "develop")
    _git(tmp_path, "clone", "-q", "--bare", str(src), "t.git")
    _git(tmp_path / "t.git", "symbolic-ref", "HEAD", "refs/heads/develop")
    _git(tmp_path, "clone", "-q", "-o", "team/up", str(tmp_path / "t.git"), "clone")
    clone = tmp_path / "clone"
    _git(clone, "branch", "master")         # local names would not decide it either
    _git(clone, "branch", "main")
    assert gitio.default_branch(clone) == "develop"


def test_a_plain_remote_head_names_none_and_a_symbolic_one_decides(tmp_path):
    repo = _repo(tmp_path / "r")
    _git(repo, "update-ref", "refs/remotes/origin/HEAD", "HEAD")            # not symbolic: names no branch
    _git(repo, "update-ref", "refs/remotes/upstream/develop", "HEAD")
    _git(repo, "symbolic-ref", "refs/remotes/upstream/HEAD", "refs/remotes/upstream/develop")
    assert gitio.default_branch(repo) == "develop"
    _git(repo, "update-ref", "-d", "--no-deref", "refs/remotes/origin/HEAD")
    _git(repo, "update-ref", "refs/remotes/origin/trunk", "HEAD")
    _git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    assert gitio.default_branch(repo) == "trunk"                            # origin's first


def test_a_dangling_origin_head_names_none(tmp_path):
    """origin renamed master to main and the clone pruned origin/master: its origin/HEAD dangles."""
    src = _repo(tmp_path / "src", "master")
    _git(tmp_path, "clone", "-q", "--bare", str(src), "o.git")
    _git(tmp_path, "clone", "-q", str(tmp_path / "o.git"), "clone")
    clone, origin = tmp_path / "clone", tmp_path / "o.git"
    _git(origin, "branch", "-m", "master", "main")
    _git(origin, "symbolic-ref", "HEAD", "refs/heads/main")
    _git(clone, "fetch", "-q", "--prune", "origin")
    _git(clone, "checkout", "-q", "-b", "main", "origin/main")      # its old master is still here
    assert gitio.default_branch(clone) == ""
    _git(clone, "branch", "-D", "master")
    assert gitio.default_branch(clone) == "main"
    _git(clone, "remote", "set-head", "origin", "-a")               # origin/HEAD -> origin/main again
    _git(clone, "branch", "master")
    assert gitio.default_branch(clone) == "main"


def test_the_checked_out_branch_is_named_as_it_is_when_a_tag_shares_its_name(tmp_path):
    """``symbolic-ref --short`` says ``heads/fz`` when a tag fz exists too: a run on fz recorded
    branch ``heads/fz``, its notes' marks were dropped as another branch's, and a checkout on main
    with a tag main recorded notes as written on branch ``heads/main`` (a review)."""
    r = _repo(tmp_path / "r")
    _git(r, "checkout", "-q", "-b", "fz")
    _git(r, "tag", "fz")
    _git(r, "tag", "main")
    assert gitio.checkout_branch(r) == "fz"
    _git(r, "checkout", "-q", "main")
    assert gitio.checkout_branch(r) == "main"
    _git(r, "checkout", "-q", "--detach")
    assert gitio.checkout_branch(r) == ""
