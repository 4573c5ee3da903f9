"""A branch session reads a path by its tail as the branch has its files, never the default branch's
file the branch deleted or renamed (``whichstore._refuse_tail_off_branch``).

A review (session 26, r2 defect 2): on branch fb, which ran ``git rm shop/pricing.py``, the exact
``shop/pricing.py::discount`` was refused "not on 'fb'", while ``x/shop/pricing.py::discount`` and
``x/shop/pricing.py`` served main's code under a warning that the answers reflect fb. A tail two
files share on the branch only (fb added lib/shop/pricing.py) served main's one file likewise.
Real repositories, the real index job, overlay builder, Tools and CLI."""

from __future__ import annotations

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.errors import InvalidArgument, NotFound
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
PRICING = 'def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2)\n'
GONE = "'shop/pricing.py' by its tail: 'shop/pricing.py{}' is not on '{}' (the branch changed or deleted its file)"


def _repo(tmp_path) -> tuple[Repo, str]:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/cart.py": "def total():\n    return 1\n"})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    return r, store


def _branch(r: Repo, name: str, *change: list[str], files: dict[str, str | bytes] | None = None) -> None:
    git(r.path, "checkout", "-q", "-b", name)
    for args in change:
        git(r.path, *args)
    r.commit(name, files or {})
    git(r.path, "checkout", "-q", "main")


def _tools(store: str) -> Tools:
    return Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))


def test_a_tail_of_a_file_the_branch_deleted_is_refused_as_its_exact_path_is(tmp_path, capsys, monkeypatch):
    r, store = _repo(tmp_path)
    _branch(r, "fb", ["rm", "-q", "shop/pricing.py"])
    t = _tools(store)
    try:
        s = t.open_session(branch="fb").data["session"]
        with pytest.raises(NotFound, match="'shop/pricing.py::discount' is not on 'fb'"):
            t.get(s, "shop/pricing.py::discount")                   # the exact path: refused, as before
        for asked, sym in (("x/shop/pricing.py::discount", "::discount"), ("x/shop/pricing.py", ""),
                           ("x/shop/pricing.py::nope", "")):
            with pytest.raises(NotFound) as e:
                t.get(s, asked)
            assert str(e.value) == f"{asked!r} names " + GONE.format(sym, "fb"), str(e.value)
        with pytest.raises(NotFound, match="not on 'fb'"):
            t.walk(s, "x/shop/pricing.py::discount", edges=["contains"], direction="in")
        with pytest.raises(NotFound, match="not on 'fb'"):
            t.get(s, "x/shop/pricing.py:3")                        # path:LINE reads the same file
        assert t.get(s, "x/shop/cart.py::total").items[0].path == "shop/cart.py"   # a file fb kept: served
        s0 = t.open_session().data["session"]                      # the default branch has it: served
        assert t.get(s0, "x/shop/pricing.py::discount").items[0].qualname == "discount"
    finally:
        t.close()
    monkeypatch.chdir(r.path)
    rc, out, err = run(capsys, "get", "x/shop/pricing.py::discount", "--branch", "fb")
    assert rc != 0 and "not on 'fb'" in err and "return round" not in out, (out, err)


def test_a_tail_of_a_file_the_branch_renamed_reads_the_new_path_only(tmp_path):
    r, store = _repo(tmp_path)
    _branch(r, "fr", ["mv", "shop/pricing.py", "shop/prices.py"])
    t = _tools(store)
    try:
        s = t.open_session(branch="fr").data["session"]
        with pytest.raises(NotFound) as e:
            t.get(s, "x/shop/pricing.py::discount")
        assert str(e.value) == "'x/shop/pricing.py::discount' names " + GONE.format("::discount", "fr")
        (it,) = t.get(s, "x/shop/prices.py::discount").items
        assert (it.path, it.qualname) == ("shop/prices.py", "discount")
    finally:
        t.close()


def test_a_tail_two_files_share_on_the_branch_only_is_refused_naming_both(tmp_path):
    r, store = _repo(tmp_path)
    _branch(r, "ft", files={"lib/shop/pricing.py": PRICING.replace("Discount.", "Another.")})
    t = _tools(store)
    try:
        s = t.open_session(branch="ft").data["session"]
        for asked in ("x/shop/pricing.py", "x/shop/pricing.py::discount"):
            with pytest.raises(InvalidArgument) as e:
                t.get(s, asked)
            assert str(e.value) == (f"{asked!r} names 2 files by its tail on 'ft': lib/shop/pricing.py, "
                                    "shop/pricing.py; give more of the path (the repository path names one)")
        assert t.get(s, "y/lib/shop/pricing.py::discount").items[0].path == "lib/shop/pricing.py"
        s0 = t.open_session().data["session"]                      # main has one: served as before
        assert t.get(s0, "x/shop/pricing.py").items[0].path == "shop/pricing.py"
    finally:
        t.close()
