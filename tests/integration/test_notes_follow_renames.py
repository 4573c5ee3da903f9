"""A note follows its code through a rename (probe P3: `git mv` orphaned every agent note on the file
and its symbols, while the mined history followed the file)."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(embed=EmbedConfig(enabled=False), ray=False)


def test_notes_follow_a_moved_file_and_its_symbols(tmp_path):
    repo = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    index_repository(repo.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="writer").data["session"]
        on_file = t.remember(s, "failure", "Tried caching totals here; stale after discounts.",
                             about=["shop/pricing.py"]).data["note_id"]
        on_symbol = t.remember(s, "rca", "discount() rounds before summing.",
                               about=["shop/pricing.py::discount"]).data["note_id"]
    finally:
        t.close()
    repo.mv("shop/pricing.py", "shop/money/pricing.py")
    repo.commit("move pricing into shop/money")
    rep = index_repository(repo.path, store, CFG)
    assert rep.notes["orphaned"] == 0, rep.notes
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="reader").data["session"]
        f = t.get(s, "shop/money/pricing.py", "api").items[0]
        sym = t.get(s, "shop/money/pricing.py::discount", "api").items[0]
        assert on_file in [n["id"] for n in f.notes] and on_symbol in [n["id"] for n in sym.notes]
        assert all(n["stale"] is False for n in sym.notes if n["id"] == on_symbol)    # the code did not change
    finally:
        t.close()
