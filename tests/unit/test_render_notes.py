"""What notes an item carries: agents' own notes first, and past fixes mined from history capped
(a file with many fixes carried five ~40-token lines on every get, walk and prefetch item)."""

from __future__ import annotations

from datetime import datetime, timezone

from stratum import render as R
from stratum.envelope import Item
from stratum.memory import AttachedNote

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _note(i: int, kind: str, trust: str) -> AttachedNote:
    return AttachedNote(f"n{i}", kind, T0, "history" if trust == "mined" else "agent", trust, False, f"note {i}", "")


def test_mined_fixes_are_capped_and_the_rest_counted():
    notes = [_note(0, "insight", "unauthenticated")] + [_note(i, "fix", "mined") for i in range(1, 6)]
    it = Item(id="f", kind="file", path="a.py", text="file a.py", tokens=3)
    R.attach_notes(it, notes, cap=5, now=T0)
    assert [n["id"] for n in it.notes] == ["n0", "n1", "n2"]
    assert it.meta == {"notes_total": 6, "notes_more": True}
    assert it.tokens == 3 + sum(n["tokens"] for n in it.notes) == 3 + R.notes_cost(notes, cap=5, now=T0)
    agents = [_note(i, "rca", "authenticated") for i in range(6)]
    it = Item(id="g", kind="file", path="b.py", text="file b.py", tokens=3)
    R.attach_notes(it, agents, cap=5, now=T0)
    assert len(it.notes) == 5 and it.meta["notes_more"] is True          # agents' notes fill the cap
