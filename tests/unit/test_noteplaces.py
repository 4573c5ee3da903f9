"""stratum.noteplaces: notes' sort keys among a real NodeMeta's ids keep node-id order, also after
a gap runs out of float room and is renumbered (the search's tie order)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from stratum.noteplaces import NotePlaces
from stratum.rowfilter import NodeMeta


def test_keys_follow_id_order_through_a_renumbered_gap():
    shard_ids = [f"s{i:03d}" for i in range(0, 100, 10)]          # s000, s010, ... s090
    meta = NodeMeta(pa.table({"id": shard_ids, "kind": ["function"] * 10, "path": ["a.py"] * 10}))
    places = NotePlaces()
    # 80 notes all sorting between s020 and s030, placed in an order that halves one gap again and
    # again (each new id just above the last: ~50 halvings exhaust a float's room)
    notes = [f"s020{'~' * (i + 1)}" for i in range(80)]
    ids = notes + ["s005", "s095"]
    slots = list(range(len(ids)))
    assert np.isnan(places.keys_of(np.array(slots))).all()       # none placed yet
    for j in slots:                                               # one at a time, as searches meet them
        places.place_all([j], ids, meta)
    keys = places.keys_of(np.array(slots))
    assert not np.isnan(keys).any()
    assert [ids[j] for j in np.argsort(keys, kind="stable")] == sorted(ids)
    shard_keys = 2.0 * np.arange(10)                              # the shard id of rank r sorts at 2r
    merged = sorted([(k, i) for k, i in zip(keys, ids)] + [(k, i) for k, i in zip(shard_keys, shard_ids)])
    assert [i for _, i in merged] == sorted(ids + shard_ids)
