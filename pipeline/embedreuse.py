"""The embed stage's plan: which vectors a run already has, so it embeds only the rest.

Three sources, each trusted only under the model's cache key (weights, graph, precision, input
limit): the previous version's ``embeddings`` cache (text hash -> vector; ``embed_plan``, or
``full_cache`` for ``--full``), the text hashes of unchanged files' nodes recovered from their
stored vectors (``known_hashes``: their texts are not built again), and the vectors the delta-log
records of unmerged notes carry (``log_vectors``: ``remember`` embedded each note once already).
``pipeline.stages`` re-exports these for ``pipeline.job``; plain functions over plain records,
Arrow tables and snapshots (no engine).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Collection, Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.report import RunReport
from stratum import schema as S
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import StratumError
from stratum.store import Manifest, Snapshot, Store, lance_errors
from stratum.textprep import EMBED_KINDS, embed_text


@dataclass
class EmbedWork:
    """The embed stage's plan for this run (``pipeline.embed.plan``) and what it needs to finish."""

    info: dict
    key: str
    cached: dict
    plan: Any


def embed_plan(cfg: IndexConfig, prev, prev_snap, nodes: list[dict], rep: RunReport,
               reused: set[str] | None = None, cache_from: Snapshot | None = None) -> EmbedWork | None:
    """Which texts this run must embed: the tested ``pipeline.embed.plan`` over the cache of the
    previous version (same model key only). Repo and dir nodes are not embedded (``EMBED_KINDS``):
    their text is a path and a count of children, which the keyword tier matches exactly, and
    near-empty vectors only crowd vector results. ``reused``: paths whose nodes are the previous
    version's rows as they were (``reuse``); their text hashes are recovered (``known_hashes``)
    instead of building their texts again. ``cache_from``: without an incremental base
    (``--full``), the version whose cache alone is read (``full_cache``); a cache it cannot read
    is said in the report and every text embedded. A note node that came with a vector (its log
    record's: ``log_vectors``) is not embedded; its vector joins the cache. A note node that is the
    previous version's row unchanged (``stages.StoredRow``: sympy's 38,000 mined notes after a
    one-file commit) has its hash recovered too, its text not built and hashed again; a reused
    file's row that a stage changed since (``gopackage`` rewrites a Go type's api) has not."""
    if not cfg.embed.enabled:
        return None
    from pipeline.embed import plan
    from stratum.embedder import cache_key_for, model_info_for

    info = model_info_for(cfg.embed)
    key = cache_key_for(cfg.embed)
    info["cache_key"] = key
    info["text_rules"] = text_rules()
    base = prev_snap if prev_snap is not None else cache_from
    was = (prev.embedding if prev is not None else base.manifest.embedding if base is not None else None) or {}
    if was and was.get("cache_key") != key:
        rep.messages.append(f"embedding model changed ({was.get('cache_key')} -> {key}): text is re-embedded")
    cached: dict = {}
    vectors = None
    if base is not None and base.has("embeddings"):
        try:
            tab = base.read("embeddings", where=f"model = {key!r}")
        except StratumError as e:
            if base is prev_snap:       # the incremental base must be whole: its other data is reused too
                raise
            _cache_not_reused(rep, f"{type(e).__name__}: {e}")
        else:
            vectors = tab["vector"]       # the dict's values are views into these chunks (no copy)
            cached = dict(zip(tab.column("text_hash").to_pylist(), vectors.to_numpy(zero_copy_only=False)))
    from pipeline.stages import unchanged_row

    same = {n["id"] for n in nodes if unchanged_row(n)} if prev_snap is not None else set()
    notes = {n["id"] for n in nodes if n["kind"] in S.NOTE_KINDS} & same
    known = known_hashes(prev_snap, info, cached, reused or set(), vectors=vectors, ids=notes) \
        if reused or notes else None
    if known:       # not a reused file's row a stage changed since (a Go type's api: gopackage)
        known = {k: h for k, h in known.items() if k in same}
    p = plan(nodes, cached, model=key, known=known)
    rep.embed_cached = p.cached
    rep.embedded = p.to_embed
    return EmbedWork(info, key, cached, p)


def full_cache(store: Store, held: Manifest | None, rep: RunReport) -> Snapshot | None:
    """``--full``: a Snapshot of the published version pinned to its ``embeddings`` dataset alone,
    whose cache the run reads (``embed_plan(cache_from=)``), or None. ``--full`` rebuilds what is
    derived from the source; the cache is keyed by the model's cache key (weights hash, graph,
    precision, input limit) and the text's hash, so it cannot give a stale vector, and dropping it
    made a --full run pay the whole embedding again (MiniLM on flask: docs/operations.md). Its
    files are checked block by block first (the rest of the version is never read); a version of
    another schema, or a damaged cache, is not read: every text is embedded, said in the report."""
    if held is None or "embeddings" not in held.datasets:
        return None
    if held.schema_version != S.SCHEMA_VERSION:
        _cache_not_reused(rep, f"schema version {held.schema_version}, this build reads {S.SCHEMA_VERSION}")
        return None
    only = replace(held, datasets={"embeddings": held.datasets["embeddings"]})
    try:
        return Snapshot(store, only, verify=True)
    except StratumError as e:
        _cache_not_reused(rep, f"{type(e).__name__}: {e}")
        return None


def _cache_not_reused(rep: RunReport, why: str) -> None:
    rep.messages.append(f"the previous version's embedding cache is not reused ({why[:200]}): every text is embedded")


def text_rules() -> str:
    """A fingerprint of the rules that turn a node into its embedded text (``stratum.textprep``'s
    source): recovered hashes are trusted only from a version made under the same rules."""
    import hashlib

    from stratum import textprep

    try:
        return hashlib.blake2b(Path(textprep.__file__).read_bytes(), digest_size=8).hexdigest()
    except (OSError, TypeError):
        return ""


def known_hashes(prev_snap, info: dict, cached: dict, reused: set[str], *,
                 vectors: pa.ChunkedArray | None = None, ids: Collection[str] = ()) -> dict[str, str]:
    """node id -> text hash for the code nodes of ``reused`` files, and the note nodes of ``ids``
    (rows of the previous version as they were: ``stages.StoredRow``), from the previous version.

    Such a node is the previous row as it was, so its text, hence its hash, is the one it had, and
    its stored vector is that hash's cache vector byte for byte (``attach`` copies it). A vector
    that exactly one cached hash has names the hash; a vector two hashes share (texts whose word
    pieces sum alike) names none, and those nodes' texts are built as usual. Only when the
    previous version was embedded under this cache key and these text rules (``text_rules``);
    else {}. Building the texts again was ~60 ms of a one-file re-index on flask.

    Matched by fingerprint (``pipeline.vecmatch``), not by a dict keyed by every cached vector's
    bytes (~1.6 KB a cache row): the cache is read in place, ``vectors`` (the column ``cached``
    was built from, in its order) when given and its hashes are distinct, else the dict's values
    stacked; the nodes stream from Lance a batch at a time, so the extra memory is ~16 bytes a
    cache row plus one batch."""
    from pipeline.vecmatch import CacheMatcher, Chunks

    m = prev_snap.manifest if prev_snap is not None else None
    emb = (m.embedding or {}) if m is not None else {}
    if not cached or not info["text_rules"] or emb.get("cache_key") != info["cache_key"] \
            or emb.get("text_rules") != info["text_rules"]:
        return {}
    hashes = list(cached)
    if vectors is not None and len(vectors) == len(hashes) and not vectors.null_count:
        cache = Chunks([_matrix(c) for c in vectors.chunks])   # same order: dict(zip) of distinct hashes
    else:
        cache = Chunks([np.stack([np.asarray(v, np.float32) for v in cached.values()])])
    index = CacheMatcher(cache)
    code = tuple(k for k in EMBED_KINDS if k not in S.NOTE_KINDS)
    value_set = pa.array(sorted(reused), pa.string())
    id_set = pa.array(sorted(ids), pa.string())
    kinds = ", ".join(repr(k) for k in code + (S.NOTE_KINDS if ids else ()))
    ds = prev_snap.lance_table("nodes")
    out: dict[str, str | None] = {}
    root = prev_snap.store.root
    with lance_errors(f"dataset nodes v{prev_snap.manifest.datasets.get('nodes')} in {root}", root):
        for batch in ds.to_batches(columns=["id", "kind", "path", "vector"], filter=f"kind IN ({kinds})"):
            mask = pc.and_(pc.is_in(batch.column("path"), value_set=value_set),
                           pc.is_in(batch.column("kind"), value_set=pa.array(code)))
            batch = batch.filter(pc.or_(mask, pc.is_in(batch.column("id"), value_set=id_set)) if ids else mask)
            if not batch.num_rows:
                continue
            if batch.column("vector").null_count:
                return {}
            owner = index.owners(_matrix(batch.column("vector")))
            for nid, o in zip(batch.column("id").to_pylist(), owner.tolist()):
                h = hashes[o] if o >= 0 else None
                out[nid] = None if nid in out else h  # an id twice in a file (a redefinition): build its texts
    return {k: v for k, v in out.items() if v is not None}


def log_vectors(records: Iterable, notes: list[dict], new_ids: Iterable[str], cfg: EmbedConfig) -> int:
    """Give each new note node (``notes``: merged from the log now; ``new_ids``: the ones not in the
    previous version) the vector its delta-log record carries, when this run's model made it
    (``vector_key``) from the very text this run would embed (a note re-placed after a rename has
    another path in its text: embedded again). ``pipeline.embed.plan`` embeds only the notes left
    without one. Why: ``remember`` embedded each note once; embedding them again cost a re-index
    ~10 ms of CPU a note with MiniLM (1,000 notes: a one-file re-index of flask 12.8 -> 2.2 s CPU,
    docs/bench/index_speed.md); finding them costs ~0.1 ms a note. Returns how many it gave."""
    from stratum.embedder import cache_key_for, model_info_for
    from stratum.ids import note_id
    from stratum.notevectors import decode_vector, record_text

    new = set(new_ids)
    by_id = {n["id"]: n for n in notes if n["id"] in new}
    if not by_id:
        return 0
    key, dim = cache_key_for(cfg), int(model_info_for(cfg)["dim"])
    given = 0
    for r in records:
        node = by_id.get(note_id(r.uid)) if r.type == "note" and r.body.get("vector") else None
        if node is None:
            continue
        v = decode_vector(r.body, key, dim)
        if v is not None and record_text(r.uid, r.body) == embed_text(node):
            node["vector"] = v
            given += 1
    return given


def _matrix(arr) -> np.ndarray:
    """A fixed-size-list float32 Arrow array as an (n, d) numpy matrix, in place."""
    d = arr.type.list_size
    flat = arr.flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(len(arr), d) if len(arr) else np.zeros((0, d), np.float32)


def embed_attach(work: EmbedWork, nodes: list[dict], vectors) -> pa.Table:
    """Vectors onto the nodes (``pipeline.embed.attach``); the cache rows this version keeps."""
    from pipeline.embed import attach

    rows = attach(nodes, work.plan, work.cached, vectors, model=work.key)
    return S.to_table(rows, S.EMBEDDINGS)


__all__ = ["EmbedWork", "embed_plan", "full_cache", "text_rules", "known_hashes", "log_vectors", "embed_attach"]
