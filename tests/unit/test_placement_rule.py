"""The one placement rule (``stratum.placement``), over a plain ``CodeLookup``: what the merge and a
branch session both ask of it."""

from __future__ import annotations

from stratum import notes as N
from stratum.codelookup import CodeLookup
from stratum.placement import place, same_named


def code(*nodes: tuple[str, str, str, str]) -> CodeLookup:
    """(id, path, qualname, content hash) of each function."""
    return CodeLookup.from_records({"id": i, "kind": "function", "path": p, "qualname": q, "content_hash": h}
                                   for i, p, q, h in nodes)


def target(node_id: str, path: str, qual: str, h: str) -> N.Target:
    return N.Target(given=f"{path}::{qual}", node_id=node_id, content_hash=h, path=path, qualname=qual,
                    kind="function")


def no_renames(path: str) -> list[str]:
    return []


def test_a_target_at_its_code_is_left_alone():
    t = target("a2", "cart.py", "add#2", "H2")
    assert place([t], code(("a1", "cart.py", "add", "H1"), ("a2", "cart.py", "add#2", "H2")),
                 lambda: [t], no_renames) is None


def test_a_renumbered_target_goes_to_the_same_named_node_holding_its_code():
    t = target("a2", "cart.py", "add#2", "H2")
    here = code(("a1", "cart.py", "add", "H1"), ("a2", "cart.py", "add#2", "HC"), ("a3", "cart.py", "add#3", "H2"))
    got = place([t], here, lambda: [t], no_renames)
    assert got is not None and (got[0].node_id, got[0].qualname, got[0].content_hash) == ("a3", "add#3", "H2")


def test_two_same_named_nodes_with_its_code_leave_it_where_it_is():
    t = target("a2", "cart.py", "add#2", "H2")
    here = code(("a1", "cart.py", "add", "H1"), ("a2", "cart.py", "add#2", "HC"), ("a3", "cart.py", "add#3", "H2"),
                ("a4", "cart.py", "add#4", "H2"))
    assert place([t], here, lambda: [t], no_renames) == [t]
    assert [r.node_id for r in same_named(here, "cart.py", "add#3")] == ["a1", "a2", "a3", "a4"]


def test_a_gone_target_goes_home_to_the_writers_own():
    t, w = target("b1", "basket.py", "add", "H1"), target("c1", "cart.py", "add", "H1")
    got = place([t], code(("c1", "cart.py", "add", "H1")), lambda: [w], no_renames)
    assert got is not None and (got[0].node_id, got[0].path) == ("c1", "cart.py")


def test_renames_lead_from_the_writers_path_then_from_the_current_one():
    """A branch's renames start from the indexed version, where the last merge put the target."""
    t, w = target("b1", "basket.py", "add", "H1"), target("c1", "cart.py", "add", "H1")
    here = code(("g1", "bag.py", "add", "H1"))
    got = place([t], here, lambda: [w], lambda p: ["bag.py"] if p == "basket.py" else [])
    assert got is not None and (got[0].node_id, got[0].path) == ("g1", "bag.py")


def test_a_renamed_file_that_also_renumbered_its_name_keeps_the_note_on_its_code():
    t = target("c2", "cart.py", "add#2", "H2")
    here = code(("g1", "bag.py", "add", "H1"), ("g2", "bag.py", "add#2", "HC"), ("g3", "bag.py", "add#3", "H2"))
    got = place([t], here, lambda: [t], lambda p: ["bag.py"] if p == "cart.py" else [])
    assert got is not None and (got[0].node_id, got[0].path, got[0].qualname) == ("g3", "bag.py", "add#3")


def test_a_target_found_nowhere_stays():
    t = target("c2", "cart.py", "add#2", "H2")
    assert place([t], code(("x", "other.py", "f", "H9")), lambda: [t], no_renames) == [t]
