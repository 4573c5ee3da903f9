"""Writing the same note twice leaves one note (notes.identical): a client that retries a write
whose answer it lost, or a script run twice, must not double a finding, on a real indexed git
repository, through the tools, across a restart."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

PRICES = '''"""Unit prices."""


def unit_price(sku: str) -> float:
    """The unit price of SKU in euros."""
    return {"apple": 0.5}[sku]
'''
TEXT = "Unknown SKUs raise KeyError in unit_price; defaulting them to 0 hid missing prices"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("once")
    r = Repo(base / "shop")
    r.commit("initial shop", {"shop/__init__.py": "", "shop/prices.py": PRICES})
    index_repository(r.path, base / "store", IndexConfig(num_cpus=1))
    return r.path, base / "store"


def _notes(t, s):
    return [i.id for i in t.walk(s, "shop/prices.py::unit_price", ["notes"]).items]


def test_the_same_note_written_again_is_the_first_one(store):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools

    repo, store = store
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="agent-a").data["session"]
        first = t.remember(s, "failure", TEXT, about=["shop/prices.py::unit_price"])
        assert not first.envelope.warnings
        again = t.remember(s, "failure", TEXT, about=["./shop/prices.py::unit_price"])    # the same target
        nid = first.data["note_id"]
        assert again.data["note_id"] == nid and again.items[0].id == nid
        assert any("identical" in w and nid in w for w in again.envelope.warnings)
        assert _notes(t, s) == [nid]
        # not the same note: another kind, other words, another author
        other = [t.remember(s, "rca", TEXT, about=["shop/prices.py::unit_price"]).data["note_id"],
                 t.remember(s, "failure", TEXT + ".", about=["shop/prices.py::unit_price"]).data["note_id"]]
        s_b = t.open_session(author="agent-b").data["session"]
        other.append(t.remember(s_b, "failure", TEXT, about=["shop/prices.py::unit_price"]).data["note_id"])
        assert len({nid, *other}) == 4 and sorted(_notes(t, s)) == sorted([nid, *other])
    finally:
        t.close()
    t = Tools.open([str(store)])            # a restarted server: the retry still finds it (delta log)
    try:
        s = t.open_session(author="agent-a").data["session"]
        assert t.remember(s, "failure", TEXT, about=["shop/prices.py::unit_price"]).data["note_id"] == nid
    finally:
        t.close()
    index_repository(repo, store, IndexConfig(num_cpus=1))      # the notes merged into the store
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="agent-a").data["session"]
        assert t.remember(s, "failure", TEXT, about=["shop/prices.py::unit_price"]).data["note_id"] == nid
        t.retract(s, nid, reason="wrong")   # a retracted note is no copy: writing it again is a new note
        fresh = t.remember(s, "failure", TEXT, about=["shop/prices.py::unit_price"])
        assert fresh.data["note_id"] != nid and not fresh.envelope.warnings
        # and that one, written again after the retract re-folded every note, is found in its turn
        assert t.remember(s, "failure", TEXT, about=["shop/prices.py::unit_price"]).data["note_id"] == \
            fresh.data["note_id"]
    finally:
        t.close()
