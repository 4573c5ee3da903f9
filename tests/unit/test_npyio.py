"""stratum.npyio reads what np.save wrote, like np.load, from several threads at once."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from stratum import npyio

ARRAYS = [np.arange(12, dtype=np.int32).reshape(3, 4), np.zeros((0, 384), np.float16),
          np.asfortranarray(np.random.default_rng(1).random((5, 3))), np.array(3.5), np.array([True, False])]


@pytest.mark.parametrize("k", range(len(ARRAYS)))
@pytest.mark.parametrize("mmap", [None, "r"])
def test_it_reads_what_np_load_reads(tmp_path, k, mmap):
    p = tmp_path / "a.npy"
    np.save(p, ARRAYS[k])
    got, want = npyio.load(p, mmap), np.load(p, mmap_mode=mmap)
    assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(np.asarray(got), np.asarray(want))


def test_a_cut_file_is_an_error_not_a_short_array(tmp_path):
    p = tmp_path / "a.npy"
    np.save(p, np.arange(1000, dtype=np.int64))
    p.write_bytes(p.read_bytes()[:-80])
    with pytest.raises(ValueError, match="cut short"):
        npyio.load(p)


def test_threads_parse_headers_one_at_a_time(tmp_path, monkeypatch):
    """The header parse (numpy's ast.literal_eval) never runs in two threads at once: each parse
    waits a little inside, so without the lock the 8 threads would overlap there."""
    import time

    from numpy.lib import format as npf

    paths = []
    for k in range(8):
        p = tmp_path / f"a{k}.npy"
        np.save(p, np.full((50, 4), k, np.int32))
        paths.append(p)
    inside, most, guard = [0], [0], threading.Lock()
    real = npf.read_array_header_1_0

    def slow_parse(f, *a, **kw):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            time.sleep(0.002)
            return real(f, *a, **kw)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(npf, "read_array_header_1_0", slow_parse)
    bad: list[str] = []

    def read(k: int) -> None:
        for _ in range(10):
            a = npyio.load(paths[k])
            if a.shape != (50, 4) or int(a[0, 0]) != k:
                bad.append(f"{k}: {a.shape}")

    ts = [threading.Thread(target=read, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad and most[0] == 1
