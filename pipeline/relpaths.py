"""Repository-relative POSIX paths as import resolution reads them: a path's folder, a join that
skips empty parts (the repository root is ``""``), and a normal form that is None once a path climbs
out of the repository (``../x`` from the root: never a file of it)."""

from __future__ import annotations

import posixpath


def parent(path: str) -> str:
    return posixpath.dirname(path)


def join(*parts: str) -> str:
    kept = tuple(p for p in parts if p)
    return posixpath.join(*kept) if kept else ""


def norm(path: str) -> str | None:
    """Normalise a repository-relative path; None if it climbs out of the repository."""
    n = posixpath.normpath(path)
    if n.startswith("../") or n == ".." or n.startswith("/"):
        return None
    return "" if n == "." else n


__all__ = ["parent", "join", "norm"]
