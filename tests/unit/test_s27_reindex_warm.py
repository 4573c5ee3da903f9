"""The warm build told which rows are unchanged (``build_warm(unchanged=)``): their document hashes
come from the previous folder, their texts are not made, and the indexes equal a full build, a
kept row that moved (so the keyword update redoes it) included."""

from __future__ import annotations

import numpy as np

from stratum.keywordindex import KeywordIndex
from stratum.warm import build_warm
from tests.unit.test_warm_incremental import edges_of, make_nodes


def _same_keyword(a, b) -> None:
    ka, kb = KeywordIndex.load(a / "keyword"), KeywordIndex.load(b / "keyword")
    for name in KeywordIndex._ARRAYS:
        assert np.array_equal(getattr(ka, name), getattr(kb, name)), name
    assert ka.meta == kb.meta


def test_rows_told_unchanged_keep_their_hashes_and_the_indexes_equal_a_full_build(tmp_path):
    v1 = make_nodes(400, 1)
    build_warm(tmp_path / "v1", v1, edges_of(v1, 1), root=tmp_path)
    v2 = [dict(n) for n in v1]
    v2[10]["doc"] = "refund gateway timeout"            # changed: not told unchanged
    v2[6], v2[5] = v2[5], v2[6]                          # a kept row moved before an earlier one: redone
    del v2[50]
    kept = {n["id"] for i, n in enumerate(v2) if i != 10}
    edges = edges_of(v2, 2)
    told = build_warm(tmp_path / "told", v2, edges, root=tmp_path, previous=tmp_path / "v1", unchanged=kept)
    plain = build_warm(tmp_path / "plain", v2, edges, root=tmp_path, previous=tmp_path / "v1")
    full = build_warm(tmp_path / "full", v2, edges, root=tmp_path)
    assert told["incremental"] and told["docs_kept"] == len(v2) - 1 and "docs_kept" not in plain
    assert told["keyword_docs_redone"] == plain["keyword_docs_redone"] == 2      # the changed row, the moved one
    for d in ("plain", "full"):
        assert np.array_equal(np.load(tmp_path / "told" / "rows.doc.npy"), np.load(tmp_path / d / "rows.doc.npy"))
        _same_keyword(tmp_path / "told", tmp_path / d)


def test_unchanged_ids_without_a_usable_previous_folder_mean_a_full_build(tmp_path):
    v1 = make_nodes(100, 1)
    info = build_warm(tmp_path / "v1", v1, [], root=tmp_path, previous=tmp_path / "none",
                      unchanged={n["id"] for n in v1})
    full = build_warm(tmp_path / "full", v1, [], root=tmp_path)
    assert not info["incremental"] and "docs_kept" not in info
    assert np.array_equal(np.load(tmp_path / "v1" / "rows.doc.npy"), np.load(tmp_path / "full" / "rows.doc.npy"))
    _same_keyword(tmp_path / "v1", tmp_path / "full")
