"""Updating a warm BM25 index to a new version without re-tokenizing what did not change.

``KeywordIndex.updated`` calls ``updated`` here. Kept rows' postings are renumbered and the
changed rows' postings merged in per term (a binary search within each term's kept postings: no
posting is keyed or sorted again), the exact-name map likewise, then every statistic is
recomputed by the same code a full build ends in (``KeywordIndex._finish``), so the result is
a full build's index bit for bit (tests/unit/test_warm_incremental.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from stratum import npyio
from stratum.keywordindex import _name_csr, _name_map, _name_pairs, _postings

if TYPE_CHECKING:
    from stratum.keywordindex import KeywordIndex


def updated(index: "KeywordIndex", directory: str | os.PathLike, old_row: np.ndarray, texts: Mapping[int, str],
            names: Mapping[int, Sequence[str]] | Sequence[Sequence[str]] | None) -> "KeywordIndex":
    """See ``KeywordIndex.updated``."""
    d = Path(directory)
    tf_old = npyio.load(d / "kw.tf.npy", mmap_mode="r")
    dl_old = npyio.load(d / "kw.dl.npy")
    old_row = np.asarray(old_row, dtype=np.int64)
    n = len(old_row)
    new_of_old = np.full(index.n_docs, -1, dtype=np.int32)
    kept = np.flatnonzero(old_row >= 0)
    new_of_old[old_row[kept]] = kept
    changed = np.flatnonzero(old_row < 0)
    h2, r2, tf2, dl2 = _postings((texts[int(i)] for i in changed), chunk=200_000)
    dl = np.zeros(n, dtype=np.float32)
    dl[kept] = dl_old[old_row[kept]]
    dl[changed] = dl2
    r2 = changed[r2].astype(np.int32)
    new_rows = new_of_old[np.asarray(index.rows)]           # -1: the row's document is gone
    in_order = len(kept) < 2 or bool(np.all(np.diff(old_row[kept]) > 0))
    if isinstance(names, Mapping):
        nk, nr = _name_pairs((i, names[i]) for i in sorted(names))
        name_map = _merge_names(index.nvocab, index.noff, new_of_old[np.asarray(index.nrows)], nk, nr, in_order)
    else:
        name_map = _name_map(names)
    if not in_order:
        # kept rows reordered: renumbering breaks the row order within terms, sort again
        keep = new_rows >= 0
        term_of = np.repeat(np.arange(len(index.vocab)), np.diff(index.offsets))
        hashes = np.concatenate([np.asarray(index.vocab)[term_of[keep]], h2])
        return type(index)._assemble(hashes, np.concatenate([new_rows[keep], r2]),
                                     np.concatenate([np.asarray(tf_old)[keep], tf2]), dl, name_map)
    # Kept rows keep their order (the pipeline sorts nodes by a stable key), so the kept
    # postings stay sorted by (term, row): the few new ones are merged in by binary search
    # within their term's kept postings, and no posting is sorted or keyed again.
    order = np.lexsort((r2, h2))
    vocab, offsets, keep, at = _merge_csr(np.asarray(index.vocab), np.asarray(index.offsets), new_rows,
                                          h2[order], r2[order])
    rows = np.insert(new_rows[keep], at, r2[order])
    tf = np.insert(np.asarray(tf_old)[keep], at, tf2[order])
    return type(index)._finish(vocab, offsets, rows, tf, dl, name_map)


def _merge_csr(vocab: np.ndarray, offsets: np.ndarray, new_of_entry: np.ndarray, keys: np.ndarray,
               vals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Merge new (key, value) entries into CSR lists whose kept values stay sorted per key.

    ``vocab``/``offsets``: the old keys (sorted, none empty) and their lists; ``new_of_entry``:
    each old entry's new value, or -1 when it is dropped (ascending within a key for the kept);
    ``keys``/``vals``: the new entries sorted by (key, value), no value equal to a kept one of
    its key. Returns (keys, offsets, kept mask over the old entries, insertion points into the
    kept entries for ``np.insert``): the lists a full sort of the same entries gives, found by
    a binary search per new entry within its key's kept entries (work by the change's size,
    plus one pass over the old entries)."""
    keep = new_of_entry >= 0
    gone = np.flatnonzero(~keep)                # few: count them per key, not the kept ones
    kept_n = np.diff(offsets) - np.bincount(np.searchsorted(offsets, gone, "right") - 1, minlength=len(vocab))
    allkeys = np.concatenate([vocab, keys[_firsts(keys)]])
    allkeys.sort()
    allkeys = allkeys[_firsts(allkeys)]
    t_old = np.searchsorted(allkeys, vocab)
    t_new = np.searchsorted(allkeys, keys)
    count = np.zeros(len(allkeys), np.int64)
    count[t_old] = kept_n
    kstart = np.zeros(len(allkeys) + 1, np.int64)
    np.cumsum(count, out=kstart[1:])
    kvals = new_of_entry[keep]
    lo, hi = kstart[t_new], kstart[t_new + 1]
    while True:                                 # vectorised bisection: first kept value >= val
        open_ = lo < hi
        if not open_.any():
            break
        mid = (lo + hi) >> 1
        less = open_ & (kvals[np.minimum(mid, len(kvals) - 1)] < vals)    # open_ means kvals is not empty
        lo = np.where(less, mid + 1, lo)
        hi = np.where(open_ & ~less, mid, hi)
    count += np.bincount(t_new, minlength=len(allkeys))
    live = count > 0
    off = np.zeros(int(live.sum()) + 1, np.int64)
    np.cumsum(count[live], out=off[1:])
    return allkeys[live], off, keep, lo


def _firsts(sorted_keys: np.ndarray) -> np.ndarray:
    """Mask of the first of each run of equal values in a sorted array."""
    first = np.ones(len(sorted_keys), dtype=bool)
    first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return first


def _merge_names(nvocab: np.ndarray, noff: np.ndarray, new_rows: np.ndarray, keys: np.ndarray, rows: np.ndarray,
                 in_order: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exact-name map after an update: kept rows' entries renumbered, new rows' merged in
    (what ``_name_map`` of every row gives)."""
    nvocab, noff = np.asarray(nvocab), np.asarray(noff)
    if in_order:
        vocab, off, keep, at = _merge_csr(nvocab, noff, new_rows, keys, rows)
        return vocab, off, np.insert(new_rows[keep], at, rows).astype(np.int32)
    keep = new_rows >= 0
    k = np.concatenate([np.repeat(nvocab, np.diff(noff))[keep], keys])
    r = np.concatenate([new_rows[keep], rows]).astype(np.int32)
    order = np.lexsort((r, k))
    return _name_csr(k[order], r[order])


__all__ = ["updated"]
