"""A static embedding model distilled from the packaged MiniLM: a lookup and a mean per text.

Why: MiniLM costs ~70 ms of CPU per code node (docs/bench/embed.md), 65-87% of a cold index. The
model2vec method keeps most of its retrieval value at a few microseconds per node: every word piece
of MiniLM's vocabulary goes through MiniLM once (``[CLS] piece [SEP]``, mean-pooled, as
sentence-transformers pools), the table is centred (optionally PCA-reduced, zero-padded back to the
store's 384 dims) and each row is scaled by a SIF weight estimated from a Zipf law over the
vocabulary order (BERT's word pieces are listed roughly by frequency), so "the" and "self" count
little and rare words much. A text's vector is the L2-normalised sum of its pieces' rows.

Code-aware input: identifiers are split into words before the word-piece tokenizer
(``parseConfigFile`` -> ``parse Config File``, ``snake_case`` -> ``snake case``), which otherwise
reads ``par ##se ##con ##fi ##gf ##ile``; punctuation is dropped (``recipe.words_only``).

Inference is numpy alone; the ``model2vec`` package would add a dependency for the same ~20 lines
and still need our own pre-splitting, so it is not used. The table is built once per weights hash
and recipe and cached (atomic write under a lock, like the ONNX graphs):

    $STRATUM_CACHE/models/<weights hash[:16]>/static-<recipe id>.npy

Build it ahead of time with ``python -m stratum.static_embed`` (else the first use builds it: ~30 s of CPU).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from stratum import npyio
from stratum.errors import InvalidArgument

RECIPE_VERSION = 1
FIRST_PIECE = 999              # BERT uncased: ids below are [PAD], [unusedN], [UNK], [CLS], [SEP], [MASK]
FIRST_WORD = 1996              # ids 999..1995 are single characters; "the" is 1996, then ~frequency order
DISTILL_BATCH = 2048           # one-piece sequences per onnxruntime run while distilling
MAX_PIECES = 4096              # word pieces read per text (embed_text already cuts code at 1,536 chars)

# Identifier splitting: a boundary before an upper-case letter that follows a lower-case letter
# or digit, or that starts a word after an acronym (HTTPServer -> HTTP Server); underscores split.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_PUNCT = re.compile(r"[^\w\s]|_")
_UNDERSCORE = re.compile(r"_")


@dataclass(frozen=True)
class Recipe:
    """How the table is distilled. ``dims``: PCA components kept (384: centring only), padded with
    zeros to 384 so the store schema stays; ``sif``: the SIF coefficient a in a / (a + p(piece))
    (0: no weighting); ``words_only``: drop punctuation pieces."""

    dims: int = 384
    sif: float = 1e-4
    words_only: bool = True

    def __post_init__(self):
        if not 1 <= self.dims <= 384:
            raise InvalidArgument(f"dims must be in 1..384, got {self.dims}")
        if self.sif < 0:
            raise InvalidArgument(f"sif must be >= 0, got {self.sif}")

    @classmethod
    def parse(cls, text: str) -> "Recipe":
        """A recipe from its id (``r1-d256-s0.0001-w``, the ``r1-`` optional); "" is the default."""
        if not text:
            return DEFAULT_RECIPE
        m = re.fullmatch(r"(?:r(\d+)-)?d(\d+)-s([0-9.e+-]+?)-([wp])", text.strip())
        if not m or (m.group(1) and int(m.group(1)) != RECIPE_VERSION):
            raise InvalidArgument(f"not a static-model recipe of version {RECIPE_VERSION}: {text!r} "
                                  "(expected e.g. 'd384-s0.0001-w': dims, SIF coefficient, w=words only/p=punctuation)")
        try:
            return cls(int(m.group(2)), float(m.group(3)), m.group(4) == "w")
        except ValueError as e:
            raise InvalidArgument(f"bad static-model recipe {text!r}: {e}") from None

    @property
    def id(self) -> str:
        """Names the recipe in file names and cache keys: a recipe change never reads a stale table."""
        return f"r{RECIPE_VERSION}-d{self.dims}-s{self.sif:g}-{'w' if self.words_only else 'p'}"


DEFAULT_RECIPE = Recipe()


def presplit(text: str, words_only: bool = True) -> str:
    """Identifiers spelled as words for the word-piece tokenizer (``getHTTPResponse_code`` ->
    ``get HTTP Response code``); with ``words_only`` punctuation becomes spaces."""
    text = _CAMEL.sub(" ", text)
    return (_PUNCT if words_only else _UNDERSCORE).sub(" ", text)


def sif_weights(vocab_size: int, a: float) -> np.ndarray:
    """a / (a + p) per piece id, with p from a Zipf law over the frequency-ordered word pieces
    (model2vec's estimate); single characters count as the most frequent, specials weigh 0."""
    w = np.zeros(vocab_size, dtype=np.float64)
    rank = np.ones(vocab_size, dtype=np.float64)
    rank[FIRST_WORD:] = np.arange(1, vocab_size - FIRST_WORD + 1)
    p = 1.0 / (rank + 1.0)
    p /= p[FIRST_PIECE:].sum()
    w[FIRST_PIECE:] = a / (a + p[FIRST_PIECE:]) if a > 0 else 1.0
    return w


def teacher_table(teacher, log=None) -> np.ndarray:
    """MiniLM's pooled, normalised vector of ``[CLS] piece [SEP]`` for every word piece (rows below
    FIRST_PIECE stay 0), plus a last row: its vector of the empty text. The slow part (~30 s CPU)."""
    tok = teacher.tokenizer
    n = tok.get_vocab_size()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    ids = np.arange(FIRST_PIECE, n, dtype=np.int64)
    out = np.zeros((n + 1, teacher.dim), dtype=np.float32)
    for s in range(0, len(ids), DISTILL_BATCH):
        chunk = ids[s:s + DISTILL_BATCH]
        x = np.stack([np.full(len(chunk), cls), chunk, np.full(len(chunk), sep)], axis=1)
        out[chunk] = teacher.forward(x, np.ones_like(x))
        if log:
            log(f"distilled {min(s + DISTILL_BATCH, len(ids))}/{len(ids)} pieces")
    out[n] = teacher.forward(np.array([[cls, sep]], np.int64), np.ones((1, 2), np.int64))[0]
    return out


def distill(teach: np.ndarray, recipe: Recipe = DEFAULT_RECIPE) -> np.ndarray:
    """The static table from the teacher's table: centred, PCA-reduced (zero-padded back), SIF-weighted.
    The last row (the empty text's vector, a unit vector) is kept as it is."""
    n, dim = teach.shape[0] - 1, teach.shape[1]
    live = teach[FIRST_PIECE:n].astype(np.float64)
    live -= live.mean(axis=0)
    if recipe.dims < dim:
        _, _, vt = np.linalg.svd(live, full_matrices=False)
        live = np.pad(live @ vt[:recipe.dims].T, ((0, 0), (0, dim - recipe.dims)))
    live *= sif_weights(n, recipe.sif)[FIRST_PIECE:, None]
    table = np.zeros_like(teach)
    table[FIRST_PIECE:n] = live
    table[n] = teach[n]
    return table


def table_path(model_dir: Path, recipe: Recipe = DEFAULT_RECIPE, cache_dir: Path | None = None) -> Path:
    """The cached table for these weights and recipe, distilled under a lock on first use. The
    teacher's table is cached too (``static-teacher-v<version>.npy``), so another recipe costs
    seconds, not another pass of MiniLM over the vocabulary."""
    from stratum.embedder import MiniLMEmbedder, atomic_write, cache_root, weights_hash

    d = Path(cache_dir or cache_root()) / "models" / weights_hash(model_dir)[:16]
    dest = d / f"static-{recipe.id}.npy"
    if dest.is_file():
        return dest
    d.mkdir(parents=True, exist_ok=True)
    with open(d / ".static.lock", "w") as lock:   # not the graphs' lock: the teacher takes that one
        fcntl.flock(lock, fcntl.LOCK_EX)           # one builder; the others wait, then reuse its file
        try:
            if not dest.is_file():
                t0 = time.perf_counter()
                raw = d / f"static-teacher-v{RECIPE_VERSION}.npy"
                if not raw.is_file():
                    teacher = MiniLMEmbedder("fp32", threads=0, model_dir=model_dir, cache_dir=cache_dir)
                    teach = teacher_table(teacher)
                    atomic_write(raw, lambda tmp: _npy(tmp, teach))
                table = distill(npyio.load(raw), recipe)
                atomic_write(dest, lambda tmp: _npy(tmp, table))
                facts = {"recipe": recipe.id, **asdict(recipe), "teacher": "all-MiniLM-L6-v2 fp32 (stratum graph)",
                         "build_seconds": round(time.perf_counter() - t0, 1)}
                atomic_write(dest.with_suffix(".json"), lambda tmp: Path(tmp).write_text(json.dumps(facts, indent=1)))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return dest


def _npy(path: str, table: np.ndarray) -> None:
    with open(path, "wb") as f:        # a file object: np.save would append ".npy" to a name
        np.save(f, table, allow_pickle=False)


def table_digest(path: Path) -> str:
    """sha256 of a table file (tests: a rebuild gives the same bytes)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def encode(table: np.ndarray, tokenizer, texts: list[str], words_only: bool = True) -> np.ndarray:
    """L2-normalised sums of the pieces' rows, (len(texts), dim) float32, one text per row.

    One ``take`` + ``sum`` per text: gathering all texts' rows into one array first (for one
    ``reduceat``) was 30x slower, all of it in writing and reading that array (docs/bench/embed.md)."""
    out = np.empty((len(texts), table.shape[1]), dtype=np.float32)
    if not texts:
        return out
    encs = tokenizer.encode_batch([presplit(t, words_only) for t in texts], add_special_tokens=False)
    empty = table[table.shape[0] - 1]
    for r, e in enumerate(encs):
        ids = e.ids
        out[r] = table.take(ids, axis=0).sum(axis=0) if ids else empty
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    zero = norms[:, 0] < 1e-12            # only specials/unused pieces: fall back to the empty text
    out[zero], norms[zero] = empty, 1.0
    out /= norms
    return out


def main(argv: list[str] | None = None) -> int:
    """Build (or find) the cached table ahead of time: ``python -m stratum.static_embed``."""
    import argparse

    from stratum.embedder import default_model_dir

    ap = argparse.ArgumentParser(description="distil the static embedding table from the packaged MiniLM")
    ap.add_argument("--dims", type=int, default=DEFAULT_RECIPE.dims)
    ap.add_argument("--sif", type=float, default=DEFAULT_RECIPE.sif)
    ap.add_argument("--keep-punct", action="store_true")
    ap.add_argument("--cache-dir", default=None)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    p = table_path(default_model_dir(), Recipe(a.dims, a.sif, not a.keep_punct),
                   Path(a.cache_dir) if a.cache_dir else None)
    print(f"{p} ({p.stat().st_size / 1e6:.0f} MB, {time.perf_counter() - t0:.1f} s)")
    return 0


__all__ = ["Recipe", "DEFAULT_RECIPE", "RECIPE_VERSION", "presplit", "sif_weights", "teacher_table", "distill",
           "table_path",
           "table_digest", "encode"]

if __name__ == "__main__":
    raise SystemExit(main())
