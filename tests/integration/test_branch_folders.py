"""Folders and the repo node on a branch: the branch's whole contents (the base's files it kept,
plus its own), counted right, and a folder it emptied not served (a probe: they listed only the
files the branch changed, and a deleted folder stayed)."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import build, builder
from stratum.config import IndexConfig
from stratum.errors import NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo, git

MAIN = {"pkg/__init__.py": "",
        "pkg/a.py": "def alpha():\n    return 1\n",
        "pkg/b.py": "from pkg.a import alpha\n\n\ndef beta():\n    return alpha()\n",
        "pkg/sub/c.py": "def gamma():\n    return 3\n",
        "tests/test_a.py": "from pkg.a import alpha\n\n\ndef test_alpha():\n    assert alpha() == 1\n"}


@pytest.fixture(scope="module")
def branched(tmp_path_factory):
    """(repo, store): main indexed; `add` adds pkg/new.py, `drop` deletes the whole tests/ folder."""
    root = tmp_path_factory.mktemp("folders")
    r = Repo(root / "repo")
    r.commit("init", MAIN)
    index_repository(r.path, root / "store", IndexConfig(num_cpus=1, ray=False))
    git(r.path, "checkout", "-q", "-b", "add")
    r.commit("add", {"pkg/new.py": "def delta():\n    return 4\n"})
    git(r.path, "checkout", "-q", "main")
    git(r.path, "checkout", "-q", "-b", "drop")
    r.commit("drop", delete=["tests/test_a.py"])
    git(r.path, "checkout", "-q", "main")
    return r, root / "store"


def _listing(t: Tools, sid: str, target: str) -> tuple[str, list[str]]:
    """(summary line, the children its api level lists) of a folder or the repo node."""
    summary = t.get(sid, target, level="summary").items[0].text
    return summary, [ln.strip() for ln in t.get(sid, target).items[0].text.splitlines()[1:]]


def _tree(t: Tools, sid: str, path: str = "") -> dict[str, str]:
    """path -> summary of every folder and file `tree` shows under PATH."""
    return {i.path: i.text.strip() for i in t.tree(sid, path, depth=4, page_size=100).items
            if i.kind in ("repo", "dir", "file")}


def test_a_folder_on_a_branch_lists_the_base_files_it_kept_and_its_own(branched):
    _repo, store = branched
    t = Tools.open([str(store)], overlay_builder=builder())
    sid = t.open_session(branch="add").data["session"]

    summary, kids = _listing(t, sid, "pkg")
    assert summary == "dir pkg/ (4 files, 1 dir; 5 files below)"
    assert kids == ["sub/", "__init__.py", "a.py", "b.py", "new.py"]
    summary, kids = _listing(t, sid, "")
    assert summary.startswith("repo repo (6 files in 3 dirs") and kids == ["pkg/", "tests/"]
    tree = _tree(t, sid)
    assert set(tree) == {"", "pkg", "pkg/sub", "tests", *MAIN, "pkg/new.py"}
    assert tree["pkg"] == "dir pkg/ (4 files, 1 dir; 5 files below)"
    assert set(_tree(t, sid, "pkg")) == {"pkg", "pkg/sub", "pkg/sub/c.py", "pkg/__init__.py", "pkg/a.py",
                                         "pkg/b.py", "pkg/new.py"}
    # walk agrees: a folder's children, and a kept file's folder as the branch has it
    assert {i.path for i in t.walk(sid, "pkg", edges=["contains"]).items} == \
        {"pkg/sub", "pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/new.py"}
    up = t.walk(sid, "pkg/a.py", edges=["contains"], direction="in").items
    assert [(i.path, i.text) for i in up if i.kind == "dir"] == [("pkg", "dir pkg/ (4 files, 1 dir; 5 files below)")]

    base = t.open_session().data["session"]          # the shared base is as indexed
    assert _listing(t, base, "pkg")[0] == "dir pkg/ (3 files, 1 dir; 4 files below)"
    assert "pkg/new.py" not in _tree(t, base)


def test_a_folder_the_branch_deleted_is_not_served(branched):
    _repo, store = branched
    assert build(store, "drop")["deleted_dirs"] == ["tests"]
    t = Tools.open([str(store)], overlay_builder=builder())
    sid = t.open_session(branch="drop").data["session"]

    with pytest.raises(NotFound, match="not on 'drop'.*deleted every file in this folder"):
        t.get(sid, "tests")
    with pytest.raises(NotFound, match="deleted every file in this folder"):
        t.tree(sid, "tests")
    with pytest.raises(NotFound):
        t.get(sid, "tests/test_a.py")
    summary, kids = _listing(t, sid, "")
    assert summary.startswith("repo repo (4 files in 2 dirs") and kids == ["pkg/"]
    assert set(_tree(t, sid)) == {"", "pkg", "pkg/sub", "pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/sub/c.py"}
    assert "tests" not in {i.path for i in t.walk(sid, "", edges=["contains"]).items}
    assert _listing(t, sid, "pkg")[0] == "dir pkg/ (3 files, 1 dir; 4 files below)"     # untouched: the base's

    base = t.open_session().data["session"]
    assert _listing(t, base, "tests")[1] == ["test_a.py"]
