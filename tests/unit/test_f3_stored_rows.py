"""``stages.table_of`` writes the rows a re-index read back unchanged (``StoredRow``) from their Arrow
table, and gives exactly what converting every record (``schema.to_table``) gives; a row any stage
changed (but its vector) is converted from the record."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from pipeline.stages import StoredRow, stored_rows, table_of, unchanged_row
from stratum import schema as S
from stratum.notenodes import LazyTokens


def _node(i: int, **kw) -> dict:
    return {"id": f"n{i}", "repo": "r", "kind": "function", "path": f"p{i % 3}.py", "name": f"f{i}",
            "qualname": f"f{i}", "start_line": i, "full": "x" * i, "tags": ["a"] if i % 2 else None, **kw}


def _stored(n: int, vectors: bool = False) -> list[StoredRow]:
    names = [f.name for f in S.NODES if vectors or f.name != "vector"]
    recs = [_node(i) for i in range(n)]
    return stored_rows(S.to_table(recs, S.NODES).select(names))


def test_stored_rows_are_the_tables_records_and_know_their_row():
    rows = _stored(5)
    assert rows == S.to_table([_node(i) for i in range(5)], S.NODES).drop_columns(["vector"]).to_pylist()
    assert all(unchanged_row(r) and r.row == i for i, r in enumerate(rows))
    assert not unchanged_row(dict(rows[0])) and type(rows[0].copy()) is dict


@pytest.mark.parametrize("change", [
    lambda r: r.__setitem__("doc", "new"), lambda r: r.update(doc="new"), lambda r: r.setdefault("x", 1),
    lambda r: r.pop("doc"), lambda r: r.__delitem__("doc"), lambda r: r.__ior__({"doc": "d"}), lambda r: r.popitem(),
])
def test_any_change_but_the_vector_makes_a_row_ordinary(change):
    r = _stored(1)[0]
    r["vector"] = np.ones(S.EMBED_DIM, np.float32)
    assert unchanged_row(r)
    change(r)
    assert not unchanged_row(r)


def test_table_of_equals_converting_every_record():
    rows = _stored(40)
    notes = _stored(7)                      # a second source table (the previous notes)
    for i, r in enumerate(rows + notes):
        r["vector"] = np.full(S.EMBED_DIM, i, np.float32) if i % 5 else None     # set by the embed stage
    rows[3]["doc"] = "changed"              # a stage changed it: converted from the record
    plain = [_node(100 + i) for i in range(6)]                   # parsed rows
    partial = stored_rows(S.to_table([_node(200)], S.NODES).select(["id", "path"]))   # a source lacking columns
    records = [r for pair in zip(rows[::-1], notes * 6) for r in pair] + plain + partial
    records.sort(key=lambda n: (n["path"], n.get("start_line") or 0))
    got = table_of(records, S.NODES)
    assert got.schema == S.NODES and got.equals(S.to_table(records, S.NODES))
    assert got.column("doc").to_pylist()[records.index(rows[3])] == "changed"


def test_table_of_edges_and_nothing_stored():
    edges = [{"src": f"a{i}", "dst": f"b{i}", "kind": "contains", "weight": 1.0} for i in range(5)]
    kept = stored_rows(S.to_table(edges, S.EDGES))
    mixed = [kept[2], {"src": "x", "dst": "y", "kind": "calls", "meta": "{}"}, kept[0], kept[4]]
    assert table_of(mixed, S.EDGES).equals(S.to_table(mixed, S.EDGES))
    assert table_of(edges, S.EDGES).equals(S.to_table(edges, S.EDGES))
    assert table_of([], S.EDGES).num_rows == 0


def test_to_table_takes_stored_rows_as_dicts_and_lazy_ones_through_get():
    rows = _stored(3)
    rows[1]["doc"] = "changed"
    assert S.to_table(rows, S.NODES).equals(S.to_table([dict(r) for r in rows], S.NODES))
    lazy = LazyTokens({**_node(1), "summary": "one two", "api": "", "full": "three"})
    t = S.to_table([lazy, _node(2)], S.NODES)
    assert t.column("summary_tokens")[0].as_py() == 2 and isinstance(t, pa.Table)
