"""A branch session links a changed file's calls through a package ``__init__`` the branch left
alone, as a full index of the branch does: ``pkg/__init__.py`` re-exports ``run`` as ``start``, the
branch makes ``other.py`` call ``pkg.start()`` and ``start()``. The overlay resolved only the
changed files' import bindings, so ``pipeline.calls`` could not read the alias off the unchanged
``__init__`` and the branch's new calls were not linked (main's own such call was)."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
INIT = "from .impl import run as start\nfrom .impl import Base as Root\n"
IMPL = "def run():\n    return 1\n\n\nclass Base:\n    pass\n"
OTHER = ("import pkg\nfrom pkg import start\n\n\ndef other():\n    return pkg.start()\n\n\n"
         "def other2():\n    return start()\n\n\nclass Child(pkg.Root):\n    pass\n")


def _edges(t: Tools, sid: str, target: str, kind: str, direction: str) -> set[str]:
    return {f"{i.path}::{i.name}" for i in t.walk(sid, target, edges=[kind], direction=direction).items}


def test_a_branchs_calls_through_an_unchanged_init_alias_are_linked_as_a_full_index_links_them(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"pkg/__init__.py": INIT, "pkg/impl.py": IMPL,
                      "app.py": "import pkg\n\n\ndef main():\n    return pkg.start()\n",
                      "other.py": "def other():\n    return 2\n"})
    index_repository(r.path, tmp_path / "store", CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("call through the alias", {"other.py": OTHER})
    index_repository(r.path, tmp_path / "full", CFG)        # the branch indexed whole: what users expect
    git(r.path, "checkout", "-q", "main")

    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder(CFG))
    full = Tools.open([str(tmp_path / "full")])
    sid, fid = t.open_session(branch="feature").data["session"], full.open_session().data["session"]
    asked = [("other.py::other", "calls", "out"), ("other.py::other2", "calls", "out"),
             ("other.py::Child", "inherits", "out"), ("pkg/impl.py::run", "calls", "in"),
             ("pkg/impl.py::Base", "inherits", "in")]
    for target, kind, direction in asked:
        assert _edges(t, sid, target, kind, direction) == _edges(full, fid, target, kind, direction), target
    assert _edges(t, sid, "pkg/impl.py::run", "calls", "in") == \
        {"app.py::main", "other.py::other", "other.py::other2"}
    assert _edges(t, sid, "other.py::Child", "inherits", "out") == {"pkg/impl.py::Base"}
    t.close()
    full.close()
