"""An index run makes no full cyclic collection, and leaves the collector as it found it.

A re-index holds the repository's records as Python dicts; each full collection walked them all
(14 of them in a one-file re-index of sympy, ~10% of its CPU: docs/bench/index_speed.md, "Session
26"). Real git repository, the real index job in this process, real Lance."""

from __future__ import annotations

import gc

import pytest

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.errors import NotARepository
from tests.gitrepo import sample_python_repo

CFG = IndexConfig(num_cpus=1)


@pytest.fixture
def full_passes():
    """Count the full collections that start while the test runs. The heap is frozen first and a
    full pass made, so the collector's own rule (survivors grown by a quarter) lets one run as
    soon as its thresholds say (set low: a small repository's run allocates little), as it would
    in a process holding a large repository; the thresholds and the frozen heap are given back."""
    seen = []

    def watch(phase, info):
        if phase == "start" and info["generation"] == 2:
            seen.append(1)

    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.collect()
    gc.set_threshold(100, 2, 2)
    gc.callbacks.append(watch)
    try:
        yield seen
    finally:
        gc.callbacks.remove(watch)
        gc.set_threshold(*before)
        gc.unfreeze()


def test_an_index_and_a_reindex_make_no_full_collection(tmp_path, full_passes):
    r = sample_python_repo(tmp_path / "shop")
    before = gc.get_threshold()
    rep = index_repository(r.path, tmp_path / "store", CFG)
    assert rep.nodes.get("function")
    r.commit("cart: one more line", {"shop/cart.py": (r.path / "shop/cart.py").read_text() + "\n# more\n"})
    rep = index_repository(r.path, tmp_path / "store", CFG)
    assert rep.incremental and rep.files_parsed == 1
    assert full_passes == []
    assert gc.get_threshold() == before         # the collector as it was, once the run is over


def test_a_failing_run_gives_the_collector_back(tmp_path):
    before = gc.get_threshold()
    (tmp_path / "plain").mkdir()
    with pytest.raises(NotARepository):         # raised inside the run
        index_repository(tmp_path / "plain", tmp_path / "store", CFG)
    assert gc.get_threshold() == before
