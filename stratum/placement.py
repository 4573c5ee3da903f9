"""Where a note's targets are in one version of the code: the one rule, for both of its readers.

A merge places a note again on re-index (``pipeline.notetargets.place``: the default branch's new
version) and a branch, commit or worktree session places it on the code that session sees
(``stratum.branchcode.BranchCode.locate``). Each says what it has (``Code``: is a node id code
here, its content hash, ``path::qualname`` resolved; ``Leads``: where renames since the note lead;
the writer's own targets) and keeps its own policy: the merge records the writer's targets in the
note's meta, a session never rewrites anything. Pure: no git, no I/O.

A target goes, in this order, to:

1. its current target, when that code exists here;
2. the writer's own target, when that code exists (again): a rename undone, a revert, a branch
   that lacks a rename the default branch made since the note moved;
3. where the renames since the note lead: from the writer's path (with the writer's name), then
   from the current path (a branch's renames start from the indexed version, where the last merge
   put it); the last path of a chain where the name exists.

Wherever it lands, same-named definitions of one scope (overloads, conditional definitions, a
property's getter and setter: ``add``, ``add#2``... in source order, ``pipeline.parse``) are
renumbered when one is added above: the id then holds a neighbour's code. So a target whose id
there holds other code than it was written about (its content hash), or is gone, goes to the one
same-named node of its file holding that code, its name too. None, or two holding the same code:
it stays (stale if its code changed). A target found nowhere stays where it was.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

if TYPE_CHECKING:
    from stratum.notes import Resolved, Target

WRITTEN_KEY = "written_about"   # a merged note's meta: the writer's targets, while a merge moved them
MAX_SAME_NAMED = 256            # same-named definitions of one scope read when renumbering is looked for
_NUMBERED = re.compile(r"#\d+$")  # ``add#2``: the second definition of ``add`` in its scope (pipeline.parse)

# the paths a file at PATH moved through by the renames made since the note was written, in order
Leads = Callable[[str], Sequence[str]]


class Code(Protocol):
    """The code of one version, as placing asks of it (``codelookup.CodeLookup`` is one)."""

    def __contains__(self, node_id: object) -> bool: ...

    def hash_of(self, node_id: str) -> str | None: ...

    def resolve(self, target: str) -> "Resolved | None": ...


def place(about: Sequence["Target"], code: Code, written: Callable[[], Sequence["Target"]],
          leads: Leads) -> list["Target"] | None:
    """ABOUT's targets placed in CODE (module docstring), or None when each already is at its code
    (the cheap test, asked of every note). WRITTEN: the writer's targets, one for each (asked only
    when one is not); LEADS: where renames since the note lead from a path."""
    if all(not t.path or (t.node_id in code and not _renumbered(t, code)) for t in about):
        return None
    return [_target(t, w, code, leads) for t, w in zip(about, written())]


def _target(t: "Target", w: "Target", code: Code, leads: Leads) -> "Target":
    """One target T (W: the writer's) placed by steps 1-3, then on its same-named node."""
    if not t.path:
        return t
    if t.node_id in code:
        at = t
    elif w.node_id in code:
        at = replace(t, node_id=w.node_id, path=w.path)
    else:
        got = _same_named(t, code)
        if got is not None:
            return got
        led = _led(t, w, code, leads)
        if led is None:
            return t
        at = led
    return _same_named(at, code) or at


def _renumbered(t: "Target", code: Code) -> bool:
    """Whether ``t``'s id holds other code than it was written about while a same-named node of its
    file may hold that code (a cheap test first: a numbered name, or a second definition of it)."""
    if not t.content_hash or not t.qualname or code.hash_of(t.node_id) == t.content_hash:
        return False
    return bool(_NUMBERED.search(t.qualname)) or code.resolve(f"{t.path}::{t.qualname}#2") is not None


def same_named(code: Code, path: str, qualname: str) -> list["Resolved"]:
    """The definitions CODE has in PATH named as QUALNAME but for its number (``add``, ``add#2``...,
    ``pipeline.parse``), in source order; at most ``MAX_SAME_NAMED``."""
    base = _NUMBERED.sub("", qualname)
    out = []
    for n in range(1, MAX_SAME_NAMED + 1):
        r = code.resolve(f"{path}::{base}" if n == 1 else f"{path}::{base}#{n}")
        if r is None:
            if n > 1:
                break               # numbering is contiguous from #2 (the first keeps the plain name)
            continue
        out.append(r)
    return out


def _same_named(t: "Target", code: Code) -> "Target | None":
    """The one same-named node of ``t``'s file holding the code ``t`` was written about, when ``t``'s
    own id does not (gone or holding other code)."""
    if not t.content_hash or not t.qualname or code.hash_of(t.node_id) == t.content_hash:
        return None
    found = [r for r in same_named(code, t.path, t.qualname) if r.content_hash == t.content_hash]
    if len(found) != 1:
        return None                 # none holds it (the code changed), or two hold the same code
    r = found[0]
    return replace(t, node_id=r.node_id, path=r.path, qualname=r.qualname or t.qualname)


def _led(t: "Target", w: "Target", code: Code, leads: Leads) -> "Target | None":
    """``t`` at its name in the last file a chain of renames leads to, from the writer's path, then
    from its current one."""
    starts = [(w.path, w.qualname)] + ([(t.path, t.qualname)] if t.path != w.path else [])
    for start, qual in starts:
        if not start:
            continue
        for path in reversed(leads(start)):
            r = code.resolve(f"{path}::{qual}" if qual else path)
            if r is not None and r.node_id in code:
                return replace(t, node_id=r.node_id, path=r.path, qualname=r.qualname or qual)
    return None


__all__ = ["Code", "Leads", "WRITTEN_KEY", "place", "same_named"]
