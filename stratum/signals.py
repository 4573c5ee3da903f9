"""The shard adapter of ranking: ``rank.Signals`` read from a loaded ``Shard`` and its notes overlay.

Why apart from ``stratum.rank``: the fusion there is pure arithmetic over candidates and is tuned for
quality; this module is the I/O side (column reads, graph walks, note staleness) and is tuned for
speed at 1M nodes. It reads only the shard's and overlay's public methods.
"""

from __future__ import annotations

import json
from dataclasses import replace
from sys import intern
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Mapping, Protocol

import numpy as np

from stratum import schema as S
from stratum.codetokens import COMPOUND, declared_name, is_identifier, looks_like_identifier, node_text
from stratum.ids import norm_path
from stratum.nametails import file_by_tail, module_file, restyled
from stratum.rank import CO_PARTNERS, CODE_ITEM_KINDS, GRAPH_PARTNERS, CoEdge, Hit, NoteInfo, Scored, co_terms
# the per-shard memo lives in ``stratum.shardmemo``; its old names here stay importable
from stratum.shardmemo import MEMO_ENTRIES, MEMOS as _MEMOS, NOTE_MEMOS as _NOTE_MEMOS, memo_of as _memo
from stratum.shardmemo import ShardMemo as _ShardMemo  # noqa: F401
from stratum.targetstale import judged
from stratum.warm import NO_TIME

if TYPE_CHECKING:
    from stratum.branchcode import BranchCode

MAX_NAMED = 3       # definitions a prose query may name at once (more: its names are too common to point)

_WORDS = {("imports", True): "imported by", ("imports", False): "imports",      # (edge kind, outgoing)
          ("tests", True): "tested by", ("tests", False): "tests"}
_NOTE_KINDS = frozenset(S.NOTE_KINDS)
_SYMBOL_KINDS = frozenset(("class", "function", "method"))
_UNSEEN = object()


def _shared(s):
    """One object per distinct string (``sys.intern``); any other value as it is."""
    return intern(s) if s.__class__ is str else s


class ShardSignals:
    """``Signals`` over a loaded ``Shard`` and, optionally, its ``NotesOverlay``.

    ``extra``: notes known only to the caller (note id -> NoteInfo), e.g. the benchmarks' in-memory
    notes searched as extra documents. Reads only the shard's and overlay's public methods."""

    def __init__(self, shard, overlay=None, extra: Mapping[str, NoteInfo] | None = None):
        self.shard = shard
        self.overlay = overlay
        self.extra = extra if extra is not None else {}      # not `or`: len() of a notes cache walks it
        self._cache: dict[str, Hit] = {}
        self._memo = _memo(shard)

    def _file(self, path: str | None, kind: str) -> str | None:
        return path or None if kind in CODE_ITEM_KINDS else None

    def _note(self, nid: str, kind: str, meta: str | None, status: str | None, title: str = "") -> NoteInfo:
        about = json.loads(meta or "{}").get("about", [])
        files, nodes = _lends(kind, [(t.get("path") or "", t.get("kind"), t.get("node_id") or "") for t in about])
        stale, created, j = "", None, None
        if self.overlay is not None:
            status = self.overlay.status_of(nid) or status
            note = self.overlay.notes.get(nid)
            if note is not None:
                # judged as the default branch's answers judge it, per target (``targetstale``): a branch's
                # note about the code the branch changed is about that version, not stale (``OnDefault``)
                j = judged(self.overlay.judge, note)
                stale, created = j.stale, note.created_at
        live = j if (status or "active") == "active" else None     # an active note's judgement, per target
        return _info(kind, files, status or "active", stale, created, title or "", nodes,
                     live.fresh_in(files) if live is not None else (), live.split_in() if live is not None else ())

    def hit(self, c: Scored) -> Hit:
        key = c.id or str(c.row)
        h = self._cache.get(key)
        if h is not None:
            return h
        # one lookup (a cache may compute it); extra notes are never shard rows
        info = self.extra.get(c.id) if c.id and c.row < 0 else None
        if info is not None:
            h = Hit(info.kind, None, note=info)
        elif c.row < 0:
            rec = self.overlay.get(c.id) if self.overlay is not None else None
            h = Hit(rec["kind"], None, note=self._note(c.id, rec["kind"], rec.get("meta"), rec.get("status"),
                                                       rec.get("name") or "")) if rec else Hit("", None)
        else:
            h = self._memo.get("hit", c.row, lambda: self._row_hit(c.row))
            if h.kind in S.NOTE_KINDS:      # a merged note: its standing is the overlay's, read now
                h = self._merged_note(c.row, h.kind)
        self._cache[key] = h
        return h

    def _merged_note(self, row: int, kind: str) -> Hit:
        """The hit of a merged note's row, kept per overlay while the note's fold and status (as
        this caller sees it) hold: its record is immutable, its staleness is judged against the
        overlay's code (fixed per overlay), and a fold replaces a changed note's object rather
        than editing it. Re-reading its meta and staleness cost ~30 us a merged note a search."""
        col = self.shard.col
        nid = col("id")[row]
        ov = self.overlay
        if ov is None or ov.shard is not self.shard:
            # no overlay, or a call still holding an older version beside the new version's
            # overlay (Memory.overlay after a reload): its rows are not the overlay's rows
            return Hit(kind, None, note=self._note(nid, kind, col("meta")[row], col("status")[row],
                                                   col("name")[row] or ""))
        memo = _NOTE_MEMOS.get(ov)
        if memo is None:
            memo = _NOTE_MEMOS.setdefault(ov, {})
        key = (ov.status_of(nid), ov.notes.get(nid))
        got = memo.get(row)
        if got is not None and got[0] == key[0] and got[1] is key[1] and got[2] == nid:
            return got[3]
        h = Hit(kind, None, note=self._note(nid, kind, col("meta")[row], col("status")[row], col("name")[row] or ""))
        if len(memo) >= MEMO_ENTRIES:
            memo.clear()
        memo[row] = (*key, nid, h)
        return h

    def hit_many(self, candidates) -> list[Hit]:
        """``hit`` of each candidate; a code row already read (most of them: ``prefetch``) is one
        dict look, not a call, and the unmerged notes' hits come whole from ``extra`` in one call
        when it keeps them (``overlay.RankInfos.hits``: ~60 of 150 candidates with 10,000 notes)."""
        table = self._memo.tables["hit"]
        out: list = []
        unmerged: list[int] = []            # positions of unmerged notes: asked of ``extra`` at once
        for c in candidates:
            if c.row >= 0:
                h = table.get(c.row)
                out.append(self.hit(c) if h is None or h.kind in _NOTE_KINDS else h)
            else:
                unmerged.append(len(out))
                out.append(None)
        if unmerged:
            many = getattr(self.extra, "hits", None)
            got = many([candidates[i].id for i in unmerged]) if many is not None else [None] * len(unmerged)
            for i, h in zip(unmerged, got):
                out[i] = h if h is not None else self.hit(candidates[i])
        return out

    def _row_hit(self, row: int, kind: str | None = None, path: str | None = None) -> Hit:
        if kind is None:
            kind, path = self.shard.col("kind")[row], self.shard.col("path")[row]
        if kind in S.NOTE_KINDS:
            return Hit(kind, None)          # hit() reads the note itself: its standing changes
        return Hit(kind, self._file(_shared(path), kind))      # the object notes' paths are (_note)

    def prefetch(self, candidates) -> "ShardSignals":
        """Read the shard rows of these candidates in one take per column (a search ranks ~150,
        two columns a row: one call per column instead of ~300 cell reads at 1M nodes)."""
        table = self._memo.tables["hit"]
        rows = list(dict.fromkeys(c.row for c in candidates if c.row >= 0 and c.row not in table))
        if len(rows) > 1:
            table = self._memo.room("hit", len(rows))
            col = self.shard.col
            for r, kind, path in zip(rows, col("kind").take(rows), col("path").take(rows)):
                table[r] = self._row_hit(r, kind, path)
        return self

    def exact_names(self, query: str, candidates, dotted: bool = True) -> dict[str, int]:
        """id -> row of an identifier query's exact matches (``rankplace.exact_first``): the node a
        target ``path::Qualified.name`` names (``_target``), else the name list's candidates (the
        whole query is a node's name, qualified name or path), else for a dotted ``module.name``
        (``werkzeug.utils.redirect``, ``routing.Map``, as imports and tracebacks write them) the
        nodes its tail names whose file lies under its head (``dotted``: not under a filter, which
        those nodes were not checked against; a target's node then counts only among the candidates)."""
        declared = declared_name(query)     # `def simplify(expr`, `class Flask`: that name, a plain word too
        if declared is not None:
            query = declared
        elif not is_identifier(query):
            return {}
        target = self._target(query.strip())
        if target is not None:
            rows = set(target.values())
            return target if dotted or any(c.row in rows for c in candidates) else {}
        named = {c.id: c.row for c in candidates if "name" in c.sources and c.row >= 0}
        if len(named) > 1:      # the name list folds case: ``Session`` the class, not ``session()`` (a probe)
            named = {nid: r for nid, r in named.items() if self._spelt(r, {query.strip()})} or named
        if not named and "/" in query and "::" not in query:     # a path's tail, as `get` takes it
            named = file_by_tail(self.shard, query.strip())             # (requests/cookies.py: rank 70, a probe)
        parts = [p for p in query.strip().replace("::", ".").split(".") if p]
        kw = self.shard.warm.searcher.keywords
        if not named and kw is not None and len(parts) == 1:    # the other case style of the name
            named = restyled(self.shard, parts[0], kw, CODE_ITEM_KINDS, MAX_NAMED)                 # (requests_cookie_jar: rank 48, a probe)
        if named or not dotted or len(parts) < 2 or kw is None:
            return named
        module = module_file(self.shard, parts)
        if module:
            return module
        col = self.shard.col
        for k in range(1, len(parts)):
            tail, head = ".".join(parts[k:]), [p.lower() for p in parts[:k]]
            rows = kw.name_rows(tail).tolist()[:64]
            exact = [r for r in rows if (col("qualname")[r] or "").lower() == tail.lower()] or rows
            out = {}
            for r in exact:
                segs = [s.lower() for s in PurePosixPath(col("path")[r] or "").with_suffix("").parts if s != "__init__"]
                if any(segs[i:i + len(head)] == head for i in range(len(segs) - len(head) + 1)):
                    out[col("id")[r]] = int(r)
            if out:
                return out
        return {}

    def _target(self, query: str) -> dict[str, int] | None:
        """{id: row} of the code node a ``path::Qualified.name`` query names, resolved as ``get``
        resolves it (the form answers print and agents copy: ``shop/cart.py::Cart.total``; pytest's
        ``tests/test_x.py::TestCart::test_total`` too); {} when its path is a path (a ``/`` in it,
        or a file here) but the target names no node: a same-named node in another file is not
        what it points at. None: not a target (no ``::``; no name after it, ``shop/cart.py::``, whose
        file the name list has; or ``std::vec::Vec``-like module names, which the dotted reading takes)."""
        path, sep, qual = query.partition("::")
        if not sep or not qual.strip(":"):
            return None
        targets = [query] if "::" not in qual else [query, f"{path}::{qual.replace('::', '.')}"]
        got = self._resolved(targets)
        if got is not None:
            return got
        # by its path's tail, as `get` takes it (requests/models.py::Response, sessions.py::Session.send: a probe)
        file = next(iter(file_by_tail(self.shard, path).values()), None) if path.strip() else None
        if file is not None:
            full = self.shard.col("path")[file] or path
            return self._resolved([full + t[len(path):] for t in targets]) or {}
        return {} if "/" in path or self.locate(norm_path(path)) is not None else None

    def _resolved(self, targets: list[str]) -> dict[str, int] | None:
        """{id: row} of the first of ``targets`` that names a code node, else None."""
        for t in targets:
            row = self.shard.resolve(t)
            if row is not None and self.kind_of(row) in CODE_ITEM_KINDS:
                return {self.shard.col("id")[row]: int(row)}
        return None

    def named_in(self, query: str, candidates) -> dict[str, int]:
        """id -> row of the definitions and files a prose query names by an identifier
        (``parse_header_links``, ``TaggedJSONSerializer.register()``, ``app.py``: the name list's
        candidates, ``rankplace.named_first``); a one-identifier query is ``exact_names``'. Only
        code: a note or mined change whose title is the whole query, or a package folder that an
        identifier-like word names (``urllib3``), is not what the query points at. Only as the code
        spells it: the name list folds case, and "IPv6 SERVER_NAME is not wrapped" named the environ
        key, not ``EnvironBuilder.server_name`` (a probe: it led the page, "named in the query")."""
        if is_identifier(query) or declared_name(query):      # exact_names takes those
            return {}
        kind = self.kind_of
        named = {c.id: c.row for c in candidates if "name" in c.sources and c.row >= 0 and kind(c.row) in CODE_ITEM_KINDS}
        if named:
            spelt = {m for w in query.split() for m in COMPOUND.findall(w) if looks_like_identifier(m)}
            named = {nid: r for nid, r in named.items() if self._spelt(r, spelt)}
        return named if len(named) <= MAX_NAMED else {}     # "fix __init__ of Cart": every __init__ is no pointer

    def _spelt(self, row: int, spelt: set[str]) -> bool:
        """Whether the query writes the row's name, qualified name or (a file's) path as it is
        written in the code (``codetokens.node_names``' keys, case kept)."""
        col = self.shard.col
        return bool(spelt.intersection((col("name")[row], col("qualname")[row],
                                        col("path")[row] if self.kind_of(row) == "file" else None)))

    def doc_text(self, row: int) -> str | None:
        """The words a file no grammar parses is keyword-searched by (``codetokens.node_text``: its
        path and first BODY_CHARS), read for ``rankplace.phrase_first``; None for any other row."""
        if self.kind_of(row) != "file" or self.shard.col("language")[row]:
            return None
        return node_text(self.shard.record(row))

    def kind_of(self, row: int) -> str:
        """The node kind of a shard row (memoised with its hit)."""
        return self._memo.get("hit", row, lambda: self._row_hit(row)).kind

    def cochange(self, path: str) -> list[CoEdge]:
        return self._memo.get("cochange", path, lambda: self._cochange(path))

    def cochange_terms(self, path: str, half_life_days: float) -> list[tuple[str, float, int, float]]:
        """``rank.co_terms`` of the file's co-change edges, kept per shard like the edges."""
        key = (path, half_life_days)
        got = self._memo.tables["co_terms"].get(key)
        if got is None:
            got = self._memo.get("co_terms", key, lambda: self._co_terms(path, half_life_days))
        return got

    def _co_terms(self, path: str, half_life_days: float) -> list[tuple[str, float, int, float]]:
        """``co_terms(self.cochange(path), half_life_days)``; on a compiled shard from the partners'
        plain values (``Shard.seed_cochange``: the seed table's row once it is ready), with no
        attribute dict, datetime or ``CoEdge`` per partner. The same values: the age is the whole
        microseconds between the two times over 10**6, as ``timedelta.total_seconds`` divides."""
        if not self.shard.compiled_hops or path in self._memo.tables["cochange"]:
            return co_terms(self.cochange(path), half_life_days)
        row = self._resolve(path)
        if row is None:
            return []
        rows, paths, is_file, support, conf, when = self.shard.seed_cochange(row, CO_PARTNERS)
        self._learn(rows, paths, is_file)
        known = [t for t in when if t != NO_TIME]
        newest = max(known) if known else None
        out = []
        for p, c, n, t in zip(paths, conf, support, when):
            decay = 1.0
            if newest is not None and t != NO_TIME and half_life_days > 0:
                decay = 0.5 ** ((newest - t) / 1_000_000 / 86400.0 / half_life_days)
            out.append((p or "", 0.0 if c != c else c, n, decay))    # c != c: a null confidence (NaN)
        return out

    def _cochange(self, path: str) -> list[CoEdge]:
        row = self._resolve(path)
        if row is None:
            return []
        if self.shard.compiled_hops:
            top, attrs = self.shard.cochange_top(row, CO_PARTNERS)
        else:
            nb, _ = self.shard.hop(row, ("cochange",), "out")
            top = nb.rows[np.argsort(-nb.weights, kind="stable")[:CO_PARTNERS]].tolist()   # weight: forward confidence
            attrs = self.shard.edge_attrs_many(row, top, "cochange")
        out = []
        for r, p, a in zip(top, self._file_paths(top), attrs):
            if a:
                out.append(CoEdge(p or self.shard.col("path")[r] or "", int(a["support"] or 0),
                                  float(a["confidence"] or 0.0), a.get("last_time")))
        return out

    def _resolve(self, path: str) -> int | None:
        """The shard row of a path, kept per shard: a seed's co-change partners and its neighbours
        both start from it (``Shard.file_row``: a dict look once the seed table is ready, else a
        hash lookup of ~15-30 us at 1M nodes, once per new seed, not twice)."""
        t = self._memo.tables["row"]
        try:
            return t[path]
        except KeyError:
            return self._memo.get("row", path, lambda: self.shard.file_row(path))

    def _file_paths(self, rows: list[int]) -> list[str | None]:
        """The paths of these rows where they are files (else None), one take of the paths and the
        kinds compared as codes; each file found here also answers ``locate(path)`` (``_learn``)."""
        if not rows:
            return []
        col = self.shard.col
        paths = col("path").take(rows)
        is_file = col("kind").equals(rows, "file").tolist()
        self._learn(rows, paths, is_file)
        return [p if p and f else None for p, f in zip(paths, is_file)]

    def _learn(self, rows: list[int], paths: list, is_file) -> None:
        """Each of these rows that is a file answers ``locate(its path)`` from now on (the added files
        of a search are mostly seeds' neighbours: resolving their paths by hash again cost ~60 us
        each at 1M); its id is read when a search adds it. ``is_file`` True: all of them."""
        loc = self._memo.room("locate", len(rows))
        for r, p, f in zip(rows, paths, is_file if is_file is not True else [True] * len(rows)):
            if f and p and p not in loc:
                loc[p] = (None, int(r))

    def structure(self, path: str) -> tuple[int, list[tuple[str, str]]]:
        return self._memo.get("structure", path, lambda: self._structure(path))

    def _structure(self, path: str) -> tuple[int, list[tuple[str, str]]]:
        row = self._resolve(path)
        if row is None:
            return 0, []
        if self.shard.compiled_hops:         # every neighbour is a file (the kernel keeps files only)
            n, top, paths, kinds, outgoing = self.shard.seed_structure(row, GRAPH_PARTNERS)
            self._learn(top, paths, True)
            return n, [(p, _WORDS.get((k, o), k)) for p, k, o in zip(paths, kinds, outgoing) if p]
        nb, names = self.shard.hop(row, ("imports", "tests"), "both")
        ok = nb.rows != row
        if ok.any():
            ok &= self.shard.col("kind").equals(nb.rows, "file")
        if not ok.any():
            return 0, []
        # each file once, with its tests edge when it has one (a test that also imports the file
        # is its test), else its first edge in the walk's order
        rows, kinds, outgoing = nb.rows[ok], nb.kinds[ok], nb.outgoing[ok]
        test_code = names.index("tests") if "tests" in names else -1
        pref = np.lexsort((kinds != test_code, rows))          # stable: by row, tests edges first
        cand, first = np.unique(rows[pref], return_index=True)
        kinds, outgoing = kinds[pref][first], outgoing[pref][first]
        is_test = kinds == test_code
        # the most specific first: tests, then files with the fewest edges of their own, then row
        order = np.lexsort((cand, self.shard.degrees(cand), ~is_test))[:GRAPH_PARTNERS]
        top = cand[order].tolist()
        paths = self._file_paths(top)
        return len(cand), [(p, _WORDS.get((names[k], o), names[k]))
                           for p, k, o in zip(paths, kinds[order].tolist(), outgoing[order].tolist()) if p]

    def locate_many(self, paths: list[str]) -> list[tuple[str, int] | None]:
        """``locate`` of each path; a file learnt from a neighbour list (most of a search's added
        files) has its id read with the others' in one take, not one cell read each."""
        table = self._memo.tables["locate"]
        out = [table.get(p, _UNSEEN) for p in paths]
        need = [i for i, got in enumerate(out) if got is _UNSEEN or (got is not None and got[0] is None)]
        if not need:
            return out
        learnt = [i for i in need if out[i] is not _UNSEEN]
        if len(learnt) > 1:
            rows = [out[i][1] for i in learnt]
            table = self._memo.room("locate", 0)
            for i, nid, r in zip(learnt, self.shard.ids(rows), rows):
                out[i] = table[paths[i]] = (nid, r)
        for i in need:
            if out[i] is _UNSEEN or out[i][0] is None:
                out[i] = self.locate(paths[i])
        return out

    def locate(self, path: str) -> tuple[str, int] | None:
        got = self._memo.get("locate", path, lambda: self._locate(path))
        if got is not None and got[0] is None:          # learnt from a neighbour list: the id now
            got = self._memo.tables["locate"][path] = (self.shard.col("id")[got[1]], got[1])
        return got

    def locate_node(self, nid: str) -> tuple[str, int] | None:
        """(id, row) of a class, function or method by its node id, kept per shard: a symbol a note
        is about that the search's text list lacks (``ranksymbols``)."""
        return self._memo.get("node", nid, lambda: self._locate_node(nid))

    def locate_nodes(self, nids: list[str]) -> list[tuple[str, int] | None]:
        """``locate_node`` of each id, the ones already known read in one loop (a search with
        10,000 notes asks for ~17 symbols its notes are about, nearly all known)."""
        table = self._memo.tables["node"]
        out = [table.get(nid, _UNSEEN) for nid in nids]
        for i, got in enumerate(out):
            if got is _UNSEEN:
                out[i] = self.locate_node(nids[i])
        return out

    def _locate_node(self, nid: str) -> tuple[str, int] | None:
        row = self.shard.resolve(nid)
        col = self.shard.col
        if row is None or col("id")[row] != nid or col("kind")[row] not in _SYMBOL_KINDS:
            return None
        return nid, int(row)

    def _locate(self, path: str) -> tuple[str, int] | None:
        row = self._resolve(path)
        if row is None or self.shard.col("kind")[row] != "file":
            return None
        return self.shard.col("id")[row], int(row)


class BranchSignals(ShardSignals):
    """``ShardSignals`` for a branch, commit or worktree session: a note's staleness, which weighs its
    evidence, judged against the code the session sees (``code``, per target: ``targetstale``), as its
    item and the notes get attaches are: ranked against the default branch's code, a note just written
    on the branch counted half ("stale ... counted x0.5") while its item said fresh (a probe). Only
    sessions on a branch pay for it. ``BranchCode.locate`` places a note's targets where the branch
    has their code, as its get does: a note about ``fmt#2`` lifted the branch's ``fmt#2``, a neighbour,
    once the branch added a ``fmt`` above, and its code (``fmt#3``) had no lift (a probe)."""

    def __init__(self, shard, overlay, code: "BranchCode", extra: Mapping[str, NoteInfo] | None = None):
        super().__init__(shard, overlay, extra)
        self._code = code

    def hit(self, c: Scored) -> Hit:
        key = c.id or str(c.row)
        h = self._cache.get(key)
        if h is not None:
            return h
        h = super().hit(c)
        info = h.note
        note = self.overlay.notes.get(c.id) if info is not None and not info.mined else None
        if info is not None and note is not None:
            j, placed = judged(self._code, note), self._code.locate(note)
            if placed is not note or j.stale or info.stale:     # judged again, as the branch sees it
                files, nodes = _lends(info.kind, [(t.path, t.kind, t.node_id) for t in placed.about])
                live = info.status == "active"
                h = Hit(h.kind, h.file, note=_info(info.kind, files, info.status, j.stale, info.created_at,
                                                   info.title, nodes, j.fresh_in(files) if live else (),
                                                   j.split_in() if live else ()))
        self._cache[key] = h
        return h

    def hit_many(self, candidates) -> list[Hit]:
        return [self.hit(c) for c in candidates]


def _info(kind: str, files: tuple, status: str, stale: str, created, title: str, nodes: tuple, fresh_at: tuple,
          split: tuple = ()) -> NoteInfo:
    """A note's ``NoteInfo``; ``fresh_at`` and ``split`` (``targetstale``) set only when it has some:
    most notes build as before."""
    info = NoteInfo(kind, files, status, stale, created, title, nodes)
    return replace(info, fresh_at=fresh_at, split=split) if fresh_at or split else info


def _lends(kind: str, about: list[tuple[str, str | None, str]]) -> tuple[tuple, tuple]:
    """A note's ``NoteInfo`` files and nodes from its targets ABOUT, each (path, kind, node id): the
    stored ones (``ShardSignals._note``) or where a branch placed them (``BranchSignals``). Paths and
    node ids interned (as code hits' paths are, ``_row_hit``): ~40 notes a search with 10,000 notes
    each had its own copies, every one a cache miss and a string compare in the ranking's dict looks;
    one object per path or symbol is shared and stays in cache. An agent note about a symbol lends
    its lift to that symbol's item (``stratum.ranksymbols``)."""
    files = tuple(dict.fromkeys(_shared(p) for p, _, _ in about if p))
    nodes = tuple((_shared(n) if k in _SYMBOL_KINDS else "", _shared(p)) for p, k, n in about if p) \
        if kind in S.AGENT_NOTE_KINDS and any(k in _SYMBOL_KINDS for _, k, _ in about) else ()
    return files, nodes


class BranchListSignals:
    """The signals of a branch session's own list (the overlay shard of the code the branch changed
    or added), reranked among the default branch's candidates, as one index holding the branch's
    version would rank it: the default branch's notes and code (``base_ids``) are read from
    ``notes`` (the session's ``BranchSignals``: a note's staleness judged against the branch's
    code), co-change from the default branch's history (the overlay has none), an unchanged file's
    import and test neighbours from the default branch's graph as the branch has it (``structure``),
    and the branch's code, its files' neighbours and locations from ``code`` (the overlay's
    ``ShardSignals``: a file lifted in is the branch's version, never the default branch's, which
    its own list serves). Ranked with the overlay's signals alone, a fresh rca note about a function
    the branch changed did not lift the branch's version of it (0.020, "text", where the default
    branch's lifted item scored 0.042), and a file the branch changed lost the lift its importer
    among the default branch's hits gave it (flask: tag.py 42nd on main, "imported by sessions.py",
    62nd on a branch that added a function to it)."""

    def __init__(self, code: ShardSignals, notes: ShardSignals, base_ids: set[str], view: "BranchEdges"):
        self._code, self._notes, self._ids, self._view = code, notes, base_ids, view

    def hit(self, c: Scored) -> Hit:
        return self._notes.hit(c) if c.id in self._ids else self._code.hit(c)

    def hit_many(self, candidates) -> list[Hit]:
        return [self.hit(c) for c in candidates]

    def cochange(self, path: str) -> list[CoEdge]:
        return self._notes.cochange(path)

    def cochange_terms(self, path: str, half_life_days: float) -> list[tuple[str, float, int, float]]:
        return self._notes.cochange_terms(path, half_life_days)

    def structure(self, path: str) -> tuple[int, list[tuple[str, str]]]:
        """A file's import and test neighbours as the branch has them: a file the branch changed,
        the overlay's; an unchanged one, the default branch's, where an edge from a file the branch
        changed (``imports``, ``tests``: the neighbour is its source) counts only if the branch's
        version still has it, and one the branch added is added (``BranchView.neighbors``' rule).
        The lift an unchanged seed gives reaches the branch's version of a changed file by its path."""
        v = self._view
        if path in v.changed:
            return self._code.structure(path)
        n, nbrs = self._notes.structure(path)
        loc = self._notes.locate(path)
        now = self._sources(loc[0]) if loc is not None else {}
        keep = [(p, w) for p, w in nbrs if p not in v.changed or w not in _SOURCE_WORDS or now.get(p) == w]
        listed = {p for p, _ in keep}
        new = [(p, w) for p, w in now.items() if p not in listed]
        return n - (len(nbrs) - len(keep)) + len(new), keep + new

    def _sources(self, nid: str) -> dict[str, str]:
        """path -> edge word of the branch's changed files that import or test file NID (the overlay's
        edges to the default branch's nodes, ``StoreOverlay.cross_in``), a tests edge over an imports one."""
        out: dict[str, str] = {}
        osh = self._code.shard
        for src, kind in self._view.cross_in.get(nid, ()):
            r = osh.resolve(src) if kind in _SOURCE_KINDS else None
            if r is None or osh.col("kind")[r] != "file":
                continue                    # a calls or inherits edge, or one from a symbol
            p = osh.col("path")[r]
            if out.get(p) != "tests":       # a test that also imports the file is its test (as _structure says)
                out[p] = _WORDS[(kind, False)]
        return out

    def exact_names(self, query: str, candidates, dotted: bool = True) -> dict[str, int]:
        return self._code.exact_names(query, candidates, dotted=dotted)     # placements: the branch's code

    def named_in(self, query: str, candidates) -> dict[str, int]:
        return self._code.named_in(query, candidates)

    def doc_text(self, row: int) -> str | None:
        return self._code.doc_text(row)

    def __getattr__(self, name: str):
        return getattr(self._code, name)        # locate*: the branch's code


class BranchEdges(Protocol):
    """What ``BranchListSignals`` reads of a store's branch overlay (``branchview.StoreOverlay``)."""
    changed: frozenset[str]                         # paths the branch changed or added
    cross_in: dict[str, list[tuple[str, str]]]      # base node id -> (overlay node id, kind) of edges into it


_SOURCE_KINDS = ("imports", "tests")
_SOURCE_WORDS = frozenset(_WORDS[(k, False)] for k in _SOURCE_KINDS)    # the neighbour is the edge's source


__all__ = ["ShardSignals", "BranchSignals", "BranchListSignals", "BranchEdges"]
