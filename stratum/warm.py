"""The warm tier's files: built by the pipeline beside each published version, loaded by shards.

``build_warm`` writes, under ``indexes/vNNNNNN/``, the HNSW vector index, the BM25 keyword index
and the CSR adjacency, all keyed by the row numbers of the nodes dataset (the pipeline writes
nodes in the same order). ``WarmIndexes.load`` memory-maps them, so a shard loads in seconds and
never rebuilds an index at load time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from stratum import schema as S
from stratum.errors import ModelMismatch, StoreError

ACTIVE = "active"


def _searchable(n: dict) -> bool:
    """Withdrawn notes (superseded, retracted, orphaned) stop ranking; the repo node never ranks."""
    if n["kind"] in S.NOTE_KINDS:
        return (n.get("status") or ACTIVE) == ACTIVE
    return n["kind"] != "repo"


def build_warm(out_dir: Path, nodes: list[dict], edges: list[dict], *, root: Path) -> dict:
    """Build and save the warm indexes for ``nodes`` (in dataset row order); returns manifest info."""
    from stratum.graph import Graph
    from stratum.keywordindex import KeywordIndex, node_names, node_text
    from stratum.vectorindex import VectorIndex

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = [_searchable(n) for n in nodes]
    kw = KeywordIndex.build([node_text(n) if k else "" for n, k in zip(nodes, ok)],
                            [node_names(n) if k else [] for n, k in zip(nodes, ok)])
    kw.save(out_dir / "keyword")
    info = {"dir": str(out_dir.relative_to(root)), "rows": len(nodes), "keyword": True, "vector": False}
    present = np.array([k and n.get("vector") is not None for n, k in zip(nodes, ok)], dtype=bool)
    if present.any():
        dim = len(next(n["vector"] for n, p in zip(nodes, present) if p))
        mat = np.zeros((len(nodes), dim), dtype=np.float32)
        for i in np.flatnonzero(present):
            mat[i] = nodes[i]["vector"]
        VectorIndex.build(mat, present=present).save(out_dir / "vector")
        info["vector"] = True
    etab = S.to_table(edges, S.EDGES) if edges else S.to_table([], S.EDGES)
    g = Graph.from_edges(etab.select(["src", "dst", "kind", "weight"]), [n["id"] for n in nodes])
    g.save(out_dir / "graph")
    info["edges"] = g.n_edges
    info["edges_dropped"] = g.dropped
    (out_dir / "warm.json").write_text(json.dumps(info, indent=1, sort_keys=True))
    return info


class WarmIndexes:
    """The loaded warm tier of one shard: searcher + adjacency (+ co-change edge attributes)."""

    def __init__(self, searcher, graph, snapshot, row_of_id):
        self.searcher = searcher
        self.graph = graph
        self._snapshot = snapshot
        self._row_of = row_of_id
        self._cochange: dict | None = None

    @classmethod
    def load(cls, root: Path, manifest, meta: pa.Table, *, snapshot=None, embedder=None,
             row_of_id=None) -> "WarmIndexes":
        from stratum.graph import Graph
        from stratum.keywordindex import KeywordIndex
        from stratum.search import HybridSearcher
        from stratum.vectorindex import VectorIndex

        info = manifest.indexes or {}
        if "dir" not in info:
            raise StoreError(f"published version {manifest.version} of {root} has no warm indexes; re-index")
        d = Path(root) / info["dir"]
        try:
            graph = Graph.load(d / "graph")
            kw = KeywordIndex.load(d / "keyword")
            vec = VectorIndex.load(d / "vector") if info.get("vector") else None
        except (OSError, ValueError) as e:
            raise StoreError(f"warm indexes in {d} are unreadable ({e}); re-index with `stratum index`") from None
        if vec is not None and embedder is not None and manifest.embedding:
            _check_model(manifest.embedding, embedder)
        searcher = HybridSearcher(meta, vec, kw, embedder if vec is not None else None)
        if row_of_id is None:
            from stratum.keyindex import KeyIndex

            row_of_id = KeyIndex(meta.column("id"))
        return cls(searcher, graph, snapshot, row_of_id)

    # ---- graph --------------------------------------------------------------------------------
    def graph_neighbors(self, row: int, kinds: tuple[str, ...], direction: str) -> list[tuple[int, str, str, float]]:
        nb = self.graph.neighbors(row, kinds, direction)
        names = self.graph.kind_names
        return [(int(r), names[int(k)], "out" if o else "in", float(w))
                for r, k, w, o in zip(nb.rows, nb.kinds, nb.weights, nb.outgoing)]

    def edge_attrs(self, src: int, dst: int, kind: str) -> dict:
        """Support, confidences, lift and last time of a co-change edge (either direction)."""
        if kind != "cochange" or self._snapshot is None:
            return {}
        if self._cochange is None:
            self._cochange = self._load_cochange()
        keys, table = self._cochange
        for a, b, conf in ((src, dst, "confidence_fwd"), (dst, src, "confidence_bwd")):
            i = int(np.searchsorted(keys, (a << 32) | b))
            if i < len(keys) and keys[i] == (a << 32) | b:
                r = table.slice(i, 1).to_pylist()[0]
                return {"support": r["support"], "confidence": r[conf], "lift": r["lift"],
                        "last_time": r["last_time"]}
        return {}

    def _load_cochange(self) -> tuple[np.ndarray, pa.Table]:
        """Co-change edge attributes keyed by (src row << 32 | dst row), sorted: one read of the
        edges dataset, no Python object per edge (1.2M co-change edges at 1M nodes)."""
        t = self._snapshot.read("edges", columns=["src", "dst", "support", "confidence_fwd",
                                                  "confidence_bwd", "lift", "last_time"],
                                where="kind = 'cochange'")
        a, b = self._row_of.get_many(t.column("src")), self._row_of.get_many(t.column("dst"))
        ok = np.flatnonzero((a >= 0) & (b >= 0))
        keys = (a[ok] << 32) | b[ok]
        order = np.argsort(keys, kind="stable")
        return keys[order], t.take(pa.array(ok[order]))

    # ---- search -------------------------------------------------------------------------------
    def search(self, query: str, *, kinds=(), path_prefix="", language="", limit=10, offset=0, extra_docs=()):
        from stratum.search import ExtraDoc

        docs = [ExtraDoc(d["id"], d["text"], d.get("vector"), d["kind"], d.get("path") or "", d.get("language") or "")
                for d in extra_docs]
        return self.searcher.search(query, kinds=kinds, path_prefix=path_prefix, language=language,
                                    limit=limit, offset=offset, extra_docs=docs)


def _check_model(stored: dict, embedder) -> None:
    info = embedder.model_info() if hasattr(embedder, "model_info") else None
    if info and stored.get("weights_hash") and info.get("weights_hash") != stored.get("weights_hash"):
        raise ModelMismatch(
            f"the store's vectors come from {stored.get('model')} ({stored.get('weights_hash', '')[:12]}), "
            f"the query embedder is {info.get('model')} ({info.get('weights_hash', '')[:12]}): "
            "re-index with the same model, or serve with the model the store was built with")
