"""A note's vector in its delta-log record: float16, base64 (1 KB), tagged with the embedder's cache key.

Why: vectors travel with the note, so a restarted server reads them instead of re-embedding every
unmerged note before serving, and the index job that merges the note reuses it too
(``pipeline.embedreuse.log_vectors``); the key keeps a vector of another model (or dimension)
from being read as this one's.
"""

from __future__ import annotations

import base64

import numpy as np

from stratum.notedocs import embed_fields
from stratum.notes import note_from_body
from stratum.textprep import embed_text


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


def record_text(uid: str, body: dict) -> str:
    """The text a note record's vector was embedded from: ``textprep.embed_text`` of the note as
    written (``notedocs.embed_fields``: kind, first target's path, tags, text), what ``remember``
    embeds. A reader compares it with the text it would embed before it takes the vector."""
    return embed_text(embed_fields(note_from_body(uid, body)))


__all__ = ["encode_vector", "decode_vector", "record_text"]
