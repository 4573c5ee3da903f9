"""Store.write_dataset refuses NaN/inf vectors on a real Lance store: the error names the dataset,
the count and the first ids, and the version written before stays the one read."""

from __future__ import annotations

import math

import numpy as np
import pytest

from stratum import ids
from stratum import schema as S
from stratum.errors import InvalidArgument
from stratum.store import Manifest, Store


def _nodes(n: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        path = f"pkg/m{i}.py"
        v = rng.standard_normal(S.EMBED_DIM).astype(np.float32)
        out.append({"id": ids.node_id("r", path, "file"), "repo": "r", "kind": "file", "path": path,
                    "name": f"m{i}.py", "qualname": "", "vector": (v / np.linalg.norm(v)).tolist()})
    return out


def _publish(store: Store, datasets: dict[str, int]) -> None:
    store.publish(Manifest(version=1, published_at=1.0, repo_name="r", repo_path="", indexed_commit=None,
                           history_watermark=None, datasets=datasets))


def test_nonfinite_vectors_are_refused_and_the_good_version_stays(tmp_path):
    store = Store(tmp_path / "store")
    good = _nodes(40, 1)
    good[3]["vector"] = None                       # not embedded yet: allowed
    v1 = store.write_dataset("nodes", S.to_table(good, S.NODES))
    _publish(store, {"nodes": v1})

    bad = _nodes(40, 2)
    bad[7]["vector"][0] = math.nan
    bad[21]["vector"][100] = math.inf
    bad[30]["vector"][383] = -math.inf
    with pytest.raises(InvalidArgument) as err:
        store.write_dataset("nodes", S.to_table(bad, S.NODES))
    text = str(err.value)
    assert "dataset nodes" in text and "3 row(s)" in text and "vector" in text
    assert f"{bad[7]['id']}, {bad[21]['id']}, {bad[30]['id']}" in text
    assert bad[0]["id"] not in text

    import lance
    assert lance.dataset(str(store.data_dir / "nodes.lance")).version == v1     # nothing was written
    got = store.snapshot().read("nodes", ["id", "vector"])
    assert got.column("id").to_pylist() == [n["id"] for n in good]
    assert got.column("vector").to_pylist()[3] is None
    np.testing.assert_array_equal(np.asarray(got.column("vector").to_pylist()[0], np.float32),
                                  np.asarray(good[0]["vector"], np.float32))


def test_rows_are_counted_past_the_ids_shown_and_caches_name_their_hash(tmp_path):
    store = Store(tmp_path / "store")
    vec = np.full(S.EMBED_DIM, np.nan, np.float32).tolist()
    rows = [{"model": "m", "text_hash": f"h{i:02d}", "vector": vec} for i in range(8)]
    with pytest.raises(InvalidArgument, match=r"dataset embeddings: 8 row\(s\).*text_hash h00, h01, h02, h03, h04, \.\.\."):
        store.write_dataset("embeddings", S.to_table(rows, S.EMBEDDINGS))
    assert not (store.data_dir / "embeddings.lance").exists()
