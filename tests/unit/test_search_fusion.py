"""The searcher's cheap paths give the plain computation's answers: node ids read from a list,
from the Arrow buffers or through pyarrow agree; RRF fusion equals a plain Python fusion (scores
summed in list order, ties by id, an unmerged note just before an equal shard id); the keyword
index's binary-search membership and reused k-th score equal numpy's isin and partition."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from stratum import keywordindex as K
from stratum import rowfilter as RF
from stratum import search as S
from stratum.noteindex import NoteIndex


def _table(ids, string_type=pa.string()):
    n = len(ids)
    return pa.table({"id": pa.array(ids, string_type), "kind": ["function"] * n,
                     "path": [f"p{i % 7}.py" for i in range(n)]})


@pytest.mark.parametrize("string_type", [pa.string(), pa.large_string()])
def test_node_ids_read_alike_on_every_path(monkeypatch, string_type):
    rng = np.random.default_rng(1)
    ids = [f"n{int(x):06d}-ä{i % 3}" for i, x in enumerate(rng.integers(0, 10**6, 500))]
    t = _table(["skip"] * 3 + ids, string_type).slice(3)       # a buffer offset, as a sliced table has
    rows = rng.integers(0, len(ids), 150)
    metas = [RF.NodeMeta(t)]
    monkeypatch.setattr(RF, "ID_LIST_ROWS", 0)
    metas.append(RF.NodeMeta(t))                                 # Arrow buffers sliced
    assert metas[0]._id_list is not None and metas[1]._id_off is not None
    plain = RF.NodeMeta(t)
    plain._id_off = None                                        # pyarrow's take
    metas.append(plain)
    want = [ids[r] for r in rows.tolist()]
    for m in metas:
        assert m.ids_of(rows) == want
        assert [m.id_position(x) for x in ("a", ids[7], "n5", "z")] == \
            [sum(i < x for i in ids) for x in ("a", ids[7], "n5", "z")]


def test_fusion_equals_a_plain_python_rrf():
    rng = np.random.default_rng(4)
    ids = sorted({f"{int(x):05d}" for x in rng.integers(0, 99999, 400)})
    n = len(ids)
    searcher = S.HybridSearcher(_table(ids), None, None, weights={"keyword": 0.75})
    notes = NoteIndex(8)
    note_ids = [f"{int(x):05d}" for x in rng.integers(0, 99999, 40)] + [ids[5], ids[9] + "a"]
    for j, nid in enumerate(note_ids):
        notes.add(f"{nid}", "x", "rca", "", "a")
    view = notes.view()
    checked = 0
    for case in range(60):
        pool = np.arange(n + (len(note_ids) if case % 2 else 0))
        lists = {"vector": rng.choice(pool, 50, replace=False), "keyword": rng.choice(pool, 50, replace=False)}
        if case % 3:
            lists["name"] = rng.choice(lists["keyword"], 4, replace=False)
        rows, scores, bits = searcher._fuse(lists, view)
        acc: dict[int, list] = {}
        for bit, name in ((1, "vector"), (2, "keyword"), (4, "name")):
            w = searcher.weights[name]
            for rank, r in enumerate(lists.get(name, np.empty(0, np.int64)).tolist()):
                e = acc.setdefault(r, [0.0, 0])
                e[0] += w / (S.RRF_K + 1.0 + rank)
                e[1] |= bit
        id_of = lambda r: ids[r] if r < n else note_ids[r - n]
        want = sorted(acc, key=lambda r: (-acc[r][0], id_of(r), r < n))
        assert rows.tolist() == want
        assert scores.tolist() == [acc[r][0] for r in want]
        assert bits.tolist() == [acc[r][1] for r in want]
        checked += len(want)
    assert checked > 4000


def test_keyword_membership_and_reused_kth_equal_numpy():
    rng = np.random.default_rng(2)
    for _ in range(50):
        sorted_rows = np.unique(rng.integers(0, 500, int(rng.integers(1, 40))))
        x = rng.integers(0, 520, 60)
        assert K._members(sorted_rows, x).tolist() == np.isin(x, sorted_rows).tolist()
        cand = np.unique(rng.integers(0, 10**6, 400))
        scores = rng.integers(0, 30, len(cand)).astype(np.float32)      # many ties
        k = int(rng.integers(1, 150))
        kth = float(np.partition(scores, len(scores) - k)[len(scores) - k])
        want = np.lexsort((cand, -scores))[:k].tolist()      # the whole sort, ties by row
        assert K._top(cand, scores, k, kth=kth).tolist() == want and K._top(cand, scores, k).tolist() == want
