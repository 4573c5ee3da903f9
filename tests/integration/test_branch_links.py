"""A branch's committed symlink is not code: the index skips links (a link's blob is the path it
points to, maybe out of the repository), and a branch session's overlay skips them too (a trust
probe: `get newlink.py --branch feat` served a link to /etc/passwd as a one-line Python file)."""

from __future__ import annotations

import os

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.errors import NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)


def test_a_branchs_committed_symlink_is_not_served_as_code(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"pkg/__init__.py": "", "pkg/a.py": "def alpha():\n    return 1\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feat")
    os.symlink("/etc/passwd", r.path / "newlink.py")
    os.symlink("a.py", r.path / "pkg" / "alias.py")
    r.commit("links and code", {"pkg/b.py": "def beta():\n    return 2\n"})
    assert "120000" in git(r.path, "ls-tree", "HEAD", "newlink.py")
    git(r.path, "checkout", "-q", "main")

    t = Tools.open([str(store)], overlay_builder=builder(CFG))
    sid = t.open_session(branch="feat").data["session"]
    assert t.get(sid, "pkg/b.py::beta").items[0].name == "beta"        # the branch's code is there
    for link in ("newlink.py", "pkg/alias.py"):
        with pytest.raises(NotFound):
            t.get(sid, link, level="full")
    assert not [i for i in t.search(sid, "root x 0 0 passwd bin bash", page_size=40).items
                if i.path in ("newlink.py", "pkg/alias.py")]
    t.close()
