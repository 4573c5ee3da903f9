"""The rows a query's filters allow, and the node columns they and the fusion's ties read.

Why apart from ``stratum.search``: a filter is resolved once per query against columns held in RAM
(``NodeMeta``: ids, kind/language/path codes, sorted paths), and the same objects serve the notes'
tie places (``noteplaces``) and the benchmarks; the searcher only asks a ``RowFilter`` which rows
pass, how selective it is and whether the allowed set is small enough to score exhaustively.
"""

from __future__ import annotations

import bisect
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum import schema as S
from stratum.errors import InvalidArgument
from stratum.keyindex import Column

EXACT_LIMIT = 2048         # allowed sets up to this size are scored exhaustively (~1 ms; e4.md)
MATERIALIZE_LIMIT = 131072 # a filter dimension this small is listed row by row (< 1 ms) to learn the exact set
ID_LIST_ROWS = Column.LIST_ROWS   # node tables this small keep their ids as a Python list (~20 MB at most)


class NodeMeta:
    """The columns filters and ties need, held in RAM: ids, kind/language codes, sorted paths."""

    def __init__(self, table: pa.Table):
        for col in ("id", "kind", "path"):
            if col not in table.column_names:
                raise InvalidArgument(f"node metadata needs an {col!r} column")
        self.n = table.num_rows
        self.ids = table.column("id").combine_chunks()
        self.kind_names, self.kind_code, self.kind_order, self.kind_cum = _codes(table.column("kind"))
        lang = table.column("language") if "language" in table.column_names else pa.nulls(self.n, pa.string())
        lang = pc.utf8_lower(pc.fill_null(lang.cast(pa.string()), ""))
        self.lang_names, self.lang_code, self.lang_order, self.lang_cum = _codes(lang)
        self.path_names, self.path_code, self.path_order, self.path_cum = _codes(table.column("path"))
        order = pc.sort_indices(self.ids).to_numpy()
        self.id_rank = np.empty(self.n, dtype=np.int64)        # row -> position in id order (ties)
        self.id_rank[order] = np.arange(self.n)
        self._id_order = order
        # ids as Python strings for a small shard (Column's own policy, keyindex.LIST_ROWS); a large
        # one slices the Arrow buffers: pyarrow's take + to_pylist cost ~0.16 ms for a 150-deep
        # list at 1M nodes between a search's other work (cold dispatch), ~3x the slicing
        self._id_list: list[str] | None = None
        self._sorted_ids: list[str] | None = None
        self._id_off = self._id_data = None
        if self.n <= ID_LIST_ROWS:
            self._id_list = self.ids.to_pylist()
            # the same strings in id order (8 bytes a row): a note's place is one bisect in C
            self._sorted_ids = list(map(self._id_list.__getitem__, order.tolist()))
        elif self.ids.null_count == 0 and self.ids.type in (pa.string(), pa.large_string()):
            bufs = self.ids.buffers()
            width = np.int32 if self.ids.type == pa.string() else np.int64
            self._id_off = np.frombuffer(bufs[1], width)[self.ids.offset:self.ids.offset + self.n + 1]
            self._id_data = memoryview(bufs[2]) if bufs[2] is not None else memoryview(b"")

    def ids_of(self, rows: np.ndarray) -> list[str]:
        if self._id_list is not None:
            return list(map(self._id_list.__getitem__, np.asarray(rows).tolist()))
        if self._id_off is not None and self._id_data is not None:
            rows = np.asarray(rows, dtype=np.int64)
            data = self._id_data
            starts, ends = self._id_off[rows].tolist(), self._id_off[rows + 1].tolist()
            return [str(data[a:b], "utf-8") for a, b in zip(starts, ends)]
        return pc.take(self.ids, pa.array(np.asarray(rows, dtype=np.int64))).to_pylist()

    def _id_at(self, row: int) -> str:
        if self._id_list is not None:
            return self._id_list[row]
        if self._id_off is not None and self._id_data is not None:
            return str(self._id_data[int(self._id_off[row]):int(self._id_off[row + 1])], "utf-8")
        return self.ids[row].as_py()

    @property
    def bisects(self) -> bool:
        """``id_position`` is one bisect (~1 us), not a binary search over Arrow strings."""
        return self._sorted_ids is not None

    def id_position(self, node_id: str) -> int:
        """How many shard ids sort before ``node_id`` (a bisect of the sorted ids in a small shard,
        else a binary search over the id order)."""
        if self._sorted_ids is not None:
            return bisect.bisect_left(self._sorted_ids, node_id)
        order = self._id_order
        lo, hi = 0, self.n
        while lo < hi:
            mid = (lo + hi) // 2
            if self._id_at(int(order[mid])) < node_id:
                lo = mid + 1
            else:
                hi = mid
        return lo


def _codes(column) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct values, each row's code, rows ordered by code, cumulative counts per code."""
    col = pc.fill_null(column.cast(pa.string()), "")
    names = pc.unique(col).sort().to_pylist() if isinstance(col, pa.Array) else \
        pc.unique(col.combine_chunks()).sort().to_pylist()
    code = pc.index_in(col, value_set=pa.array(names, pa.string()))
    code = (code.combine_chunks() if isinstance(code, pa.ChunkedArray) else code).to_numpy(zero_copy_only=False)
    code = code.astype(np.int32)
    order = np.argsort(code, kind="stable").astype(np.int64)
    cum = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(np.bincount(code, minlength=len(names)), out=cum[1:])
    return names, code, order, cum


class RowFilter:
    """One query's filters, resolved to code ranges; cheap to build per query."""

    def __init__(self, meta: NodeMeta, kinds: Sequence[str] = (), path_prefix: str = "", language: str = "",
                 exact_limit: int = EXACT_LIMIT):
        self.meta = meta
        kinds = tuple(dict.fromkeys(kinds))
        self.active = bool(kinds or path_prefix or language)
        self.kinds = kinds
        self.path_prefix = path_prefix
        self.language = language.lower()
        self.empty = False
        self._kind_codes = self._lang_codes = None
        self._path_range = None
        if kinds:
            unknown = [k for k in kinds if k not in S.NODE_KINDS]
            if unknown:
                raise InvalidArgument(f"unknown kind {unknown[0]!r}; kinds are: {', '.join(S.NODE_KINDS)}")
            self._kind_codes = np.array([meta.kind_names.index(k) for k in kinds if k in meta.kind_names],
                                        dtype=np.int32)
        if language:
            self._lang_codes = np.array([meta.lang_names.index(self.language)]
                                        if self.language in meta.lang_names else [], dtype=np.int32)
        if path_prefix:
            lo = bisect.bisect_left(meta.path_names, path_prefix)
            hi = bisect.bisect_left(meta.path_names, path_prefix + "\U0010ffff")
            self._path_range = (lo, hi)
        # count per dimension, to pick the most selective one
        counts = []
        if self._kind_codes is not None:
            counts.append(("kind", int(sum(meta.kind_cum[c + 1] - meta.kind_cum[c] for c in self._kind_codes))))
        if self._lang_codes is not None:
            counts.append(("lang", int(sum(meta.lang_cum[c + 1] - meta.lang_cum[c] for c in self._lang_codes))))
        if self._path_range is not None:
            lo, hi = self._path_range
            counts.append(("path", int(meta.path_cum[hi] - meta.path_cum[lo])))
        self.allowed_rows: np.ndarray | None = None     # the exact allowed set, when it was cheap to list
        self.small = False                               # ... and small enough to score exhaustively
        self.selectivity = 1.0
        if not counts:
            return
        self.empty = min(c for _, c in counts) == 0
        sel = 1.0
        for _, c in counts:
            sel *= c / max(meta.n, 1)
        self.selectivity = sel
        dim, smallest = min(counts, key=lambda x: x[1])
        if smallest <= max(exact_limit, MATERIALIZE_LIMIT):
            # the most selective dimension is a slice of its sort order; the others check it
            rows = self._rows_of(dim)
            self.allowed_rows = np.sort(rows[self.predicate(rows)] if len(counts) > 1 else rows)
            self.selectivity = len(self.allowed_rows) / max(meta.n, 1)
            self.empty = len(self.allowed_rows) == 0
        self.small = self.allowed_rows is not None and len(self.allowed_rows) <= exact_limit

    def kind_rows(self, kind: str) -> np.ndarray:
        """Rows of one node kind (a slice of the kind order; empty for a kind the shard lacks)."""
        m = self.meta
        if kind not in m.kind_names:
            return np.empty(0, np.int64)
        c = m.kind_names.index(kind)
        return m.kind_order[m.kind_cum[c]:m.kind_cum[c + 1]]

    def _rows_of(self, dim: str) -> np.ndarray:
        m = self.meta
        if dim == "path":
            assert self._path_range is not None         # a dimension is asked only when it filters
            lo, hi = self._path_range
            return m.path_order[m.path_cum[lo]:m.path_cum[hi]]
        order, cum, codes = (m.kind_order, m.kind_cum, self._kind_codes) if dim == "kind" else \
            (m.lang_order, m.lang_cum, self._lang_codes)
        parts = [order[cum[c]:cum[c + 1]] for c in (codes if codes is not None else ())]
        return np.concatenate(parts) if parts else np.empty(0, np.int64)

    def predicate(self, rows: np.ndarray) -> np.ndarray:
        m = self.meta
        ok = np.ones(len(rows), dtype=bool)
        if self._kind_codes is not None:
            ok &= np.isin(m.kind_code[rows], self._kind_codes)
        if self._lang_codes is not None:
            ok &= np.isin(m.lang_code[rows], self._lang_codes)
        if self._path_range is not None:
            pcode = m.path_code[rows]
            ok &= (pcode >= self._path_range[0]) & (pcode < self._path_range[1])
        return ok


__all__ = ["NodeMeta", "RowFilter", "EXACT_LIMIT", "MATERIALIZE_LIMIT", "ID_LIST_ROWS"]
