"""String key -> row lookups for a loaded shard, without a Python object per row.

Why: a Python dict of 1,000,000 node ids (plus one of paths and one of qualified names) costs
about a gigabyte and tens of seconds to build, which made a 1M-node shard load in 44 s with a
6 GB RSS (docs/bench/grpc.md). Here a key is a 64-bit hash (Polars' vectorised string hash,
computed for the whole column at once); lookups binary-search the sorted hashes and confirm the
key against the Arrow column, so a hash collision can never return a wrong row. Memory: 16 bytes
per key.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import polars as pl

_SEED = 0x5EED


def _hash(keys: pa.Array) -> np.ndarray:
    return pl.Series(values=keys).hash(seed=_SEED).to_numpy()


class KeyIndex:
    """The first row holding a key (rows in ascending order win, like ``dict.setdefault``)."""

    def __init__(self, keys: pa.Array | pa.ChunkedArray, rows: np.ndarray | None = None):
        """``keys``: Arrow strings (nulls never match); ``rows``: the row each key stands for
        (default: its position)."""
        if isinstance(keys, pa.ChunkedArray):
            keys = keys.combine_chunks()
        if pa.types.is_large_string(keys.type):
            keys = keys.cast(pa.string())
        rows = np.arange(len(keys), dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        if len(rows) != len(keys):
            raise ValueError(f"{len(keys)} keys but {len(rows)} rows")
        valid = np.asarray(keys.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        pos = np.flatnonzero(valid)
        h = _hash(keys)[pos] if len(pos) else np.empty(0, np.uint64)
        order = np.lexsort((rows[pos], h))
        self._keys = keys
        self._hash = h[order]
        self._pos = pos[order]             # position in ``keys`` (to confirm the key)
        self._rows = rows[pos][order]

    def get(self, key: str, default: int | None = None) -> int | None:
        if not isinstance(key, str) or not len(self._hash):
            return default
        h = _hash(pa.array([key], pa.string()))[0]
        lo = int(np.searchsorted(self._hash, h, "left"))
        hi = int(np.searchsorted(self._hash, h, "right"))
        for j in range(lo, hi):
            if self._keys[int(self._pos[j])].as_py() == key:
                return int(self._rows[j])
        return default

    def __getitem__(self, key: str) -> int:
        r = self.get(key)
        if r is None:
            raise KeyError(key)
        return r

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return len(self._hash)


class Column:
    """Read-only list-like view of one Arrow column: ``col[i]`` is a Python value."""

    def __init__(self, array: pa.Array | pa.ChunkedArray):
        self.array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array

    def __getitem__(self, i: int):
        return self.array[int(i)].as_py()

    def __len__(self) -> int:
        return len(self.array)

    def __iter__(self):
        return iter(self.array.to_pylist())


__all__ = ["KeyIndex", "Column"]
