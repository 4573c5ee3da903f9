"""The embed stage: which text each node is embedded by, which of it the cache already holds, and the
batch callable that Ray runs in an actor pool (one model load per actor).

Plain functions over plain records; ``pipeline.job`` (the only module importing Ray) wires
``EmbedBatch`` into ``map_batches``/an ``ActorPool``. Without Ray, ``embed_nodes`` does the same
in-process. The text rules live in ``stratum.textprep`` (shared with the serving overlay, which
embeds unmerged notes).

The cache: ``text_hash(cache_key, text)`` -> vector, stored in the ``embeddings`` dataset. A
re-index embeds only texts whose hash it has not seen under this model, precision and input
limit; nodes with identical text share one embedding.

On Ray (in ``pipeline.job``), with the plan's new texts as rows ``{"text_hash", "text"}``::

    ds.map_batches(EmbedBatch, fn_constructor_kwargs={"cfg": cfg.embed}, concurrency=cfg.embed.actors,
                   num_cpus=cpus_per_actor, batch_size=cfg.embed.batch_size, batch_format="numpy")

gives rows ``{"text_hash", "vector"}``; or wrap ``EmbedBatch`` in an actor for ``ActorPool``. The
onnxruntime thread count follows ``cfg.threads_per_actor``, else the actor's ``num_cpus``.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from stratum.config import EmbedConfig
from stratum.schema import AGENT_NOTE_KINDS
from stratum.textprep import DEFAULT_MAX_CHARS, EMBED_KINDS, embed_text, test_block, text_hash


@dataclass
class EmbedPlan:
    """What a run must embed. ``hashes[i]`` is node i's text hash (None: not embedded);
    ``texts``/``text_hashes`` are the distinct texts missing from the cache, in first-seen order."""

    hashes: list[str | None] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    text_hashes: list[str] = field(default_factory=list)
    cached: int = 0        # nodes whose vector comes from the cache (or came with the node: ``given``)
    given: dict[str, np.ndarray] = field(default_factory=dict)   # text hash -> a note node's own vector

    @property
    def to_embed(self) -> int:
        return len(self.texts)


def plan(nodes: list[dict], cached: Mapping[str, object], *, model: str,
         kinds: Collection[str] = EMBED_KINDS, max_chars: int = DEFAULT_MAX_CHARS,
         known: Mapping[str, str] | None = None) -> EmbedPlan:
    """Hash each node's text under ``model`` (an embedder's ``cache_key``) and list the new texts.
    ``known``: node id -> the hash its text is known to have (``pipeline.embedreuse.known_hashes``),
    used when the cache holds it: the text need not be built. An agent note node that comes with a
    ``vector`` (its delta-log record's, made by this model from this text:
    ``pipeline.embedreuse.log_vectors``) keeps it: its text is not embedded again. A test written as
    a call (``textprep.test_block``) is not embedded, whatever ``kinds`` says: it is never searched,
    and a hash ``known`` recovered for it (a store made before) is not used."""
    p = EmbedPlan()
    pending: set[str] = set()
    for n in nodes:
        if n.get("kind") not in kinds or test_block(n):
            p.hashes.append(None)
            continue
        h = known.get(n["id"]) if known else None
        if h is not None and h in cached:
            p.hashes.append(h)
            p.cached += 1
            continue
        text = embed_text(n, max_chars)
        h = text_hash(model, text)
        p.hashes.append(h)
        own = n.get("vector") if n.get("kind") in AGENT_NOTE_KINDS else None
        if h in cached or h in p.given:
            p.cached += 1
        elif own is not None and h not in pending:
            p.given[h] = np.asarray(own, np.float32)
            p.cached += 1
        elif h not in pending:
            pending.add(h)
            p.texts.append(text)
            p.text_hashes.append(h)
    return p


def attach(nodes: list[dict], p: EmbedPlan, cached: Mapping[str, object], vectors, *, model: str) -> list[dict]:
    """Set ``node["vector"]`` from the cache, the plan's ``given`` or the new ``vectors`` (row i for
    ``p.texts[i]``) and return the cache rows this version keeps (``schema.EMBEDDINGS``): the
    hashes still in use, so the cache does not grow with text that no longer exists (and a given
    vector is the cache's from now on)."""
    if len(vectors) != len(p.texts):
        raise ValueError(f"{len(vectors)} vectors for {len(p.texts)} texts")
    fresh = {h: v for h, v in zip(p.text_hashes, vectors)}
    rows, seen = [], set()
    for n, h in zip(nodes, p.hashes):
        if h is None:
            continue
        v = fresh[h] if h in fresh else p.given[h] if h in p.given else cached[h]
        v = np.asarray(v, dtype=np.float32)
        n["vector"] = v
        if h not in seen:
            seen.add(h)
            rows.append({"model": model, "text_hash": h, "vector": v})
    return rows


def embed_nodes(nodes: list[dict], embedder, cached: Mapping[str, object] | None = None,
                kinds: Collection[str] = EMBED_KINDS) -> tuple[EmbedPlan, list[dict]]:
    """The whole stage in-process (no Ray): plan, embed the new texts, attach. Returns the plan
    (counts for the run report) and the cache rows to store."""
    cached = cached or {}
    key = embedder.cache_key
    p = plan(nodes, cached, model=key, kinds=kinds)
    vectors = embedder.embed(p.texts) if p.texts else np.zeros((0, embedder.dim), np.float32)
    return p, attach(nodes, p, cached, vectors, model=key)


def actor_threads(requested: int = 0) -> int:
    """onnxruntime threads for one actor: as configured, else the CPUs Ray granted the actor (Ray
    sets OMP_NUM_THREADS to an actor's num_cpus), else 0 (onnxruntime: one per physical core)."""
    if requested > 0:
        return requested
    omp = os.environ.get("OMP_NUM_THREADS", "")
    return int(omp) if omp.isdigit() and int(omp) > 0 else 0


class EmbedBatch:
    """Callable for Ray Data ``map_batches`` with an actor pool (or an ``ActorPool`` actor): the
    constructor loads the model once per actor; each call embeds one batch.

    ``__call__(batch)`` takes a dict of columns (numpy arrays or lists, as Ray Data's "numpy" batch
    format gives them), reads ``text_column`` and returns the other columns plus ``vector``: a
    float32 array of shape (rows, 384), L2-normalised. The text column is dropped unless
    ``keep_text`` (it is not needed after embedding, and it is the bulk of the batch).
    """

    def __init__(self, cfg: EmbedConfig | None = None, *, threads: int | None = None, text_column: str = "text",
                 keep_text: bool = False, cache_dir: str | None = None):
        from stratum.embedder import get_embedder

        cfg = cfg or EmbedConfig()
        self.text_column = text_column
        self.keep_text = keep_text
        n = actor_threads(cfg.threads_per_actor if threads is None else threads)
        kwargs = {"cache_dir": cache_dir} if cache_dir else {}
        self.embedder = get_embedder(cfg, threads=n, **kwargs)

    @property
    def cache_key(self) -> str:
        return self.embedder.cache_key

    def __call__(self, batch: Mapping[str, Any]) -> dict:
        texts = ["" if t is None else str(t) for t in batch[self.text_column]]
        out = {k: v for k, v in batch.items() if k != self.text_column or self.keep_text}
        out["vector"] = self.embedder.embed(texts)
        return out


__all__ = ["EmbedPlan", "plan", "attach", "embed_nodes", "EmbedBatch", "actor_threads", "embed_text", "text_hash",
           "EMBED_KINDS"]
