"""The fingerprint matcher behind ``known_hashes``: a stored vector names the one cache row whose
bits it has, a vector two cache rows share names none, and a fingerprint collision never names a
wrong row (matches are confirmed bit for bit)."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline import vecmatch
from pipeline.vecmatch import CacheMatcher, Chunks, fingerprints


def _cache(n: int = 300, d: int = 384, seed: int = 3) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _chunked(m: np.ndarray) -> Chunks:
    return Chunks([m[:128], m[128:200], m[200:]])      # uneven chunks, as Lance batches come


def test_each_cached_vector_names_its_own_row_across_chunks():
    m = _cache()
    idx = CacheMatcher(_chunked(m))
    order = np.random.default_rng(0).permutation(len(m))
    assert idx.owners(m[order]).tolist() == order.tolist()


def test_a_vector_not_in_the_cache_names_none_even_one_bit_off():
    m = _cache()
    idx = CacheMatcher(_chunked(m))
    off = m[:5].copy()
    off.view(np.uint32)[:, 7] ^= 1                      # the lowest mantissa bit of one component
    assert idx.owners(off).tolist() == [-1] * 5
    assert idx.owners(_cache(4, seed=9)).tolist() == [-1] * 4
    signed = m[:1].copy()
    signed[0, 0], m[0, 0] = 0.0, -0.0                    # equal as floats, different bytes
    assert CacheMatcher(Chunks([m])).owners(signed).tolist() == [-1]


def test_a_vector_two_cache_rows_share_names_none():
    m = _cache()
    m[17] = m[5]
    idx = CacheMatcher(_chunked(m))
    got = idx.owners(m[[5, 17, 6, 250]])
    assert got.tolist() == [-1, -1, 6, 250]


def test_a_forced_fingerprint_collision_still_matches_by_bytes(monkeypatch):
    m = _cache(200)
    m[150] = m[3]                                        # and a twin among the collisions
    monkeypatch.setattr(vecmatch, "fingerprints", lambda rows: np.zeros(len(rows), np.uint64))
    idx = CacheMatcher(Chunks([m[:100], m[100:]]))
    q = np.concatenate([m[[0, 99, 100, 199, 3, 150]], _cache(2, seed=11)])
    assert idx.owners(q).tolist() == [0, 99, 100, 199, -1, -1, -1, -1]


@pytest.mark.parametrize("d", [384, 7])
def test_fingerprints_are_per_row_bits_for_even_and_odd_widths(d):
    m = _cache(2_000, d)
    fp = fingerprints(m)
    assert fp.dtype == np.uint64 and len(np.unique(fp)) == len(m)
    assert np.array_equal(fp, fingerprints(m.copy())) and np.array_equal(fp[10:20], fingerprints(m[10:20]))
    assert CacheMatcher(Chunks([m])).owners(m[::-1]).tolist() == list(range(len(m)))[::-1]


def test_empty_inputs():
    assert CacheMatcher(Chunks([])).owners(_cache(3)).tolist() == [-1, -1, -1]
    assert CacheMatcher(Chunks([_cache(3)])).owners(np.zeros((0, 384), np.float32)).tolist() == []
    assert fingerprints(np.zeros((0, 384), np.float32)).shape == (0,)
