"""String key -> row lookups for a loaded shard, without a Python object per row.

Why: a Python dict of 1,000,000 node ids (plus one of paths and one of qualified names) costs
about a gigabyte and tens of seconds to build, which made a 1M-node shard load in 44 s with a
6 GB RSS (docs/bench/grpc.md). Here a key is a 64-bit polynomial hash of its UTF-8 bytes,
computed for a whole Arrow column at once with numpy (and for one key in microseconds); lookups
binary-search the sorted hashes and confirm the key against the Arrow column, so a hash collision
can never return a wrong row. Memory: 24 bytes per key.
"""

from __future__ import annotations

import math

import operator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_P = np.uint64(0x100000001B3)          # odd, so every power is invertible mod 2**64
_CHUNK_BYTES = 1 << 24                 # hash a column in slices of about this many bytes
_pow = np.ones(1, np.uint64)
_MISSING = object()
RECENT = 65536                         # keys remembered per index (a dict of recent lookups)


def _powers(n: int) -> np.ndarray:
    """P**0 .. P**(n-1) mod 2**64 (grown on demand, kept)."""
    global _pow
    if len(_pow) < n:
        size = max(n, 2 * len(_pow))
        p = np.full(size, _P, np.uint64)
        p[0] = 1
        with np.errstate(over="ignore"):
            _pow = np.cumprod(p, dtype=np.uint64)
    return _pow[:n]


_MASK = (1 << 64) - 1
_PY_BYTES = 512                        # keys up to this long are hashed with Python ints
_POW_PY = [pow(int(_P), i, 1 << 64) for i in range(_PY_BYTES)]
_POW_CUM = [0]                         # _POW_CUM[n] = sum of P**i for i < n, mod 2**64
for _p in _POW_PY:
    _POW_CUM.append((_POW_CUM[-1] + _p) & _MASK)


def hash_key(key: str) -> np.uint64:
    """The hash of one key: sum of (byte + 1) * P**position, mod 2**64 (for a short key with
    Python ints, ~1 us; numpy's per-call set-up made it ~15 us, a tenth of a ranked search at 1M).
    A lone surrogate (a command-line byte that is not UTF-8) is hashed, not an error: no stored key
    holds one, so the look-up finds nothing and the caller says "unknown target"."""
    data = key.encode("utf-8", "surrogatepass")
    if len(data) <= _PY_BYTES:
        return np.uint64((sum(map(operator.mul, data, _POW_PY)) + _POW_CUM[len(data)]) & _MASK)
    b = np.frombuffer(data, np.uint8)
    with np.errstate(over="ignore"):
        return np.uint64(((b.astype(np.uint64) + np.uint64(1)) * _powers(len(b))).sum(dtype=np.uint64))


def hash_keys(keys: pa.Array) -> np.ndarray:
    """``hash_key`` of every value of a string array (nulls hash as the empty string)."""
    keys = keys.cast(pa.string()) if not pa.types.is_string(keys.type) else keys
    n = len(keys)
    out = np.zeros(n, np.uint64)
    if n == 0:
        return out
    offsets = np.frombuffer(keys.buffers()[1], np.int32, count=n + 1, offset=4 * keys.offset).astype(np.int64)
    data = keys.buffers()[2]
    data = np.frombuffer(data, np.uint8) if data is not None else np.empty(0, np.uint8)
    lo = 0
    while lo < n:
        # a slice of strings holding about _CHUNK_BYTES bytes (at least one string)
        hi = int(np.searchsorted(offsets, offsets[lo] + _CHUNK_BYTES, "right")) - 1
        hi = min(n, max(hi, lo + 1))
        a, b = int(offsets[lo]), int(offsets[hi])
        starts = offsets[lo:hi] - a
        lens = np.diff(offsets[lo:hi + 1])
        if b > a:
            pos = np.arange(b - a, dtype=np.int64) - np.repeat(starts, lens)
            with np.errstate(over="ignore"):
                vals = (data[a:b].astype(np.uint64) + np.uint64(1)) * _powers(int(lens.max()))[pos]
            nonempty = lens > 0
            sums = np.add.reduceat(vals, starts[nonempty]) if nonempty.any() else np.empty(0, np.uint64)
            out[lo:hi][nonempty] = sums
        lo = hi
    return out


class KeyIndex:
    """The first row holding a key (rows in ascending order win, like ``dict.setdefault``)."""

    def __init__(self, keys: pa.Array | pa.ChunkedArray, rows: np.ndarray | None = None):
        """``keys``: Arrow strings (nulls never match); ``rows``: the row each key stands for
        (default: its position)."""
        if isinstance(keys, pa.ChunkedArray):
            keys = keys.combine_chunks()
        if not pa.types.is_string(keys.type):
            keys = keys.cast(pa.string())
        rows = np.arange(len(keys), dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        if len(rows) != len(keys):
            raise ValueError(f"{len(keys)} keys but {len(rows)} rows")
        valid = np.asarray(keys.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        pos = np.flatnonzero(valid)
        h = hash_keys(keys)[pos]
        order = np.lexsort((rows[pos], h))
        self._keys = keys
        self._hash = h[order]
        self._pos = pos[order]             # position in ``keys`` (to confirm the key)
        self._rows = rows[pos][order]
        self._recent: dict[str, int | None] = {}

    def get(self, key: str, default: int | None = None) -> int | None:
        if not isinstance(key, str) or not len(self._hash):
            return default
        r = self._recent.get(key, _MISSING)
        if r is _MISSING:
            r = self._lookup(key)
            if len(self._recent) >= RECENT:        # bounded: sessions keep asking about the same nodes
                self._recent.clear()
            self._recent[key] = r
        return default if r is None else r  # type: ignore[return-value]  # _MISSING never returned

    def _lookup(self, key: str) -> int | None:
        h = hash_key(key)
        hashes = self._hash
        j = int(hashes.searchsorted(h, "left"))
        while j < len(hashes) and hashes[j] == h:
            if self._keys[int(self._pos[j])].as_py() == key:
                return int(self._rows[j])
            j += 1
        return None

    def get_many(self, keys: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Rows of many keys at once (-1 where absent or null)."""
        if isinstance(keys, pa.ChunkedArray):
            keys = keys.combine_chunks()
        if not pa.types.is_string(keys.type):
            keys = keys.cast(pa.string())
        out = np.full(len(keys), -1, np.int64)
        if not len(keys) or not len(self._hash):
            return out
        h = hash_keys(keys)
        j = np.minimum(np.searchsorted(self._hash, h, "left"), len(self._hash) - 1)
        hit = self._hash[j] == h
        idx = np.flatnonzero(hit)
        same = pc.equal(self._keys.take(pa.array(self._pos[j[idx]])), keys.take(pa.array(idx)))
        same = np.asarray(same.fill_null(False).to_numpy(zero_copy_only=False), bool)
        out[idx[same]] = self._rows[j[idx[same]]]
        for i in idx[~same].tolist():         # a hash collision: look further along its range
            r = self._lookup(keys[i].as_py())
            out[i] = -1 if r is None else r
        return out

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
    """Read-only list-like view of one Arrow column: ``col[i]`` is a Python value.

    A column of a small shard (up to LIST_ROWS rows) becomes a Python list when first read:
    ranking reads ~500 cells a search and an Arrow scalar's ``as_py`` costs ~1 us each. A large
    shard's column of few distinct values (kind, path, language: at most one in REPEATS rows is new)
    becomes numpy codes into a list of its values, ~0.15 us a cell; any other large column stays
    Arrow (a list of 10^6 strings would cost ~100 MB), ~0.5 us a cell or one ``take``."""
    LIST_ROWS = 250_000
    REPEATS = 4
    SAMPLE_ROWS = 16_384       # rows (evenly spaced) counted before a full encode

    def __init__(self, array: pa.Array | pa.ChunkedArray):
        if isinstance(array, pa.ChunkedArray):
            array = array.chunk(0) if array.num_chunks == 1 else array.combine_chunks()
        self.array = array
        self._list: list | None = None
        self._codes: np.ndarray | None = None
        self._code_of: dict | None = None     # value -> code (with the codes), for equals()
        self._tried = False

    def _prepare(self) -> None:
        """On first read: a list (small column) or codes (large column of repeated values). A
        large column is dictionary-encoded unless an evenly spaced sample of it repeats less than
        half as often as a column at the REPEATS bound would (encoding 10^6 distinct ids or
        summaries cost ~0.5-1 s and a copy, then was thrown away). Set in
        the order a reader beside this one can use: the codes before their values, ``_tried`` last."""
        if len(self.array) <= self.LIST_ROWS:
            self._list = self.array.to_pylist()
        elif pa.types.is_string(self.array.type) or pa.types.is_large_string(self.array.type):
            n, m = len(self.array), self.SAMPLE_ROWS
            part = self.array.take(pa.array(np.linspace(0, n - 1, m).astype(np.int64)))
            repeats = m - pc.count_distinct(part, mode="all").as_py()
            x = self.REPEATS * m / n            # a column at the REPEATS bound shows ~m (1 - (1 - e^-x) / x)
            if repeats >= 0.5 * m * (1 - (1 - math.exp(-x)) / x):      # repeats in the sample; fewer: ~unique
                enc = pc.dictionary_encode(self.array)
                if len(enc.dictionary) * self.REPEATS <= len(self.array):
                    values = enc.dictionary.to_pylist() + [None]        # nulls: code -1
                    self._codes = enc.indices.fill_null(-1).to_numpy()
                    self._code_of = {**{v: i for i, v in enumerate(values[:-1])}, None: -1}
                    self._list = values
        self._tried = True

    def __getitem__(self, i: int):
        if not self._tried:
            self._prepare()
        if self._list is None:
            return self.array[int(i)].as_py()
        if self._codes is not None:
            return self._list[self._codes[i]]
        return self._list[i]

    def peek(self, i: int):
        """``col[i]`` without preparing the column: a column nobody reads cell by cell (a record's
        other fields) is not listed or encoded for one read (~1 us through Arrow instead)."""
        if not self._tried:
            return self.array[int(i)].as_py()
        return self[i]

    def take(self, rows) -> list:
        """The values at many rows at once (one Arrow take on a large column: ~1 us a cell less
        than reading them one by one)."""
        if not self._tried:
            self._prepare()
        if self._list is None:
            return self.array.take(pa.array(rows, pa.int64())).to_pylist()
        if self._codes is not None:
            vals = self._list
            return [vals[c] for c in self._codes[np.asarray(rows, np.int64)].tolist()]
        vals = self._list
        return [vals[i] for i in rows]

    def codes(self) -> tuple[np.ndarray, list] | None:
        """(each row's code, the values the codes index: code -1 is None) of a large column of
        repeated values (``equals`` compares them), else None."""
        if not self._tried:
            self._prepare()
        if self._codes is None or self._list is None:
            return None
        return self._codes, self._list

    def equals(self, rows, value) -> np.ndarray:
        """Mask of the rows whose value is ``value`` (a large column of few values compares codes)."""
        if not self._tried:
            self._prepare()
        if self._codes is not None and self._code_of is not None:
            return self._codes[np.asarray(rows, np.int64)] == self._code_of.get(value, -2)
        return np.fromiter((v == value for v in self.take(rows)), bool, len(rows))

    def __len__(self) -> int:
        return len(self.array)

    def __iter__(self):
        return iter(self.array.to_pylist())


__all__ = ["KeyIndex", "Column", "hash_key", "hash_keys"]
