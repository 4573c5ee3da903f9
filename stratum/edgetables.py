"""Edge attributes a loaded shard reads from its edges dataset on first use, keyed by
(src row << 32 | dst row) and sorted, so a lookup is a binary search over an int64 array: the
co-change columns (``warm.WarmIndexes``) and how a calls/inherits edge was linked (``LinkMeta``).
"""

from __future__ import annotations

import json
import threading

import numpy as np
import pyarrow as pa


def edges_keyed(snapshot, row_of, where: str, columns: list[str]) -> tuple[np.ndarray, pa.Table]:
    """The edges ``where`` selects (a Lance filter) between rows ``row_of`` knows, keyed (src row
    << 32 | dst row) and sorted by key, with their ``columns`` in that order."""
    t = snapshot.read("edges", columns=["src", "dst", *columns], where=where)
    a, b = row_of.get_many(t.column("src")), row_of.get_many(t.column("dst"))
    ok = np.flatnonzero((a >= 0) & (b >= 0))
    keys = (a[ok] << 32) | b[ok]
    order = np.argsort(keys, kind="stable")
    return keys[order], t.take(pa.array(ok[order]))


class LinkMeta:
    """``link_meta(src, dst)``: how a calls or inherits edge was resolved and the call as written
    (``pipeline.calls``: how, as, line), or a tests edge's rule (``by``: name, import or use), or {};
    the edges' meta is read once, when first asked."""

    def __init__(self, snapshot, row_of):
        self._snapshot, self._row_of = snapshot, row_of
        self._got: tuple[np.ndarray, pa.Array] | None = None
        self._lock = threading.Lock()

    def __call__(self, src: int, dst: int) -> dict:
        if self._snapshot is None:
            return {}
        got = self._got
        if got is None:
            with self._lock:
                if self._got is None:
                    keys, t = edges_keyed(self._snapshot, self._row_of, "kind IN ('calls', 'inherits', 'tests')", ["meta"])
                    self._got = keys, t.column("meta").combine_chunks()
                got = self._got
        keys, metas = got
        want = (src << 32) | dst
        i = int(keys.searchsorted(want))
        if i >= len(keys) or keys[i] != want or not metas[i].is_valid:
            return {}
        return json.loads(metas[i].as_py())


__all__ = ["edges_keyed", "LinkMeta"]
