"""A project's own folder named ``external`` is indexed (its imports link, `get` finds it, co-change
partners agree), a --keep-dir folder stays kept across a plain re-index, and a tree answer's
freshness warning names only what it returned. Real repositories, the real index job and Tools.

The probe (sympy): `get sympy/external/gmpy.py` said NotFound "vendored", 267 `from
sympy.external` imports became neither import edges nor external imports, `cochange` listed 254
partners of sympy/core/numbers.py and `walk --edge cochange` 250 (the 4 missing: external files)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from stratum import analysis as A
from stratum.config import EmbedConfig, IndexConfig, ParseConfig
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import Repo

FAST = IndexConfig(ray=False, embed=EmbedConfig(enabled=False), mine_changes=False, mine_fixes=False)
CORE = "pkg/core/numbers.py"
GMPY = "pkg/external/gmpy.py"


def _numbers(n: int) -> str:
    return f"from pkg.external.gmpy import gcd\n\n\ndef reduce(a, b):\n    return gcd(a, b) + {n}\n"


def _gmpy(n: int) -> str:
    return f"def gcd(a, b):\n    return {n}\n"


@pytest.fixture()
def sympyish(tmp_path):
    """A package with its own ``external`` subpackage (as sympy/external), changed with its user twice."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"pkg/__init__.py": "", "pkg/core/__init__.py": "", "pkg/external/__init__.py": "",
                      CORE: _numbers(0), GMPY: _gmpy(0), "README.md": "# pkg\n"})
    r.commit("gcd: faster", {CORE: _numbers(1), GMPY: _gmpy(1)})
    r.commit("gcd: exact", {CORE: _numbers(2), GMPY: _gmpy(2)})
    store = tmp_path / "store"
    index_repository(r.path, store, FAST)
    return r, store


def _walk_paths(t: Tools, s: str, target: str, edge: str) -> set[str]:
    return {it.path for it in t.walk(s, target, [edge], page_size=100).items}


def test_a_packages_own_external_folder_is_indexed_and_linked(sympyish):
    _, store = sympyish
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="a").data["session"]
        got = t.get(s, f"{GMPY}::gcd")                 # NotFound "... skipped it (vendored ...)" before
        assert got.items[0].path == GMPY
        assert GMPY in _walk_paths(t, s, CORE, "imports")
        # the co-change history and the walk agree on its partners (the walk lacked the skipped file)
        walked = _walk_paths(t, s, CORE, "cochange")
        assert walked == set(A.coupled_with(store, CORE).collect()["partner"].to_list()) == {GMPY}
    finally:
        t.close()
    assert "vendored" not in (Store(store).manifest().report or {}).get("skipped", {})


def test_a_kept_folder_stays_kept_across_a_plain_reindex(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def main():\n    return 1\n",
                      "external/ours/util.py": "def helper():\n    return 2\n"})
    store = tmp_path / "store"
    rep = index_repository(r.path, store, FAST)
    assert rep.skipped.get("vendored") == 1 and rep.skipped_samples["vendored"] == ["external/ours/util.py"]
    kept = replace(FAST, parse=ParseConfig(keep_dirs=("external/ours",)), explicit=frozenset({"keep_dirs"}))
    rep = index_repository(r.path, store, kept)
    assert "vendored" not in rep.skipped and Store(store).manifest().settings["keep_dirs"] == ["external/ours"]
    r.commit("app: two", {"app.py": "def main():\n    return 2\n"})
    rep = index_repository(r.path, store, replace(FAST, explicit=frozenset()))     # a hook's plain run
    assert "vendored" not in rep.skipped, rep.skipped
    assert any("keep_dirs" in m for m in rep.messages), rep.messages
    paths = set(Store(store).snapshot().read("nodes", columns=["path"]).column("path").to_pylist())
    assert "external/ours/util.py" in paths


def test_a_tree_page_names_only_the_files_it_returned(sympyish):
    r, store = sympyish
    r.commit("deep change", {CORE: _numbers(3)})
    t = Tools.open([str(store)], freshness=freshness)
    try:
        s = t.open_session(author="a").data["session"]
        top = t.tree(s, "", depth=1)
        assert {it.path for it in top.items} == {"", "pkg", "README.md"}
        w = top.envelope.warnings[0]
        assert top.envelope.stale and "1 commit ahead" in w and CORE not in w, w
        assert "files changed since below the returned folders: pkg/ (1)" in w, w
        deep = t.get(s, CORE)
        assert f"these returned files changed since: {CORE}" in deep.envelope.warnings[0]
    finally:
        t.close()
