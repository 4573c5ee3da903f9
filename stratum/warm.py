"""The warm tier's files: built by the pipeline beside each published version, loaded by shards.

``build_warm`` writes, under ``indexes/vNNNNNN/``, the HNSW vector index, the BM25 keyword index
and the CSR adjacency, all keyed by the row numbers of the nodes dataset (the pipeline writes
nodes in the same order). ``WarmIndexes.load`` memory-maps them, so a shard loads in seconds and
never rebuilds an index at load time. A row ``textprep.searched`` leaves out (a withdrawn note, the
repo node, a test written as a call) has an empty keyword document and no vector: it is never a
search hit, and an update from a folder that held it drops it (its document hash changes).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Collection, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum import npyio
from stratum import integrity
from stratum import schema as S
from stratum.edgetables import LinkMeta, edges_keyed
from stratum.errors import InvalidArgument, StoreDamaged, StoreError
from stratum.keywordindex import COMPILED_MIN_DOCS   # the one size from which stratum.kernels pays its import
from stratum.textprep import searched

log = logging.getLogger(__name__)
WARM_FILE = "warm.json"
AUTO_REBUILD_ROWS = 25_000      # a damaged warm tier this small is rebuilt at load (~10 s); larger: repair
OVERLAP = True                  # the vector part on a helper thread beside keyword + graph (False: in turn)
ROWS_FORMAT = 2                 # how rows.doc.npy hashes a row's document; a folder of another is not updated from


def build_warm(out_dir: Path, nodes: list[dict], edges: list[dict], *, root: Path,
               previous: Path | None = None, unchanged: Collection[str] = ()) -> dict:
    """Build and save the warm indexes for ``nodes`` (in dataset row order); returns manifest info.

    ``warm.json`` beside them records every file's size and block checksums (stratum.integrity),
    so a load can tell a damaged file from a good one before serving it. ``previous``: the warm
    folder of the version these nodes replace; its indexes are updated instead of rebuilt (what
    changed is found by id and by a hash of each row's keyword document and vector), with
    answers equal to a full build: BM25 exactly, HNSW within its approximation. A folder that
    cannot be updated from (built before this, or damaged) means a full build, said in the info.
    ``unchanged``: ids of rows that are the previous version's row of that id, unchanged in what
    their keyword document is made of (a re-index's rows of unchanged files): their document hash
    is taken from ``previous``, their text not made again (hashing every row's text was ~16% of a
    one-file re-index of sympy)."""
    out_dir = Path(out_dir)
    return _build(out_dir, nodes, edges, str(out_dir.relative_to(root)), previous, unchanged)


def _build(out_dir: Path, nodes: list[dict], edges: list[dict], rel_dir: str, previous: Path | None = None,
           unchanged: Collection[str] = ()) -> dict:
    from stratum.graph import Graph
    from stratum.keywordindex import KeywordIndex
    from stratum.codetokens import node_names, node_text
    from stratum.vectorindex import VectorIndex  # noqa: F401 - imported (compiled) here, not on the vector thread
    import usearch.index  # noqa: F401 - likewise (the vector part loads the old graph on a thread of its own)

    out_dir.mkdir(parents=True, exist_ok=True)
    clock = {"t": time.perf_counter()}
    seconds: dict[str, float] = {}

    def lap(name: str) -> None:
        now = time.perf_counter()
        seconds[name] = round(now - clock["t"], 3)
        clock["t"] = now

    ok = [searched(n) for n in nodes]     # the rest: no keyword document, no vector (textprep.searched)
    scheme = _usable(previous)
    if scheme is None:
        previous, scheme = None, (_polars_scheme() if len(nodes) >= POLARS_ROWS else BLAKE2B)
    id_hash = _hashes([n["id"] for n in nodes], scheme)
    npyio.save(out_dir / "rows.id.npy", id_hash)
    prev = _previous(previous, id_hash)
    previous = Path(previous) if previous is not None else Path()
    info = {"dir": rel_dir, "rows": len(nodes), "keyword": True, "vector": False,
            "incremental": prev is not None, "rows_format": ROWS_FORMAT, "rows_hash": scheme}
    # The vector part runs on a helper thread beside the node texts, keyword and graph parts:
    # usearch and the large numpy calls release the GIL, and an update's vector part is mostly
    # reading, adding a few thousand vectors and writing the graph (docs/bench/e4.md, warm update).
    with ThreadPoolExecutor(1, thread_name_prefix="warm-vector") as pool:
        vector_part = pool.submit(_vector_part, out_dir, nodes, ok, prev, previous)
        if not OVERLAP:
            vector_part.result()
            clock["t"] = time.perf_counter()          # its own time is seconds["vector"]
        # rows the caller knows unchanged (and the previous folder holds): no text, their old hash
        known = np.zeros(len(nodes), bool)
        if prev is not None and unchanged:
            known = np.fromiter((n["id"] in unchanged for n in nodes), bool, len(nodes)) & (prev[0] >= 0) & np.array(ok)
            info["docs_kept"] = int(known.sum())      # hashes taken from the previous folder
        texts: list[str | None] = [None if s else node_text(n) if k else "" for n, k, s in zip(nodes, ok, known)]
        # a row's document is its text and its exact keys (node_names: name, qualname, and the
        # path of a file or dir, all of them in the hashed string), so one hash tells a changed
        # row and the keys are only computed for the rows that are (re)indexed
        doc_hash = np.empty(len(nodes), np.uint64)
        todo = np.flatnonzero(~known)
        doc_hash[todo] = _hashes([f"{texts[i]}\x00{nodes[i]['kind']}\x00{nodes[i].get('name') or ''}\x00"
                                  f"{nodes[i].get('qualname') or ''}" if ok[i] else "" for i in todo.tolist()], scheme)
        if prev is not None:
            doc_hash[known] = prev[1][prev[0][known]]
        npyio.save(out_dir / "rows.doc.npy", doc_hash)
        files = ["rows.id.npy", "rows.doc.npy"]
        lap("prepare")
        if prev is not None:
            old_row, old_doc = prev
            same = old_row >= 0
            same[same] = old_doc[old_row[same]] == doc_hash[same]
            kw_row = _in_order(np.where(same, old_row, -1))
            redo = np.flatnonzero(kw_row < 0)
            redone = {int(i): t if (t := texts[i]) is not None else node_text(nodes[i])    # a kept row that moved
                      for i in redo}
            kw = KeywordIndex.load(Path(previous) / "keyword").updated(
                Path(previous) / "keyword", kw_row, redone, {int(i): node_names(nodes[i]) if ok[i] else [] for i in redo})
            info["keyword_docs_redone"] = int(len(redo))
        else:
            kw = KeywordIndex.build(cast("list[str]", texts), [node_names(n) if k else [] for n, k in zip(nodes, ok)])
        files += [f"keyword/{f}" for f in kw.save(out_dir / "keyword")]
        del kw, texts
        lap("keyword")
        g = Graph.from_edges(_edge_table(edges), [n["id"] for n in nodes])
        files += [f"graph/{f}" for f in g.save(out_dir / "graph")]
        info["edges"] = g.n_edges
        info["edges_dropped"] = g.dropped
        lap("graph")
        vfiles, vinfo, vsec = vector_part.result()
    files += vfiles
    info.update(vinfo)
    if vsec is not None:
        seconds["vector"] = vsec                      # its own wall time, overlapping keyword and graph
        lap("vector_wait")                            # what the vector part added after them
    recs = integrity.records(out_dir, files)
    info["bytes"] = integrity.total_size(recs)
    lap("checksums")
    info["seconds"] = seconds
    (out_dir / WARM_FILE).write_text(json.dumps({**info, "files": recs, "seal": integrity.seal(recs)},
                                                indent=1, sort_keys=True))
    return info


def _vector_part(out_dir: Path, nodes: list[dict], ok: list[bool], prev, previous: Path):
    """Build (or update from ``previous``) and save the vector index: (files, info, seconds)."""
    from stratum.vectorindex import VectorIndex

    t = time.perf_counter()
    present = np.fromiter((k and n.get("vector") is not None for n, k in zip(nodes, ok)), dtype=bool, count=len(nodes))
    if not present.any():
        return [], {}, None
    info: dict = {"vector": True}
    loading = None
    if prev is not None and (Path(previous) / "vector" / "vectors.json").is_file():
        # the old graph (1.6 GB at 1M) is read while the new vectors are gathered
        loader = ThreadPoolExecutor(1, thread_name_prefix="warm-vector-load")
        loading = loader.submit(VectorIndex.load, Path(previous) / "vector", mmap=False, mmap_matrix=True)
        loader.shutdown(wait=False)
    rows = np.flatnonzero(present)
    dim = len(nodes[int(rows[0])]["vector"])
    mat = np.zeros((len(nodes), dim), dtype=np.float32)
    for s in range(0, len(rows), 65536):         # np.stack per block: half the GIL time of a row loop
        part = rows[s:s + 65536]
        mat[part] = np.stack([np.asarray(nodes[i]["vector"], dtype=np.float32) for i in part.tolist()])
    parts = {"gather": time.perf_counter() - t}
    vec = None
    if loading is not None:
        old = loading.result()
        parts["load_wait"] = time.perf_counter() - t - sum(parts.values())
        if not old.groups and old.dim == dim:
            vec = old.updated(mat, present, prev[0])
            info["vectors_changed"] = vec.changed
    if vec is None:
        vec = VectorIndex.build(mat, present=present)
    parts["graph"] = time.perf_counter() - t - sum(parts.values())
    files = [f"vector/{f}" for f in vec.save(out_dir / "vector")]
    parts["save"] = time.perf_counter() - t - sum(parts.values())
    info["vector_seconds"] = {k: round(v, 3) for k, v in parts.items()}   # where the vector part's time went
    return files, info, round(time.perf_counter() - t, 3)


def _in_order(old_row: np.ndarray, most: float = 0.05) -> np.ndarray:
    """``old_row`` with the kept rows that moved before an earlier kept row marked -1 (redone):
    kept rows in their old order let the keyword update merge postings without sorting them
    (a function moved within its file breaks it). When more than ``most`` of them moved, they
    stay kept and the update sorts every posting instead (the same index, more work)."""
    k = np.flatnonzero(old_row >= 0)
    if len(k) < 2:
        return old_row
    v = old_row[k]
    moved = np.flatnonzero(v[1:] < np.maximum.accumulate(v[:-1])) + 1
    if not len(moved) or len(moved) > most * len(k):
        return old_row
    out = old_row.copy()
    out[k[moved]] = -1
    return out


def _edge_table(edges: list[dict]) -> pa.Table:
    """The four edge columns the CSR needs, straight from the records (schema.to_table would
    build all ten: a third of an update's graph part at 2M edges); the required ones read with
    itemgetter (half the time of a comprehension of ``get`` calls at 1M edges)."""
    from operator import itemgetter

    cols = {c: pa.array(list(map(itemgetter(c), edges)), S.EDGES.field(c).type) for c in ("src", "dst", "kind")}
    weights = [e.get("weight") for e in edges]
    cols["weight"] = pa.array(weights, S.EDGES.field("weight").type) if any(w is not None for w in weights) \
        else pa.nulls(len(edges), S.EDGES.field("weight").type)
    return pa.table(cols)


@functools.lru_cache(maxsize=1)
def _polars_scheme() -> str:
    from importlib.metadata import version

    return f"polars-{version('polars')}"


BLAKE2B = "blake2b-64"
POLARS_ROWS = 100_000   # from this many rows, row hashes come from one polars call: ~6x faster than
                        # blake2b string by string (1M rows: ~1 s against ~6 s); importing polars costs
                        # ~0.7 s, more than a small build's hashing


def _hashes(texts: list[str], scheme: str) -> np.ndarray:
    """A 64-bit hash of each string (ids, documents): equal strings across versions, told apart
    cheaply. ``scheme`` names the function, recorded in warm.json: polars' hash is stable within
    one polars version only, so a folder hashed by another version is not updated from."""
    if scheme == BLAKE2B:
        return np.fromiter((int.from_bytes(hashlib.blake2b(t.encode("utf-8", "surrogateescape"), digest_size=8).digest(),
                                           "little") for t in texts), dtype=np.uint64, count=len(texts))
    import polars as pl

    try:
        series = pl.Series(texts, dtype=pl.Utf8)
    except UnicodeEncodeError:              # a path with undecodable bytes (surrogate escapes)
        series = pl.Series([t.encode("utf-8", "surrogateescape") for t in texts], dtype=pl.Binary)
    return series.hash(seed=0).to_numpy().astype(np.uint64, copy=False)


def _usable(previous: Path | None) -> str | None:
    """The row-hash scheme of ``previous`` when it is an intact warm folder of this format whose
    hashes this build can reproduce, else None (a full build)."""
    if previous is None:
        return None
    previous = Path(previous)
    try:
        meta = json.loads((previous / WARM_FILE).read_text())
    except (OSError, ValueError):
        meta = {}
    meta = meta if isinstance(meta, dict) else {}
    scheme = meta.get("rows_hash")
    if meta.get("rows_format") != ROWS_FORMAT or scheme not in (BLAKE2B, _polars_scheme()) or verify_warm(previous) \
            or not (previous / "rows.id.npy").is_file() or not (previous / "keyword" / "kw.tf.npy").is_file():
        log.info("warm folder %s cannot be updated from (older, damaged or hashed otherwise): full build", previous)
        return None
    return scheme


def _previous(previous: Path | None, id_hash: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(old row of each new row or -1, the old rows' document hashes) for a folder ``_usable``
    accepted; None means a full build."""
    if previous is None:
        return None
    previous = Path(previous)
    old_id = npyio.load(previous / "rows.id.npy")
    old_doc = npyio.load(previous / "rows.doc.npy")
    order = np.argsort(old_id, kind="stable")
    sid = old_id[order]
    if len(sid) > 1 and bool(np.any(sid[1:] == sid[:-1])) or len(np.unique(id_hash)) != len(id_hash):
        return None                             # an id hash collision: never guess
    pos = np.searchsorted(sid, id_hash)
    pos[pos >= len(sid)] = 0
    hit = (sid[pos] == id_hash) if len(sid) else np.zeros(len(id_hash), bool)
    return np.where(hit, order[pos] if len(sid) else -1, -1).astype(np.int64), old_doc


def verify_warm(directory: Path, *, full: bool | None = None) -> list[integrity.Damage]:
    """Damage in a warm folder: its record file, then every recorded file (see stratum.integrity;
    ``full=None`` checks every block of a warm tier up to FULL_AT_LOAD bytes, else sizes and the
    first and last blocks). A folder built before checksums has no records: nothing to check."""
    try:
        meta = json.loads((Path(directory) / WARM_FILE).read_text())
    except FileNotFoundError:
        return [integrity.Damage(WARM_FILE, "missing")]
    except (OSError, ValueError) as e:
        return [integrity.Damage(WARM_FILE, f"unreadable ({type(e).__name__})")]
    recs = meta.get("files") if isinstance(meta, dict) else None
    if recs is None:
        return []
    if not isinstance(recs, dict) or integrity.seal(recs) != meta.get("seal"):
        return [integrity.Damage(WARM_FILE, "its file records fail their own checksum")]
    return integrity.verify(directory, recs, full=full)


def rebuild_warm(snapshot, directory: Path | None = None) -> dict:
    """Rebuild a version's warm folder from its Lance rows (the source of truth) and swap it in
    place of the damaged one. One rebuild at a time per folder (a lock file beside it); readers
    that mapped the old files keep their mappings."""
    import fcntl
    import os
    import shutil

    root = Path(snapshot.store.root)
    info = snapshot.manifest.indexes or {}
    directory = Path(directory) if directory is not None else root / info.get("dir", "")
    if directory == root:
        directory = snapshot.store.index_dir(snapshot.manifest.version)
    directory.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory.parent / f".{directory.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if directory.is_dir() and not verify_warm(directory, full=True) and (directory / WARM_FILE).exists():
            meta = json.loads((directory / WARM_FILE).read_text())
            if meta.get("files") is not None:          # another process rebuilt it meanwhile
                return {k: v for k, v in meta.items() if k not in ("files", "seal")}
        nodes = snapshot.read("nodes").to_pylist()
        edges = snapshot.read("edges", columns=["src", "dst", "kind", "weight"]).to_pylist() \
            if snapshot.has("edges") else []
        tmp = directory.parent / f".{directory.name}.rebuild-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        out = _build(tmp, nodes, edges, str(directory.relative_to(root)))
        old = directory.parent / f".{directory.name}.damaged-{os.getpid()}"
        if directory.exists():
            os.rename(directory, old)
        os.rename(tmp, directory)
        shutil.rmtree(old, ignore_errors=True)
        log.warning("rebuilt the warm indexes in %s from the Lance data of version %s",
                    directory, snapshot.manifest.version)
        return out
    finally:
        os.close(fd)


NO_TIME = _NO_TIME = np.iinfo(np.int64).min    # a co-change edge without a last time (null)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _edge_attrs(cols: dict[str, np.ndarray], k: int, conf: str) -> dict:
    """The attributes of co-change edge ``k`` (``WarmIndexes.edge_attrs``), ``conf`` its direction's
    confidence column."""
    t = cols["last_time"][k]
    return {"support": int(cols["support"][k]), "confidence": _num(cols[conf][k]), "lift": _num(cols["lift"][k]),
            "last_time": None if t == _NO_TIME else _EPOCH + timedelta(microseconds=int(t))}


def _num(x: float) -> float | None:
    return None if x != x else float(x)     # NaN: the value was null


class WarmIndexes:
    """The loaded warm tier of one shard: searcher + adjacency (+ co-change edge attributes)."""

    def __init__(self, searcher, graph, snapshot, row_of_id):
        self.searcher = searcher
        self.graph = graph
        self._snapshot = snapshot
        self._row_of = row_of_id
        self._cochange: tuple[np.ndarray, dict[str, np.ndarray]] | None = None
        self._cochange_lock = threading.Lock()     # two first searches at once read it once
        self.link_meta = LinkMeta(snapshot, row_of_id)     # calls/inherits edges' meta, read on first use
        self.compiled_hops = graph.n_rows >= COMPILED_MIN_DOCS   # where stratum.kernels pays (Shard reads it)
        self.damage: str = ""               # set by the background check: then nothing is served
        self.checker: threading.Thread | None = None

    def check_in_background(self, directory: Path) -> None:
        """Read every block of a warm tier too large to check fully at load (FULL_AT_LOAD) on a
        helper thread (zlib releases the GIL while it reads); damage found then stops this tier from
        answering (StoreDamaged) until `stratum repair` rebuilds it."""
        def run():
            found = verify_warm(directory, full=True)
            if found:
                self.damage = (f"warm index files in {directory} are damaged: {found[0]}; not served: run "
                               f"`stratum repair --store {Path(self._snapshot.store.root) if self._snapshot else directory}`")
                log.error("%s", self.damage)

        self.checker = threading.Thread(target=run, name="warm-check", daemon=True)
        self.checker.start()

    def ensure_served(self) -> None:
        if self.damage:
            raise StoreDamaged(self.damage)

    @classmethod
    def load(cls, root: Path, manifest, meta: pa.Table, *, snapshot=None, embedder=None,
             row_of_id=None) -> "WarmIndexes":
        """Open a version's warm folder after checking it (``verify_warm`` and the indexes'
        structure checks). Damage is never served: a small tier is rebuilt from Lance on the
        spot (AUTO_REBUILD_ROWS), a large one raises StoreDamaged pointing to `stratum repair`."""
        from stratum.search import HybridSearcher

        info = manifest.indexes or {}
        if "dir" not in info:
            raise StoreError(f"published version {manifest.version} of {root} has no warm indexes; re-index")
        d = Path(root) / info["dir"]
        try:
            graph, kw, vec = _open(d, bool(info.get("vector")))
        except StoreDamaged as e:
            if snapshot is None or int(info.get("rows") or 0) > AUTO_REBUILD_ROWS:
                raise StoreDamaged(f"{e.message}; it is not served: run `stratum repair --store {root}` to "
                                   "rebuild it from the Lance data") from None
            log.warning("%s; rebuilding it from the Lance data", e.message)
            try:
                rebuild_warm(snapshot, d)
            except OSError as oe:           # e.g. a store mounted read-only
                raise StoreDamaged(f"{e.message}; it is not served and cannot be rebuilt here ({oe.strerror}): "
                                   f"run `stratum repair --store {root}` where the store is writable") from None
            graph, kw, vec = _open(d, bool(info.get("vector")))
        if vec is not None and manifest.embedding:
            from stratum.embedder import embedder_for_store

            embedder = embedder_for_store(manifest.embedding, embedder)   # the one model check
        if graph.n_rows != meta.num_rows:
            raise StoreDamaged(f"the warm graph in {d} has {graph.n_rows} rows, the node table {meta.num_rows}: "
                               f"rebuild it with `stratum repair --store {root}`")
        kw.ready_for_queries()              # the compiled keyword completion of a large shard
        if graph.n_rows >= COMPILED_MIN_DOCS:   # and its compiled neighbour reads (compiled_hops)
            from stratum import kernels

            kernels.warm_hops(graph.a)
        searcher = HybridSearcher(meta, vec, kw, embedder if vec is not None else None)
        if row_of_id is None:
            from stratum.keyindex import KeyIndex

            row_of_id = KeyIndex(meta.column("id"))
        warm = cls(searcher, graph, snapshot, row_of_id)
        if int(info.get("bytes") or 0) > integrity.FULL_AT_LOAD:
            warm.check_in_background(d)
        return warm

    # ---- graph --------------------------------------------------------------------------------
    def graph_neighbors(self, row: int, kinds: tuple[str, ...], direction: str) -> list[tuple[int, str, str, float]]:
        self.ensure_served()
        nb = self.graph.neighbors(row, kinds, direction)
        names = self.graph.kind_names
        return [(int(r), names[int(k)], "out" if o else "in", float(w))
                for r, k, w, o in zip(nb.rows, nb.kinds, nb.weights, nb.outgoing)]

    def edge_attrs(self, src: int, dst: int, kind: str) -> dict:
        """Support, confidences, lift and last time of a co-change edge (either direction)."""
        return self.edge_attrs_many(src, [dst], kind)[0]

    def edge_attrs_many(self, src: int, dsts: list[int], kind: str) -> list[dict]:
        """``edge_attrs`` of the edges from ``src`` to each of ``dsts``: two binary searches for all
        of them (a search ranks each seed's co-change partners; one search per pair was ~5 us)."""
        if kind != "cochange" or self._snapshot is None or not dsts:
            return [{} for _ in dsts]
        keys, cols = self._cochange_attrs()
        d = np.asarray(dsts, np.int64)
        out: list[dict] = [{} for _ in dsts]
        for want, conf in (((src << 32) | d, "confidence_fwd"), ((d << 32) | src, "confidence_bwd")):
            i = np.minimum(keys.searchsorted(want), len(keys) - 1) if len(keys) else np.zeros(len(d), np.int64)
            found = (keys[i] == want) if len(keys) else np.zeros(len(d), bool)
            for j in np.flatnonzero(found).tolist():
                if not out[j]:
                    out[j] = _edge_attrs(cols, int(i[j]), conf)
        return out

    def cochange_top(self, row: int, k: int) -> tuple[list[int], list[dict]]:
        """The ``k`` strongest co-change partners of ``row`` (by forward confidence, ties in edge
        order) and their ``edge_attrs``, in one compiled pass (``kernels.cochange_top``): the
        numpy hop, sort and two binary searches cost ~45 us a file at 1M nodes, ~5 us here."""
        from stratum import kernels

        self.ensure_served()
        g = self.graph
        if not 0 <= row < g.n_rows:             # compiled code checks no bounds
            raise InvalidArgument(f"row {row} is outside [0, {g.n_rows})")
        if self._snapshot is None:
            keys, cols = np.zeros(0, np.int64), None
        else:
            keys, cols = self._cochange_attrs()
        code = g.kind_codes(("cochange",))[0]
        rows, at, back = kernels.cochange_top(g.a["out.ptr"], g.a["out.nbr"], g.a["out.kind"], g.a["out.weight"],
                                              int(row), int(code), int(k), keys)
        attrs = [_edge_attrs(cols, j, "confidence_bwd" if b else "confidence_fwd") if j >= 0 and cols is not None else {}
                 for j, b in zip(at.tolist(), back.tolist())]
        return rows.tolist(), attrs

    def cochange_arrays(self, row: int, k: int) -> tuple[list[int], list[int], list[float], list[int]]:
        """``cochange_top`` as plain values of the partners whose edge has attributes, in its order:
        (rows, support, confidence (NaN: null), last time in microseconds since the epoch (NO_TIME:
        null)); no attribute dict or datetime per partner (ranking's first look at a seed)."""
        from stratum import kernels

        self.ensure_served()
        g = self.graph
        if not 0 <= row < g.n_rows:             # compiled code checks no bounds
            raise InvalidArgument(f"row {row} is outside [0, {g.n_rows})")
        keys, cols = self.cochange_attrs()
        if cols is None:
            return [], [], [], []
        code = g.kind_codes(("cochange",))[0]
        rows, at, back = kernels.cochange_top(g.a["out.ptr"], g.a["out.nbr"], g.a["out.kind"], g.a["out.weight"],
                                              int(row), int(code), int(k), keys)
        ok = at >= 0
        if not ok.all():
            rows, at, back = rows[ok], at[ok], back[ok]
        conf = np.where(back, cols["confidence_bwd"][at], cols["confidence_fwd"][at])
        return (rows.tolist(), cols["support"][at].astype(np.int64).tolist(), conf.tolist(),
                cols["last_time"][at].tolist())

    def structure_top(self, row: int, k: int, is_file: np.ndarray) -> tuple[int, list[int], list[str], list[bool]]:
        """Import/test neighbours of ``row`` that are files (``is_file`` by row), each once, the
        ``k`` most specific first (``kernels.structure_top``; ``ShardSignals._structure`` is the
        same order in numpy): (how many, rows, edge kind names, outgoing)."""
        from stratum import kernels

        self.ensure_served()
        g = self.graph
        if not 0 <= row < g.n_rows or len(is_file) != g.n_rows:     # compiled code checks no bounds
            raise InvalidArgument(f"row {row} of {g.n_rows} (a file mask of {len(is_file)} rows)")
        imports, tests = g.kind_codes(("imports", "tests")).tolist()
        n, rows, kinds, outgoing = kernels.structure_top(
            g.a["out.ptr"], g.a["out.nbr"], g.a["out.kind"], g.a["in.ptr"], g.a["in.nbr"], g.a["in.kind"],
            int(row), imports, tests, is_file, int(k))
        return int(n), rows.tolist(), [g.kind_names[c] for c in kinds.tolist()], outgoing.tolist()

    def cochange_attrs(self) -> tuple[np.ndarray, dict[str, np.ndarray] | None]:
        """(sorted src << 32 | dst keys, attribute columns) of the co-change edges; no columns
        (and no keys) without a snapshot to read them from."""
        if self._snapshot is None:
            return np.zeros(0, np.int64), None
        return self._cochange_attrs()

    def _cochange_attrs(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        got = self._cochange
        if got is None:
            with self._cochange_lock:
                if self._cochange is None:
                    self._cochange = self._load_cochange()
                got = self._cochange
        return got

    def _load_cochange(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Co-change edge attributes keyed by (src row << 32 | dst row), sorted: one read of the
        edges dataset into numpy columns, no Python object per edge (1.2M co-change edges at 1M
        nodes); a lookup reads five array cells (a one-row Arrow slice cost ~40 us, ~1.5 ms of
        every ranked search)."""
        keys, t = edges_keyed(self._snapshot, self._row_of, "kind = 'cochange'",
                              ["support", "confidence_fwd", "confidence_bwd", "lift", "last_time"])
        cols = {c: t.column(c).to_numpy() for c in ("confidence_fwd", "confidence_bwd", "lift")}   # null: NaN
        cols["support"] = t.column("support").fill_null(0).to_numpy()
        us = pc.cast(t.column("last_time"), pa.int64())
        cols["last_time"] = us.fill_null(_NO_TIME).to_numpy()
        return keys, cols

    # ---- search -------------------------------------------------------------------------------
    def search(self, query: str, *, kinds=(), path_prefix="", language="", limit=10, offset=0, extra_docs=()):
        self.ensure_served()
        from stratum.noteview import NoteView
        from stratum.search import ExtraDoc

        docs = extra_docs if isinstance(extra_docs, NoteView) else \
            [ExtraDoc(d["id"], d["text"], d.get("vector"), d["kind"], d.get("path") or "", d.get("language") or "")
             for d in extra_docs]
        return self.searcher.search(query, kinds=kinds, path_prefix=path_prefix, language=language,
                                    limit=limit, offset=offset, extra_docs=docs)


def _open(d: Path, vector: bool, *, verified: bool = False):
    """The three indexes of a warm folder, checked first: any damage is a StoreDamaged naming it
    (``verified``: the caller has just read every block with ``verify_warm``, as repair does)."""
    from stratum.graph import Graph
    from stratum.keywordindex import KeywordIndex
    from stratum.vectorindex import VectorIndex

    damage = [] if verified else verify_warm(d)
    if damage:
        more = f" (and {len(damage) - 3} more)" if len(damage) > 3 else ""
        raise StoreDamaged(f"warm index files in {d} are damaged: {'; '.join(map(str, damage[:3]))}{more}")
    try:
        graph = Graph.load(d / "graph")
        kw = KeywordIndex.load(d / "keyword")
        vec = VectorIndex.load(d / "vector") if vector else None
    except StoreDamaged:
        raise
    except (OSError, ValueError, RuntimeError, KeyError, StoreError) as e:
        raise StoreDamaged(f"warm indexes in {d} are unreadable ({type(e).__name__}: {str(e)[:200]})") from None
    return graph, kw, vec


__all__ = ["build_warm", "verify_warm", "rebuild_warm", "WarmIndexes", "AUTO_REBUILD_ROWS", "WARM_FILE", "NO_TIME"]
