"""A note about code whose file a checkout renamed or deleted after the indexed commit (an agent
fleet probe: after `git mv pkg/calc.py pkg/calculator.py` and a commit, `get pkg/calc.py::total`
served the indexed version while `remember --about pkg/calc.py::total` was refused as "not ... of
the indexed code", and the new name as "not in the index"). The old, indexed name is accepted and
tied to the indexed version (a re-index follows the committed rename: the note moves to the new
name); the new name is accepted through the work tree's view; a name neither has is refused saying
what the checkout did to the file."""

from __future__ import annotations

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig, default_store_path
from stratum.errors import NoteRejected
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
CALC = "def total(x):\n    return x * 2\n\n\ndef half(x):\n    return x / 2\n"
CART = "def cart_total(items):\n    return sum(items)\n"


def _renamed(tmp_path, *, commit: bool = True) -> tuple[Repo, str]:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"pkg/__init__.py": "", "pkg/calc.py": CALC, "pkg/cart.py": CART})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    r.mv("pkg/calc.py", "pkg/calculator.py")
    if commit:
        r.commit("Rename calc")
    return r, store


def _tools(store: str) -> Tools:
    return Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))


def _notes_on(t: Tools, target: str) -> list[dict]:
    s = t.open_session().data["session"]
    return t.get(s, target).items[0].notes


def test_the_old_indexed_name_is_accepted_and_a_reindex_moves_the_note_to_the_new_name(tmp_path):
    r, store = _renamed(tmp_path)
    t = _tools(store)
    s = t.open_session().data["session"]
    assert t.get(s, "pkg/calc.py::total").items[0].qualname == "total"      # served: the index holds it
    got = t.remember(s, "rca", "total doubles twice", ["pkg/calc.py::total"])
    nid = got.data["note_id"]
    said = " ".join(got.envelope.warnings)
    assert "pkg/calc.py" in said and "renamed to 'pkg/calculator.py'" in said and "indexed version" in said, said
    assert [n["id"] for n in _notes_on(t, "pkg/calc.py::total")] == [nid]
    t.close()
    index_repository(r.path, store, CFG)
    t = _tools(store)
    moved = _notes_on(t, "pkg/calculator.py::total")
    assert [n["id"] for n in moved] == [nid] and "stale" not in moved[0]["line"], moved
    t.close()


def test_the_new_name_is_accepted_through_the_work_tree_and_fresh_after_the_reindex(tmp_path):
    r, store = _renamed(tmp_path)
    t = _tools(store)
    s = t.open_session().data["session"]
    got = t.remember(s, "rca", "total doubles twice", ["pkg/calculator.py::total"])
    nid = got.data["note_id"]
    assert any("work tree's version of pkg/calculator.py" in w for w in got.envelope.warnings), got.envelope.warnings
    t.close()
    index_repository(r.path, store, CFG)
    t = _tools(store)
    on = _notes_on(t, "pkg/calculator.py::total")
    assert [n["id"] for n in on] == [nid] and "stale" not in on[0]["line"], on
    t.close()


def test_an_uncommitted_rename_is_followed_once_committed(tmp_path):
    r, store = _renamed(tmp_path, commit=False)
    t = _tools(store)
    s = t.open_session().data["session"]
    nid = t.remember(s, "insight", "half halves", ["pkg/calc.py::half"]).data["note_id"]
    t.close()
    r.commit("Rename calc")
    index_repository(r.path, store, CFG)
    t = _tools(store)
    assert [n["id"] for n in _notes_on(t, "pkg/calculator.py::half")] == [nid]
    t.close()


def test_a_name_neither_version_has_says_the_file_was_renamed_or_deleted(tmp_path):
    r, store = _renamed(tmp_path)
    t = _tools(store)
    s = t.open_session().data["session"]
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "rca", "x", ["pkg/calc.py::nosuch"])
    assert "'pkg/calc.py::nosuch'" in e.value.message and "renamed to 'pkg/calculator.py'" in e.value.message, \
        e.value.message
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "rca", "x", ["pkg/calculator.py::nosuch"])
    assert "new in the checkout" in e.value.message and "no such" in e.value.message, e.value.message
    r.commit("Drop cart", delete=["pkg/cart.py"])
    with pytest.raises(NoteRejected) as e:
        t.remember(s, "rca", "x", ["pkg/cart.py::nosuch"])
    assert "'pkg/cart.py' was deleted in the checkout" in e.value.message, e.value.message
    got = t.remember(s, "failure", "cart_total overflowed", ["pkg/cart.py::cart_total"])   # still indexed: accepted
    assert any("deleted in the checkout" in w for w in got.envelope.warnings), got.envelope.warnings
    t.close()


def test_a_note_about_the_old_name_and_an_edited_file_is_accepted(tmp_path):
    r, store = _renamed(tmp_path)
    r.write({"pkg/cart.py": CART + "\n\ndef empty():\n    return []\n"})       # edited, not committed
    t = _tools(store)
    s = t.open_session().data["session"]
    got = t.remember(s, "insight", "totals and carts", ["pkg/calc.py::total", "pkg/cart.py::cart_total"])
    nid = got.data["note_id"]
    said = " ".join(got.envelope.warnings)
    assert "work tree's version of pkg/cart.py" in said and "renamed to 'pkg/calculator.py'" in said, said
    assert not [w for w in got.items[0].warnings if "stale" in w], got.items[0].warnings
    t.close()
    r.commit("empty cart")
    index_repository(r.path, store, CFG)
    t = _tools(store)
    for target in ("pkg/calculator.py::total", "pkg/cart.py::cart_total"):   # both attached, neither stale
        on = _notes_on(t, target)
        assert [n["id"] for n in on] == [nid] and "stale" not in on[0]["line"], (target, on)
    t.close()
