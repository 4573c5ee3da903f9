"""Items at summary level read only the fields they show: each equals the item built from the
whole warm record (``Shard.row``), for every row of a real store, notes included."""

from __future__ import annotations

import pytest

from stratum import render as R
from stratum import schema as S
from stratum.envelope import Item
from stratum.tools import Tools

pytestmark = pytest.mark.slow


def _from_whole_record(sh, row, ov) -> Item:
    rec = sh.row(row)
    it = Item(id=rec["id"], kind=rec["kind"], path=rec["path"], name=rec["name"] or "",
              qualname=rec["qualname"] or "", level="summary", text=rec["summary"] or "",
              tokens=int(rec["summary_tokens"] or 0), language=rec["language"] or "",
              start_line=rec["start_line"] or 0, end_line=rec["end_line"] or 0)
    if rec["kind"] in S.NOTE_KINDS:
        ov.annotate(it, rec)
    return it


def test_summary_items_equal_the_whole_record_items(indexed_store):
    t = Tools.open([str(indexed_store[1])])
    try:
        sh = next(iter(t.memory))
        ov = t.memory.overlay(sh)
        kinds = set()
        for row in range(len(sh)):
            assert R.code_item(sh, row, "summary", ov) == _from_whole_record(sh, row, ov)
            kinds.add(sh.col("kind")[row])
        assert {"file", "function"} <= kinds and kinds & set(S.NOTE_KINDS), kinds    # mined notes are rows
    finally:
        t.close()

