"""``pipeline.fixes.mine_fixes``: a backported commit joins its original's mined node instead of
making a second one."""

from __future__ import annotations

import json

from pipeline.fixes import KIND, fix_id, mine_fixes
from tests.unit.test_fixes import FILES, _tables

SLOW = "Fix: slow multipart parsing for huge files with few CR/LF characters"


def test_a_backport_is_one_mined_note_listing_both_commits_and_ids_stay():
    """werkzeug's b1916c0c and f2300208 (the same fix on two branches) were two mined notes about
    the same file: 26 such groups, each counted twice as evidence and taking two places of a page."""
    commits = [("a1", SLOW, [("src/app.py", "src/app.py")]),
               ("b2", "Add a route cache", [("src/util.py", "src/util.py")]),
               ("c3", SLOW + "\n\n(cherry picked from commit a1)", [("src/app.py", "src/app.py")]),
               ("d4", SLOW, [("src/util.py", "src/util.py")])]      # the same words on another file: its own
    first = mine_fixes(*_tables(commits), FILES, "r", changes=True)
    fixes = [n for n in first.nodes if n["kind"] == KIND]
    assert [n["id"] for n in fixes] == [fix_id("r", "a1"), fix_id("r", "d4")]
    meta = json.loads(fixes[0]["meta"])
    assert (meta["sha"], meta["commits"]) == ("a1", ["a1", "c3"]) and "commits" not in json.loads(fixes[1]["meta"])
    assert first.counts["duplicates"] == 1 and first.counts["fixes"] == 2
    assert [e["src"] for e in first.edges].count(fix_id("r", "a1")) == 1
    # a later backport joins the kept node (its id stays); an index before it had the node alone
    before = mine_fixes(*_tables(commits[:2]), FILES, "r", changes=True)
    again = mine_fixes(*_tables(commits), FILES, "r", changes=True, prev=before.nodes, same_rule=True)
    assert [n["id"] for n in again.nodes] == [n["id"] for n in first.nodes]
    assert json.loads(again.nodes[0]["meta"])["commits"] == ["a1", "c3"]
    assert mine_fixes(*_tables(commits), FILES, "r", changes=True, prev=first.nodes).counts["reused"] == 3
