"""The one target resolver: a node id, a path (file, dir, or "" / "." for the repo) or
``path::qualified.name`` -> a node row, over Arrow columns; the name also as C++ and Rust write it
(``DBImpl::Write``, its namespace or ``mod`` left out) when that names one node of the file.

Used by the loaded shard (``Shard.resolve``), by notes written through the overlay, by the CLI's
notes view and by the pipeline's note merge on plain records, so a target that resolves when a
note is written resolves the same way when it is merged. Lookups are ``KeyIndex`` hashes over the
columns (no Python object per node: at 1M nodes dicts cost gigabytes).
"""

from __future__ import annotations

import unicodedata
from typing import Iterable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum.ids import norm_path
from stratum.keyindex import Column, KeyIndex
from stratum.schema import NOTE_KINDS

COLUMNS = ("id", "kind", "path", "qualname", "content_hash")


class CodeLookup:
    """Row lookups by id, path and path::qualname; content hashes of code nodes.

    ``row`` answers any node (notes too, by id); ``resolve``/``hash_of``/``in`` answer code nodes
    only, as a note's targets must be code. ``row_of``: an id KeyIndex the caller already built
    over the same ``id`` column (the shard's), to avoid hashing it twice.
    """

    def __init__(self, table: pa.Table, row_of: KeyIndex | None = None):
        t = table.combine_chunks() if isinstance(table, pa.Table) else table
        n = t.num_rows
        self._col = {c: Column(t.column(c) if c in t.column_names else pa.nulls(n, pa.string()))
                     for c in COLUMNS}
        kind = self._col["kind"].array
        path = pc.fill_null(self._col["path"].array, "")
        qual = pc.fill_null(self._col["qualname"].array, "")
        self.row_of = row_of if row_of is not None else KeyIndex(self._col["id"].array)
        is_repo = _mask(pc.equal(kind, "repo"))
        is_place = _mask(pc.is_in(kind, pa.array(["file", "dir"])))
        rows = np.flatnonzero(is_repo | is_place)
        keys = pc.if_else(pa.array(is_repo[rows]), "", path.take(pa.array(rows)))
        self.by_path = KeyIndex(keys, rows)
        rows = np.flatnonzero(_mask(pc.not_equal(qual, "")) & ~is_repo & ~is_place)
        self.by_qual = KeyIndex(pc.binary_join_element_wise(path.take(pa.array(rows)),
                                                            qual.take(pa.array(rows)), "\x00"), rows)
        self._n = n

    @classmethod
    def from_records(cls, records: Iterable[Mapping]) -> "CodeLookup":
        """Over plain node records (``schema.NODES`` field names; extra fields ignored)."""
        recs = list(records)
        return cls(pa.table({c: pa.array([r.get(c) for r in recs], pa.string()) for c in COLUMNS}))

    @classmethod
    def of(cls, code) -> "CodeLookup":
        """A CodeLookup from itself, a pyarrow Table or dict records."""
        if isinstance(code, CodeLookup):
            return code
        if isinstance(code, pa.Table):
            return cls(code.select([c for c in COLUMNS if c in code.column_names]))
        return cls.from_records(code or [])

    def row(self, target: str) -> int | None:
        """Row of a node id, a path, or path::qualified.name; None when there is none. A name
        not found as written is looked up in its other Unicode normal form (macOS file APIs give
        'módulo' decomposed, git stores the bytes as committed: it was "no node" printed exactly
        like the indexed path, a probe)."""
        row = self._row(target)
        if row is None and isinstance(target, str) and not target.isascii():
            for form in ("NFC", "NFD"):
                other = unicodedata.normalize(form, target)
                if other != target and (row := self._row(other)) is not None:
                    break
        return row

    def _row(self, target: str) -> int | None:
        if not isinstance(target, str):
            return None
        row = self.row_of.get(target)
        if row is not None:
            return row
        t = target.strip()
        if "::" in t:
            p, q = t.split("::", 1)
            # a stored path as typed first: a backslash is a name's own character on POSIX
            row = self.by_qual.get(p.strip() + "\x00" + q.strip())
            if row is None:
                row = self.by_qual.get(target_path(p) + "\x00" + q.strip())
            if row is None and "`" in q:      # a Kotlin/Scala name copied with its backticks: stored without
                return self.row(p + "::" + q.replace("`", ""))
            if row is None:                   # C++/Rust spelling, namespace left out: when it names one
                got = self._spelled(p, q)
                row = got[0] if len(got) == 1 else None
            return row
        row = self.by_path.get(t)
        if row is not None:
            return row
        return self.by_path.get(target_path(t))

    def spelled(self, target: str) -> list[int]:
        """The rows a ``path::name`` target names as its language writes it, where the name as
        written is none of the file's qualified names: several, an ambiguity the caller lists (one
        is the row ``row`` answers; none: nothing close). Its NFC/NFD other form too, as ``row``."""
        if not isinstance(target, str) or "::" not in target:
            return []
        forms = [target] + ([unicodedata.normalize(f, target) for f in ("NFC", "NFD")] if not target.isascii() else [])
        for t in dict.fromkeys(forms):
            p, q = t.strip().split("::", 1)
            got = self._spelled(p, q.replace("`", ""))
            if got:
                return got
        return []

    def _spelled(self, p: str, q: str) -> list[int]:
        """Rows of file P that Q names read in its language's way: further ``::`` as the ``.`` a
        qualified name holds (C++ ``DBImpl::Write``, Rust ``Searcher::search_path``; a Python, JS or
        Go qualified name never holds ``::``), and a leading namespace or module left out
        (``DBImpl.Write`` names ``leveldb.DBImpl.Write``, ``buffer_basics1`` Rust's
        ``tests.buffer_basics1``): each a qualified name of the file ending with ``.Q`` whose dropped
        part holds no definition of the file and no class anywhere (a namespace or ``mod`` is no
        node; ``pricing.py::discount`` never names ``Cart.discount``, nor ``db_impl.cc::Write``
        the ``DBImpl::Write`` of a class a header declares). Scans only the named file's rows."""
        name = ".".join(part.strip() for part in q.strip().split("::")).strip(".")
        path = p.strip() if self.by_path.get(p.strip()) is not None else target_path(p)
        file = self.by_path.get(path)
        if not name or file is None or self._col["kind"][file] != "file":
            return []
        if name != q.strip() and (row := self.by_qual.get(path + "\x00" + name)) is not None:
            return [row]
        rows = np.flatnonzero(_mask(pc.equal(self._col["path"].array, path))
                              & ~_mask(pc.is_in(self._col["kind"].array, pa.array(NOTE_KINDS))))
        quals = self._col["qualname"].take(rows.tolist())
        own = set(filter(None, quals))
        tail = "." + name

        def chain(prefix: str) -> list[str]:
            parts = prefix.split(".")
            return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
        found = [(int(r), chain(qual[:-len(tail)])) for r, qual in zip(rows.tolist(), quals)
                 if qual and qual.endswith(tail) and len(qual) > len(tail)]
        found = [(r, c) for r, c in found if not own.intersection(c)]
        if not found:
            return []
        dropped = sorted({x for _, c in found for x in c})
        is_class = _mask(pc.and_(pc.is_in(self._col["qualname"].array, pa.array(dropped, pa.string())),
                                 pc.equal(self._col["kind"].array, "class")))
        classes = set(self._col["qualname"].take(np.flatnonzero(is_class).tolist()))
        return [r for r, c in found if not classes.intersection(c)]

    def _code(self, row: int | None):
        from stratum.notes import Resolved

        if row is None:
            return None
        col = self._col
        kind = col["kind"][row]
        if kind in NOTE_KINDS:
            return None
        return Resolved(col["id"][row], col["content_hash"][row], col["path"][row] or "",
                        col["qualname"][row] or "", kind or "")

    def resolve(self, target: str):
        """The code node ``target`` names, as a ``notes.Resolved`` (None: unknown, or a note)."""
        return self._code(self.row(target))

    def hash_of(self, node_id: str) -> str | None:
        r = self._code(self.row_of.get(node_id))
        return r.content_hash if r else None

    def __contains__(self, node_id: object) -> bool:
        return isinstance(node_id, str) and self._code(self.row_of.get(node_id)) is not None

    def __len__(self) -> int:
        return self._n


def target_path(p: str) -> str:
    """The stored path a target's path names: ``ids.norm_path`` (forward slashes, no leading ``./``,
    no leading or trailing slash), and inner ``.`` and empty segments dropped, "." the repository
    (""). ``shop/./util.py`` and ``shop//util.py`` name ``shop/util.py``, as the file system reads
    them (they were "in the repository but not in the index", while ``./././shop/util.py`` and
    ``shop/util.py//`` were found: a probe). A ``..`` segment stays: it names no stored path. Every
    reader of a target takes it from here (``CodeLookup.row``, ``Memory.unindexed``)."""
    p = norm_path(p)
    if "/./" in p or "//" in p or p.endswith("/.") or p == ".":
        p = "/".join(seg for seg in p.split("/") if seg not in ("", "."))
    return p


def _mask(arr) -> np.ndarray:
    return np.asarray(arr.fill_null(False).to_numpy(zero_copy_only=False), bool)


__all__ = ["CodeLookup", "COLUMNS", "target_path"]
