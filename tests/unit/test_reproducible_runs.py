"""The same input gives the same index: a small vector-index update, and record ids under a seed
(memory_transfer's P condition varied between runs through both: docs/bench/memory_transfer.md)."""

import time

import numpy as np
import pytest

from stratum import deltalog as D
from stratum import uids as U
from stratum import ids
from stratum.errors import InvalidArgument
from stratum.vectorindex import GRAPH_FILE, VectorIndex


def _vectors(n, seed):
    x = np.random.default_rng(seed).normal(size=(n, 64)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_the_same_small_update_gives_the_same_graph(tmp_path):
    """A re-index adding a few hundred notes changes the graph the same way every time (it was
    updated on every core, and thread timing chose the neighbours)."""
    old, new = _vectors(3000, 0), _vectors(600, 1)
    VectorIndex.build(old).save(tmp_path / "v1")
    both = np.concatenate([old, new])
    old_row = np.concatenate([np.arange(len(old)), np.full(len(new), -1)])
    graphs = []
    for i in range(3):
        up = VectorIndex.load(tmp_path / "v1", mmap=False).updated(both, None, old_row)
        up.save(tmp_path / f"v2-{i}")
        graphs.append((tmp_path / f"v2-{i}" / GRAPH_FILE).read_bytes())
    assert graphs[0] == graphs[1] == graphs[2]


def test_seeded_record_ids_repeat_and_stay_ordered_with_the_others(tmp_path):
    start_ms = 1_700_000_000_000
    before = U.new_uid()
    runs = []
    for i in range(2):
        with U.reproducible_uids(7, start_ms):
            log = D.DeltaLog(tmp_path / f"log{i}")
            runs.append(log.append_many([("note", {"i": k}) for k in range(5)]))
            log.close()
    after = U.new_uid()
    assert runs[0] == runs[1] == sorted(runs[0]) and len(set(runs[0])) == 5
    assert [ids.note_id(u) for u in runs[0]] == [ids.note_id(u) for u in runs[1]]
    assert U.uid_time(runs[0][0]) == start_ms / 1000
    assert after > before and after > max(runs[0])     # the clock is the wall's again, never behind
    with U.reproducible_uids(8, start_ms):
        assert U.new_uid() != runs[0][0]
    with pytest.raises(InvalidArgument), U.reproducible_uids(7, int(time.time() * 1000) + 3_600_000):
        pass
    assert U.new_uid() > after
