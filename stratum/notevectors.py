"""A note's vector in its delta-log record: float16, base64 (1 KB), tagged with the embedder's cache key.

Why: vectors travel with the note, so a restarted server reads them instead of re-embedding every
unmerged note before serving; the key keeps a vector of another model (or dimension) from being
read as this one's.
"""

from __future__ import annotations

import base64

import numpy as np


def encode_vector(v: np.ndarray, key: str) -> dict:
    """Record-body fields for a note's vector (float16 keeps cosine ranking; 1 KB instead of 2)."""
    return {"vector": base64.b64encode(np.asarray(v, np.float16).tobytes()).decode("ascii"), "vector_key": key}


def decode_vector(body: dict, key: str | None, dim: int) -> np.ndarray | None:
    """The vector stored in a record body, if it was made by the embedder with cache key ``key``."""
    b = body.get("vector")
    if not b or key is None or body.get("vector_key") != key:
        return None
    try:
        v = np.frombuffer(base64.b64decode(b), np.float16).astype(np.float32)
    except (ValueError, TypeError):
        return None
    return v if len(v) == dim else None


__all__ = ["encode_vector", "decode_vector"]
