"""The adjacency used by ``walk``: compressed sparse rows over node row numbers, both directions.

Why CSR in numpy: a one-hop walk is then two array lookups and a slice (microseconds at 5M edges),
the arrays save as ``.npy`` beside the shard and memory-map at load, and nothing is rebuilt when a
shard opens. Lance keeps the edges table as the source of truth; this is a read-only view of one
published version.

Within a node, edges are ordered by kind, then weight (descending), then neighbour row, so a walk's
order is deterministic and the strongest co-change partners come first.

Files written by ``save(dir)``::

    graph.{out,in}.ptr.npy     int64 offsets per row (n_rows + 1)
    graph.{out,in}.nbr.npy     int32 neighbour rows
    graph.{out,in}.kind.npy    int8 edge kind codes (graph.json names them)
    graph.{out,in}.weight.npy  float32 weights (1.0 where the edge has none)
    graph.json                 counts, kind names, dropped dangling edges, format version
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum import npyio
from stratum import schema as S
from stratum.errors import InvalidArgument, StoreDamaged, StoreError

FORMAT = 1
DIRECTIONS = S.DIRECTIONS
_PARTS = ("ptr", "nbr", "kind", "weight")


@dataclass(frozen=True)
class Neighbors:
    rows: np.ndarray        # int64 neighbour rows
    kinds: np.ndarray       # int8 edge kind codes (Graph.kind_names[code])
    weights: np.ndarray     # float32
    outgoing: np.ndarray    # bool: True when the edge points from the asked row to the neighbour

    def __len__(self) -> int:
        return len(self.rows)


class Graph:
    """Both directions of the edge list, as CSR arrays over node rows."""

    def __init__(self, arrays: dict[str, np.ndarray], kind_names: Sequence[str], n_rows: int,
                 dropped: int = 0):
        self.a = arrays
        self.kind_names = tuple(kind_names)
        self.n_rows = int(n_rows)
        self.n_edges = int(len(arrays["out.nbr"]))
        self.dropped = int(dropped)
        self._codes = {k: i for i, k in enumerate(self.kind_names)}

    # ---- building ----------------------------------------------------------------------------
    @classmethod
    def build(cls, src: np.ndarray, dst: np.ndarray, kinds: np.ndarray, weights: np.ndarray | None,
              n_rows: int, kind_names: Sequence[str] = S.EDGE_KINDS, dropped: int = 0) -> "Graph":
        """Edges ``src[i] -> dst[i]`` of kind code ``kinds[i]`` between rows in ``[0, n_rows)``."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        kinds = np.asarray(kinds, dtype=np.int8)
        if not (len(src) == len(dst) == len(kinds)):
            raise InvalidArgument("src, dst and kinds must have the same length")
        if len(kinds) and int(kinds.min()) < 0:
            raise InvalidArgument("edge kind codes must be >= 0")
        if len(src) and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n_rows):
            raise InvalidArgument(f"edge endpoints must be rows in [0, {n_rows})")
        w = np.ones(len(src), np.float32) if weights is None else np.asarray(weights, dtype=np.float32)
        w = np.where(np.isnan(w), np.float32(1.0), w).astype(np.float32)
        arrays: dict[str, np.ndarray] = {}
        same_w = not len(w) or bool(w.min() == w.max())
        for name, a, b in (("out", src, dst), ("in", dst, src)):
            # by row, kind, weight (descending), neighbour; row and kind in one key, and no
            # weight key when every weight is equal (the same order, fewer sorting passes)
            row_kind = (a << 7) | kinds.astype(np.int64)
            order = np.lexsort((b, row_kind)) if same_w else np.lexsort((b, -w, row_kind))
            ptr = np.zeros(n_rows + 1, dtype=np.int64)
            np.cumsum(np.bincount(a, minlength=n_rows), out=ptr[1:])
            arrays[f"{name}.ptr"] = ptr
            arrays[f"{name}.nbr"] = b[order].astype(np.int32)
            arrays[f"{name}.kind"] = kinds[order]
            arrays[f"{name}.weight"] = w[order]
        return cls(arrays, kind_names, n_rows, dropped)

    @classmethod
    def from_edges(cls, edges: pa.Table, node_ids: pa.Array | pa.ChunkedArray | Sequence[str]) -> "Graph":
        """Build from an edges table (schema.EDGES: src, dst, kind, weight) and the node ids in row
        order (row i has id ``node_ids[i]``). Edges whose ends are not nodes are dropped and
        counted in ``dropped``; kinds outside schema.EDGE_KINDS get codes after the known ones."""
        ids = node_ids if isinstance(node_ids, (pa.Array, pa.ChunkedArray)) else pa.array(list(node_ids), pa.string())
        if isinstance(ids, pa.ChunkedArray):
            ids = ids.combine_chunks()
        n_rows = len(ids)
        # both ends looked up in one call: index_in builds its hash set of the ids per call
        sc, dc = edges.column("src"), edges.column("dst")
        ends = pc.index_in(pa.chunked_array(sc.chunks + dc.chunks, sc.type), value_set=ids)
        src, dst = ends.slice(0, len(edges)), ends.slice(len(edges))
        ok = pc.and_(pc.is_valid(src), pc.is_valid(dst))
        kind_col = edges.column("kind")
        seen = [k for k in pc.unique(kind_col).to_pylist() if k is not None]
        names = list(S.EDGE_KINDS) + sorted(set(seen) - set(S.EDGE_KINDS))
        if len(names) > 127:
            raise InvalidArgument(f"{len(names)} edge kinds: at most 127 are supported")
        codes = pc.index_in(kind_col, value_set=pa.array(names, pa.string()))
        keep = pc.and_(ok, pc.is_valid(codes))
        dropped = len(edges) - (pc.sum(keep).as_py() or 0)

        def col(a):
            return pc.filter(a, keep).to_numpy(zero_copy_only=False)

        weights = pc.filter(edges.column("weight"), keep).to_numpy(zero_copy_only=False) \
            if "weight" in edges.column_names else None
        return cls.build(col(src), col(dst), col(codes), None if weights is None else weights.astype(np.float32),
                         n_rows, names, dropped)

    def save(self, directory: str | os.PathLike) -> list[str]:
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        files = []
        for key, arr in self.a.items():
            npyio.save(d / f"graph.{key}.npy", np.ascontiguousarray(arr))
            files.append(f"graph.{key}.npy")
        meta = {"format": FORMAT, "n_rows": self.n_rows, "n_edges": self.n_edges,
                "kind_names": list(self.kind_names), "dropped": self.dropped}
        (d / "graph.json").write_text(json.dumps(meta, indent=1, sort_keys=True))
        return files + ["graph.json"]

    @classmethod
    def load(cls, directory: str | os.PathLike, *, mmap: bool = True) -> "Graph":
        d = Path(directory)
        try:
            meta = json.loads((d / "graph.json").read_text())
        except FileNotFoundError:
            raise StoreError(f"no graph in {d}: it is built by `stratum index`") from None
        if meta.get("format") != FORMAT:
            raise StoreError(f"graph in {d} has format {meta.get('format')}, this build reads {FORMAT}")
        arrays = {f"{side}.{part}": npyio.load(d / f"graph.{side}.{part}.npy", mmap_mode="r" if mmap else None)
                  for side in ("out", "in") for part in _PARTS}
        bad = _structure_fault(arrays, int(meta["n_rows"]), int(meta["n_edges"]), len(meta["kind_names"]))
        if bad:
            raise StoreDamaged(f"graph files in {d} are damaged ({bad}): rebuild them with `stratum repair`")
        return cls(arrays, meta["kind_names"], meta["n_rows"], meta.get("dropped", 0))

    # ---- walking -----------------------------------------------------------------------------
    def kind_codes(self, kinds: Iterable[str | int]) -> np.ndarray:
        """Codes for kind names (unknown names are an InvalidArgument listing the known ones)."""
        out = []
        for k in kinds:
            if isinstance(k, (int, np.integer)):
                out.append(int(k))
            elif k in self._codes:
                out.append(self._codes[k])
            else:
                raise InvalidArgument(f"unknown edge kind {k!r}; known: {', '.join(self.kind_names)}")
        return np.asarray(out, dtype=np.int8)

    def neighbors(self, row: int, kinds: Iterable[str | int] = (), direction: str = "out") -> Neighbors:
        """One hop from ``row``: edges of the given kinds (all when empty) in one or both directions."""
        if direction not in DIRECTIONS:
            raise InvalidArgument(f"direction must be one of {', '.join(DIRECTIONS)}, not {direction!r}")
        if not 0 <= row < self.n_rows:
            raise InvalidArgument(f"row {row} is outside [0, {self.n_rows})")
        codes = self.kind_codes(kinds)
        sides = ("out", "in") if direction == "both" else (direction,)
        parts = []
        for side in sides:
            ptr = self.a[f"{side}.ptr"]
            s, e = int(ptr[row]), int(ptr[row + 1])
            nbr = self.a[f"{side}.nbr"][s:e]
            kd = self.a[f"{side}.kind"][s:e]
            wt = self.a[f"{side}.weight"][s:e]
            if len(codes):
                # a row has a handful of edges: np.isin's ~20 us set-up was most of a one-hop walk
                m = (kd == codes[0]) if len(codes) == 1 else (np.asarray(kd)[:, None] == codes).any(axis=1)
                nbr, kd, wt = nbr[m], kd[m], wt[m]
            parts.append((np.asarray(nbr, np.int64), np.asarray(kd), np.asarray(wt),
                          np.full(len(nbr), side == "out")))
        if len(parts) == 1:
            return Neighbors(*parts[0])
        return Neighbors(*(np.concatenate([p[i] for p in parts]) for i in range(4)))

    def degree(self, row: int, direction: str = "out") -> int:
        if direction == "both":
            return self.degree(row, "out") + self.degree(row, "in")
        ptr = self.a[f"{direction}.ptr"]
        return int(ptr[row + 1] - ptr[row])

    def degrees(self, rows: np.ndarray) -> np.ndarray:
        """Edges of every kind at each row, both directions (one gather per side)."""
        rows = np.asarray(rows, np.int64)
        out, inn = self.a["out.ptr"], self.a["in.ptr"]
        return (out[rows + 1] - out[rows]) + (inn[rows + 1] - inn[rows])


def _structure_fault(a: dict[str, np.ndarray], n_rows: int, n_edges: int, n_kinds: int) -> str:
    """What makes these arrays unsafe to walk (offsets out of order, a row or kind out of range),
    or "". One pass over each array: tens of milliseconds at 5M edges, so a flipped byte that
    escaped a quick checksum check cannot turn a walk into an IndexError."""
    for side in ("out", "in"):
        ptr = a[f"{side}.ptr"]
        if len(ptr) != n_rows + 1 or (n_rows >= 0 and (int(ptr[0]) != 0 or int(ptr[-1]) != n_edges)):
            return f"{side}.ptr does not span the {n_edges} edges"
        if n_rows and bool(np.any(np.diff(ptr) < 0)):
            return f"{side}.ptr is not ascending"
        for part in ("nbr", "kind", "weight"):
            if len(a[f"{side}.{part}"]) != n_edges:
                return f"{side}.{part} has {len(a[f'{side}.{part}'])} entries, expected {n_edges}"
        if n_edges:
            nbr, kind = a[f"{side}.nbr"], a[f"{side}.kind"]
            if int(nbr.min()) < 0 or int(nbr.max()) >= n_rows:
                return f"{side}.nbr holds a row outside [0, {n_rows})"
            if int(kind.min()) < 0 or int(kind.max()) >= n_kinds:
                return f"{side}.kind holds an unknown edge kind code"
    return ""


__all__ = ["Graph", "Neighbors", "DIRECTIONS"]
