"""Notes an answer carries beyond its node's own (``Memory.notes_about`` gives those): for a part of a
file, only the notes about those lines; for a walk of a file's notes, its symbols' notes too; and the
pin a file a re-index deleted still holds; for a C/C++ function, its declaration's or definition's
notes (``carried``). Each was a probe's finding: 3 lines of a file carried every note of every
function in it; the walk `get`'s hint names listed only the file's own notes; a deleted file's pin
could not be released; a note about a .cc's definition did not show on the header's declaration.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Collection

from stratum import declpairs, schema as S
from stratum.ids import node_id

if TYPE_CHECKING:
    from stratum.branchview import BranchView
    from stratum.memory import AttachedNote, Memory
    from stratum.overlay import NotesOverlay
    from stratum.shard import Shard


def carried(memory: "Memory", sh: "Shard", row: int, view: "BranchView | None" = None,
            beside: Collection[str] = ()) -> list["AttachedNote"]:
    """The notes a code item (row ROW of ``sh``) carries: its own (``Memory.notes_about``, in a
    branch session ``Memory.branch_notes``), and those about its C/C++ counterpart
    (``declpairs``: a header's declaration and its .cc's out-of-line definition are one method),
    each line saying so ("on its definition db/db_impl.cc::leveldb.DBImpl.Write"): a failure note
    on the definition was missed by an agent reading the header (a probe). One the item carries as
    its own is not said again, and none of a counterpart that is an item of the same answer
    (``beside``: their ids), which carries them itself: an answer counts each note once."""
    own = _own(memory, sh, row, view)
    noted = memory.by_path(sh, memory.overlay(sh)) if view is None else None
    if noted is not None and not noted.active and not noted.merged:
        return own          # no note in this store: no pairs read (``declpairs`` reads them once per shard)
    pairs = [(r, what) for r, what in declpairs.counterparts(sh, row) if sh.col("id")[r] not in beside]
    have = {a.id for a in own}
    more = []
    for r, what in pairs:
        where = f"its {what} {sh.col('path')[r]}::{sh.col('qualname')[r]}"
        for a in _own(memory, sh, r, view):
            if a.id not in have:
                have.add(a.id)
                more.append(replace(a, about=f"{where} ({a.about})" if a.about else where))
    if not more:
        return own
    return sorted(own + more, key=lambda a: (S.NOTE_ORDER.get(a.kind, 9), -a.created_at.timestamp(), a.id))


def _own(memory: "Memory", sh: "Shard", row: int, view: "BranchView | None") -> list["AttachedNote"]:
    """The notes about row ROW of ``sh`` itself, as ``Memory`` attaches them (in a branch session
    ``view``, judged against the code it sees)."""
    if view is None:
        return memory.notes_about(sh, row)
    base = view.base_of(sh, list(memory))
    if memory.branch_code(view, base) is None:
        return memory.notes_about(sh, row)
    return memory.branch_notes(view, base, sh, row)


def in_lines(memory: "Memory", sh: "Shard", row: int, span: tuple[int, int | None],
             view: "BranchView | None" = None) -> list["AttachedNote"]:
    """The notes about a file that concern lines ``span``: the whole file's, and those with a target
    symbol (any of its targets in this file) whose lines meet them; one whose symbol is gone stays.
    In a branch session (``view``: row ROW of ``sh``, the overlay's or the base's) the notes its
    item carries (``Memory.branch_notes``), by the lines of the branch's version: there `get FILE
    --lines a-b` carried every note of the file (a probe)."""
    base = view.base_of(sh, list(memory)) if view is not None else sh
    code = memory.branch_code(view, base) if view is not None else None
    if view is None or code is None:
        return _in_lines(memory, sh, row, span)
    path = sh.col("path")[row]
    ov = memory.overlay(base)
    keep = []
    for a in memory.branch_notes(view, base, sh, row):
        note = ov.notes.get(a.id)       # None: a merged record the fold lacks, named by its label
        where = ([t.qualname for t in code.locate(note).about if t.path == path] if note is not None
                 else a.about.split(", "))
        if _meets(sh, path, where, span):
            keep.append(a)
    return keep


def _in_lines(memory: "Memory", sh: "Shard", row: int, span: tuple[int, int | None]) -> list["AttachedNote"]:
    """``in_lines`` off a branch: the notes ``Memory.notes_about`` attaches, by ``sh``'s lines."""
    path = sh.col("path")[row]
    ov = memory.overlay(sh)
    keep = []
    for a in memory.notes_about(sh, row):
        note = ov.notes.get(a.id)       # every target it has in this file, not the one its line names
        quals = [t.qualname for t in note.about if t.path == path] if note is not None else a.about.split(", ")
        if _meets(sh, path, quals, span):
            keep.append(a)
    return keep


def _meets(sh: "Shard", path: str, quals: list[str], span: tuple[int, int | None]) -> bool:
    """Whether a note with targets QUALS in the file at PATH of ``sh`` concerns lines ``span``: one
    about the file (or none of its targets here), or a symbol whose lines meet them, or gone."""
    lo, hi = span[0], span[1] if span[1] is not None else 1 << 30
    for q in quals or [""]:
        r = sh.resolve(f"{path}::{q}") if q else None
        if r is None or (sh.col("start_line")[r] <= hi and sh.col("end_line")[r] >= lo):
            return True
    return False


def of_symbols(memory: "Memory", sh: "Shard", ov: "NotesOverlay", row: int, out: list[tuple]) -> list[tuple]:
    """The notes about a file's symbols that ``out`` (a walk's entries: the file's own about edges)
    lacks, as walk entries: a merged one by its row, an unmerged one by its record. Whatever their
    status, as the walk of each symbol lists them (each item says retracted or superseded): the
    file's walk listed only the active ones (a steering probe; docs/notes.md). Mined ``change``
    nodes stay the file's own, as items carry them (``schema.ATTACHED_NOTE_KINDS``)."""
    ids = [a.id for a in memory.notes_about(sh, row)]           # the active ones, as get carries them
    return _entries(ids + _others(memory, sh, ov, sh.col("path")[row], sh.col("id")[row], row), sh, ov, out)


def of_symbols_in_view(memory: "Memory", view: "BranchView", base: "Shard", sh: "Shard", ov: "NotesOverlay",
                       row: int, out: list[tuple]) -> list[tuple]:
    """``of_symbols`` in a branch session: the notes ``Memory.branch_notes`` attaches to the file's
    item (row ROW of ``sh``, the overlay's or, for a file the branch did not change, ``base``), and
    the others about its symbols whatever their status, as walk entries; a merged one by its row in
    ``base``. A branch session's walk left them all out while its get listed them (a probe), then
    the withdrawn ones while the walk of each symbol, and a default session's, listed them."""
    code = memory.branch_code(view, base)
    path, file_id = sh.col("path")[row], sh.col("id")[row]
    ids = [a.id for a in memory.branch_notes(view, base, sh, row)]
    ids += _others(memory, base, ov, path, file_id, base.resolve(file_id),
                   code.__contains__ if code is not None else None)
    return _entries(ids, base, ov, out)


def of_symbol_in_view(memory: "Memory", view: "BranchView", base: "Shard", sh: "Shard", ov: "NotesOverlay",
                      row: int, out: list[tuple]) -> list[tuple]:
    """The notes a branch session's walk of a symbol (row ROW of ``sh``) lists beyond ``out``, as walk
    entries: those ``Memory.branch_notes`` attaches to its item (active, placed where the branch has
    their code), and the withdrawn ones by its path and the paths the branch's renames lead from to
    it, that land on it (``BranchCode.lands``) and the reader may see. A note the branch placed
    elsewhere is not this symbol's."""
    code = memory.branch_code(view, base)
    if code is None:
        return []
    code_id, path = sh.col("id")[row], sh.col("path")[row]
    ids = [a.id for a in memory.branch_notes(view, base, sh, row)]     # the active ones, placed
    others = memory.by_path(base, ov).others      # path -> the notes not active (as ``_others`` reads them)
    for p in (path, *sorted(code.renames.sources(path))):
        for nid, _, _ in others.get(p, ()):
            n = ov.notes.get(nid)       # None: a mined note, on its own id
            if ov.visible(nid) and (n is None or code.lands(n, code_id, path, False)):
                ids.append(nid)
    return _entries(ids, base, ov, out)


def _others(memory: "Memory", sh: "Shard", ov: "NotesOverlay", path: str, file_id: str, row: int | None,
            sees: Callable[[str], bool] | None = None) -> list[str]:
    """The notes about the symbols of the file at ``path`` (row ROW of ``sh``, None: not there) beyond
    the active ones items carry: unmerged ones not active (by path: ``Memory.by_path``, not a pass
    over every note), and merged ones by their about edges (the fold lacks a merged note with no
    log record). A target that is code only a branch has counts when ``sees`` (a branch session's
    code) holds it: it is no code of the default branch's version."""
    noted = memory.by_path(sh, ov)
    ids = [nid for nid, tid, branch_only in noted.others.get(path, ())
           if tid != file_id and (not branch_only or (sees is not None and sees(tid)))]
    for r in noted.merged.get(path, ()):
        if r != row:
            ids += [sh.col("id")[n] for n, k, _, _ in sh.neighbors(r, (), "in")
                    if k == "about" and sh.col("kind")[n] in S.ATTACHED_NOTE_KINDS]
    return ids


def _entries(ids: list[str], sh: "Shard", ov: "NotesOverlay", out: list[tuple]) -> list[tuple]:
    """The notes ``ids`` (once each) that ``out`` lacks, as walk entries: a merged one by its row in ``sh``, an
    unmerged one by its record (as the session's author reads: identity.reader)."""
    have = {t[5].col("id")[t[0]] if t[0] is not None else (t[1] or {}).get("id") for t in out}
    more: list[tuple] = []
    for nid in dict.fromkeys(ids):
        if nid in have:
            continue
        r = sh.row_of.get(nid)
        rec = None if r is not None else ov.get(nid)
        if r is not None or rec is not None:
            more.append((r, rec, "about", "in", 1.0, sh))
    return more


def pinned_file(memory: "Memory", target: str, pinned: frozenset[str]) -> str | None:
    """The pinned id a target names though a re-index deleted its node: the id itself, or a file's
    by the path it had (ids are made from the repository and the path, not looked up). Its tokens
    stayed pinned for the session's life, though the budget error said to unpin (a probe)."""
    if target in pinned:
        return target
    path = target
    for sh in memory:
        nid = node_id(sh.repo, path.removeprefix("./"), "file", "")
        if nid in pinned:
            return nid
    return None


__all__ = ["carried", "of_symbols_in_view", "of_symbol_in_view", "in_lines", "of_symbols", "pinned_file"]
