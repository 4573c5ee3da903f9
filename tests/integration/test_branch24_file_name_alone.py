"""In a branch session, as off one, a file name alone is no name: `get nope/x.py` served the branch's
deep/a/b/x.py by its last segment (a helper saw it); a printed path with a folder still finds it."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))


def test_a_branch_session_reads_a_printed_path_as_the_default_branch_does(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"deep/a/b/x.py": "def f():\n    return 1\n", "app.py": "def main():\n    return 0\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("change x", {"deep/a/b/x.py": "def f():\n    return 2\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([str(store)], overlay_builder=builder(CFG))
    try:
        for branch in ("", "feature"):
            s = t.open_session(branch=branch).data["session"]
            with pytest.raises(NotFound):
                t.get(s, "nope/x.py")
            assert t.get(s, "/srv/app/a/b/x.py").items[0].path == "deep/a/b/x.py"
    finally:
        t.close()
