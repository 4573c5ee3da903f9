"""Lance's own indexes (ANN on the vectors, full text on code-aware tokens, scalar filters), for
comparison with the warm tier.

Not a serving path: nothing in stratum/, pipeline/ or serving/ builds or queries these indexes
(serving answers from the warm tier, which is rebuilt from Lance when damaged: stratum.warm,
`stratum repair`). It lives here because the E4 benchmark (benchmarks/e4_synthetic.py) and one
test measure Lance side by side with the warm tier: at 1M nodes it answers in milliseconds, not
the warm tier's fraction of one (docs/bench/e4.md).

Full text: Lance's tokenizers split on punctuation but not camelCase, so the pipeline stores each
node's tokens from ``stratum.codetokens.tokenize`` (whole compounds, identifiers and their words)
in the ``keywords`` column, and the FTS index uses the whitespace tokenizer with no stemming, stop
words or folding: Lance sees exactly the tokens the warm BM25 index sees. Queries are tokenized the
same way before they are sent.

Vectors: the index type and its parameters are chosen by measured recall and latency at 1M
(e4.md); tables too small for IVF training are left to Lance's exact scan, which is fast there.

Scalar: bitmap indexes on ``kind`` and ``language`` (few distinct values), a B-tree on ``path``.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
import pyarrow as pa

from stratum.errors import InvalidArgument, StoreError
from stratum.codetokens import node_text, tokenize

MIN_ROWS_FOR_ANN = 10_000       # below this an exact scan is about as fast as an index


@dataclass(frozen=True)
class LanceIndexParams:
    vector_index: str = "IVF_HNSW_SQ"   # or IVF_PQ; see e4.md for the measured comparison
    num_partitions: int | None = None   # None: IVF_PQ -> rows / 4096; IVF_HNSW_SQ -> rows / 100k (min 1)
    num_sub_vectors: int = 48           # IVF_PQ: 384 / 48 = 8 dims per sub-vector
    m: int = 16                         # IVF_HNSW_*: graph degree
    ef_construction: int = 150
    max_iterations: int = 20            # k-means rounds (IVF centroids, PQ codebooks); training cost is
                                        # linear in it and the codebooks barely move after ~20
    fts: bool = True
    scalar: bool = True


def keyword_text(rec: dict) -> str:
    """The ``keywords`` value of one node record: its code-aware tokens, space separated."""
    return " ".join(tokenize(node_text(rec)))


def with_keywords(nodes: pa.Table) -> pa.Table:
    """``nodes`` with the ``keywords`` column filled from its other columns (call before writing)."""
    cols = [c for c in ("kind", "path", "name", "qualname", "signature", "doc", "summary", "full", "tags")
            if c in nodes.column_names]
    values = []
    for batch in nodes.select(cols).to_batches(max_chunksize=65536):
        values += [keyword_text(r) for r in batch.to_pylist()]
    arr = pa.array(values, pa.string())
    if "keywords" in nodes.column_names:
        return nodes.set_column(nodes.column_names.index("keywords"), "keywords", arr)
    return nodes.append_column("keywords", arr)


def create_indexes(table, params: LanceIndexParams = LanceIndexParams()) -> dict:
    """Create the Lance indexes on an open nodes table (lancedb Table); returns what was built and
    the seconds each took. Creating an index commits a new dataset version: publish
    ``table.version`` afterwards."""
    from lancedb.index import FTS, BTree, Bitmap, HnswSq, IvfPq

    n = table.count_rows()
    report: dict = {"rows": n, "params": asdict(params), "seconds": {}}
    if n == 0:
        return report
    names = table.schema.names
    if "vector" in names and n >= MIN_ROWS_FOR_ANN:
        with_vec = table.count_rows("vector IS NOT NULL")
        if with_vec >= MIN_ROWS_FOR_ANN:
            t = time.perf_counter()
            kind = params.vector_index
            if kind == "IVF_PQ":
                # ~4k rows per partition: sqrt(rows) (1,000 at 1M) makes k-means training the
                # dominant build cost on 2 cores
                parts = params.num_partitions or max(1, with_vec // 4096)
                cfg = IvfPq(distance_type="cosine", num_partitions=parts, num_sub_vectors=params.num_sub_vectors,
                            max_iterations=params.max_iterations)
            elif kind == "IVF_HNSW_SQ":
                parts = params.num_partitions or max(1, with_vec // 100_000)
                cfg = HnswSq(distance_type="cosine", num_partitions=parts, m=params.m,
                             ef_construction=params.ef_construction, max_iterations=params.max_iterations)
            else:
                raise InvalidArgument(f"unknown Lance vector index type {kind!r}: IVF_PQ or IVF_HNSW_SQ")
            table.create_index("vector", config=cfg, replace=True)
            report["seconds"]["vector"] = time.perf_counter() - t
            report["vector"] = {"type": kind, "num_partitions": parts}
    if params.fts and "keywords" in names:
        t = time.perf_counter()
        table.create_index("keywords", replace=True, config=FTS(
            base_tokenizer="whitespace", lower_case=False, stem=False, remove_stop_words=False,
            ascii_folding=False, max_token_length=64, with_position=False))
        report["seconds"]["fts"] = time.perf_counter() - t
    if params.scalar:
        t = time.perf_counter()
        for col, kind in (("kind", "BITMAP"), ("language", "BITMAP"), ("path", "BTREE")):
            if col in names:
                table.create_index(col, config=Bitmap() if kind == "BITMAP" else BTree(), replace=True)
        report["seconds"]["scalar"] = time.perf_counter() - t
    return report


def _quote(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def filter_clause(kinds: Sequence[str] = (), path_prefix: str = "", language: str = "") -> str | None:
    """The SQL ``where`` for the same filters the warm tier applies."""
    parts = []
    if kinds:
        parts.append(f"kind IN ({', '.join(_quote(k) for k in kinds)})")
    if path_prefix:
        esc = path_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        parts.append(f"path LIKE {_quote(esc + '%')}")
    if language:
        parts.append(f"lower(language) = {_quote(language.lower())}")
    return " AND ".join(parts) or None


class LanceSearcher:
    """Vector and keyword queries against the Lance nodes table (the cold tier)."""

    def __init__(self, table, *, nprobes: int = 20, refine_factor: int | None = None, ef: int = 64):
        self.table = table
        self.nprobes = nprobes
        self.refine_factor = refine_factor
        self.ef = ef

    def vector(self, query: np.ndarray, k: int, where: str | None = None) -> tuple[list[str], np.ndarray]:
        """Ids and cosine similarities of the ``k`` nearest nodes, best first."""
        q = self.table.search(np.asarray(query, dtype=np.float32), vector_column_name="vector") \
            .distance_type("cosine").nprobes(self.nprobes).ef(self.ef)
        if self.refine_factor:
            q = q.refine_factor(self.refine_factor)
        if where:
            q = q.where(where, prefilter=True)
        t = _run(q.select(["id", "_distance"]).limit(k))
        return t.column("id").to_pylist(), 1.0 - t.column("_distance").to_numpy()

    def keyword(self, query: str, k: int, where: str | None = None) -> tuple[list[str], np.ndarray]:
        """Ids and BM25 scores (Lance's) of the ``k`` best keyword matches."""
        tokens = tokenize(query)
        if not tokens:
            return [], np.empty(0, np.float32)
        q = self.table.search(" ".join(tokens), query_type="fts", fts_columns="keywords")
        if where:
            q = q.where(where, prefilter=True)
        t = _run(q.select(["id", "_score"]).limit(k))
        return t.column("id").to_pylist(), t.column("_score").to_numpy()


def _run(q) -> pa.Table:
    try:
        return q.to_arrow()
    except (ValueError, OSError, RuntimeError) as e:   # lance raises plain errors: translate once
        raise StoreError(f"Lance query failed: {e}") from None


__all__ = ["LanceIndexParams", "LanceSearcher", "create_indexes", "filter_clause", "keyword_text",
           "with_keywords", "MIN_ROWS_FOR_ANN"]
