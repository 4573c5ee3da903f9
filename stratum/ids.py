"""Stable ids: the same repo, path, kind and qualified name give the same id on every re-index,
so notes, pins and sessions survive a new version."""

from __future__ import annotations

import hashlib


def node_id(repo: str, path: str, kind: str, qualname: str = "") -> str:
    """A 20-hex-char id (80 bits) from the node's identity; never from its content or position."""
    key = "\x1f".join((repo, path, kind, qualname)).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(key, digest_size=10).hexdigest()


def note_id(record_uid: str) -> str:
    """Notes are identified by the unique id of their delta-log record."""
    return "n" + hashlib.blake2b(record_uid.encode(), digest_size=10).hexdigest()[1:]


def norm_path(p: str) -> str:
    """A repo-relative path as stored: forward slashes, no ./ prefix, no leading or trailing slash."""
    p = p.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p.strip("/")


def content_hash(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    return hashlib.sha1(data).hexdigest()


__all__ = ["node_id", "note_id", "norm_path", "content_hash"]
