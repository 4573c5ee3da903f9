"""A file the index skipped, asked for by an agent, says why instead of "no node" (a probe: an
oversized file, a symlink out of the repository and a typo read alike). A real repository, the real
index job and Tools."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False))


def test_get_of_a_skipped_or_new_file_says_why_it_is_not_in_the_index(tmp_path):
    from pipeline.job import index_repository

    outside = tmp_path / "outside.py"
    outside.write_text("SECRET = 1\n")
    r = Repo(tmp_path / "r")
    r.write({"src/app.py": "def run():\n    return 1\n", "src/huge.py": "X = 1\n" * 400})
    os.symlink(outside, r.path / "src" / "link_out.py")
    r.commit("app")
    index_repository(r.path, tmp_path / "store", replace(CFG, parse=replace(CFG.parse, max_file_bytes=1000)))
    (r.path / "src" / "new.py").write_text("def fresh():\n    return 2\n")     # after the index
    t = Tools.open([str(tmp_path / "store")])
    s = t.open_session().data["session"]
    with pytest.raises(NotFound, match=r"'src/huge.py' is not in the index: the index skipped it \(oversized"):
        t.get(s, "src/huge.py")
    with pytest.raises(NotFound, match=r"'src/link_out.py' is not in the index: the index skipped it \(outside"):
        t.get(s, "src/link_out.py")
    with pytest.raises(NotFound, match=r"'src/new.py' is in the repository but not in the index: new since"):
        t.get(s, "src/new.py")
    with pytest.raises(NotFound, match=r"no node 'src/nope.py'"):          # a typo is still a typo
        t.get(s, "src/nope.py")
    with pytest.raises(NotFound, match=r"no node 'src/app.py::nosuch'"):   # an indexed file's missing name
        t.get(s, "src/app.py::nosuch")
    # never a look outside the repository: a client could learn which files the server's disk holds
    for outside in ("../outside.py", "src/../../outside.py"):
        with pytest.raises(NotFound, match=r"^no node"):
            t.get(s, outside)
    # not through a folder linked out of it either (created after the index: no skip record of it)
    os.symlink(tmp_path, r.path / "ext")
    with pytest.raises(NotFound) as ei:
        t.get(s, "ext/outside.py")
    assert "in the repository" not in str(ei.value)
    t.close()
