"""``walk``'s edges before they are served (``gather``): over calls and inherits edges a file's or
class's definitions walked with it, and each item's edge as the index resolved it; a note's
``about`` targets in a branch session; what an empty walk says (``none_said``).

Why apart from ``tools``: these edges join definitions, not files, so "who calls anything in
cart.py" is a walk of cart.py's definitions, and an item says how its edge was linked
(``pipeline.calls``: a name-resolved edge is worth weighing by its rule).
"""

from __future__ import annotations

from stratum import answernotes
from stratum.schema import NOTE_KINDS

LINKS = ("calls", "inherits")
LINKED = LINKS + ("tests",)     # edges whose items say how they were linked (tests: by name, import or use)


def about(memory, view, sh, base, ov, row: int | None, note: dict | None, into: bool, out_of: bool,
          out: list[tuple]) -> list[tuple]:
    """OUT (a walk's entries: row, note, edge kind, direction, weight, shard) with the ``about`` edges of
    row ROW of SH (``base``: its base shard) or of the unmerged NOTE: the notes about it (INTO) and the
    code a note is about (OUT_OF). In a branch session both are placed where the branch has the code
    (``BranchCode.locate``, as its get places them: ``Memory.branch_notes``): by the raw ids, the walk
    of a symbol whose file the branch renamed listed none of its notes, and a same-named definition
    the branch added above a note's overload listed the note while the note led to it (a helper's
    finding). A default-branch session reads the ids as they are."""
    code = memory.branch_code(view, base) if view is not None else None
    if row is not None and into:
        out = _notes_in(memory, view, code, sh, base, ov, row, out)
    if not out_of or (row is not None and sh.col("kind")[row] not in NOTE_KINDS):
        return out
    nid = sh.col("id")[row] if row is not None else (note or {}).get("id", "")
    placed = ov.notes.get(nid) if code is not None else None
    if row is not None:                 # a merged note: the graph's edges, unless they are to be placed
        if placed is None:
            return out
        out = [t for t in out if t[2] != "about" or t[3] != "out"]
    ids = [t.node_id for t in code.locate(placed).about] if placed is not None and code is not None \
        else ov.about_ids(note or {})
    return out + note_about(view, list(memory), sh, ids)


def _notes_in(memory, view, code, sh, base, ov, row: int, out: list[tuple]) -> list[tuple]:
    """OUT with the notes about row ROW of SH, whatever their status (an item says retracted or
    superseded); a file's symbols' too, as get carries them (``answernotes``). ``code``: a branch
    session's (``BranchCode``), where a note is this node's only if it lands on it."""
    code_id, path, whole = sh.col("id")[row], sh.col("path")[row], sh.col("kind")[row] == "file"

    def lands(nid: str) -> bool:
        n = ov.notes.get(nid)           # None: a mined note, on its own id
        return code is None or n is None or code.lands(n, code_id, path, whole)

    out = [t for t in out if t[2] != "about" or t[3] != "in" or t[0] is None or lands(t[5].col("id")[t[0]])]
    out = out + [(None, n, "about", "in", 1.0, sh) for n in ov.notes_about(code_id, refresh=False) if lands(n["id"])]
    if whole:
        return out + (answernotes.of_symbols(memory, sh, ov, row, out) if view is None else
                      answernotes.of_symbols_in_view(memory, view, base, sh, ov, row, out))
    return out if code is None else out + answernotes.of_symbol_in_view(memory, view, base, sh, ov, row, out)


def note_about(view, shards: list, sh, ids: list[str]) -> list[tuple]:
    """An unmerged note's targets as ``Tools.walk`` lists them (row, None, "about", "out", 1.0,
    shard): in a branch session through its view (the branch's version of code it changed, and
    code only the branch has: a probe's `walk NOTE --edge about` of such a note listed nothing
    there; ``BranchView.note_targets``, which a merged note's walk reads too), else in ``sh``."""
    if view is None:
        return [(r, None, "about", "out", 1.0, sh) for r in map(sh.resolve, ids) if r is not None]
    return [(r, None, "about", "out", 1.0, s) for s, r in view.note_targets(shards, ids)]


def members_links(view, shards: list, sh, row: int | None, kinds: list[str], direction: str,
                  out: list[tuple]) -> dict[str, str]:
    """For a file or class walked for calls/inherits: its definitions' edges too, appended to
    ``out`` as ``Tools.walk`` lists them (row, None, kind, direction, weight, shard), without the
    ones inside it; for a method walked for its callers: the callers of the methods it overrides
    (``overridden``: a call through the base's type may reach it), not the ones it is linked with
    itself; returns each such neighbour's id -> its first member's (or overridden method's) id, in
    any shard (a branch session's too; ``item_meta``, whose ``from`` names it)."""
    linked = tuple(k for k in kinds if k in LINKS)
    kind = sh.col("kind")[row] if row is not None else ""
    if row is None or not linked or kind not in ("file", "class", "method"):
        return {}
    base = view.base_of(sh, shards) if view is not None else None

    def near(s, r: int, ks: tuple, d: str) -> list[tuple]:
        """(shard, row, kind, direction, weight) one hop from row R of shard S, through the view."""
        if view is not None:
            return list(view.neighbors(base, s.col("id")[r], ks, d))
        return [(s, y, k, dd, w) for y, k, dd, w in s.neighbors(r, ks, d)]

    if kind == "method":
        if "calls" not in linked or direction == "out":
            return {}
        inside = overridden(sh, row, near)
        linked, walked = ("calls",), direction
        direction = "in"
        mine = {(sh, row)} | {(ns, r) for ns, r, *_ in near(sh, row, ("calls",), walked)}  # its own links
    else:
        inside = [(sh, m) for m in sh.members(row)]
        mine = set(inside) | {(sh, row)}
    via: dict[str, str] = {}
    for ms, m in inside:
        for ns, r, k, d, w in near(ms, m, linked, direction):
            if (ns, r) in mine:
                continue
            out.append((r, None, k, d, w, ns))
            via.setdefault(ns.col("id")[r], ms.col("id")[m])
    return via


def overridden(sh, row: int, near, depth: int = 3) -> list[tuple]:
    """(shard, row) of the methods of the same name that method ROW of SH overrides: its class's
    bases' (``inherits`` edges through ``near``, so a branch session's too; up to DEPTH levels)."""
    name = sh.col("name")[row]
    owners = [(s, c) for s, c, *_ in near(sh, row, ("contains",), "in") if s.col("kind")[c] == "class"]
    seen, out = {(id(s), c) for s, c in owners}, []
    for _ in range(depth):
        bases = []
        for s, c in owners:
            for bs, b, *_ in near(s, c, ("inherits",), "out"):
                if (id(bs), b) not in seen:
                    seen.add((id(bs), b))
                    bases.append((bs, b))
        for bs, b in bases:
            out += [(ms, m) for ms, m, *_ in near(bs, b, ("contains",), "out")
                    if ms.col("kind")[m] == "method" and ms.col("name")[m] == name]
        owners = bases
    return out


def item_meta(view, base, sh, row: int, ns, r: int, kind: str, direction: str,
              via: dict[str, str]) -> dict[str, str]:
    """``link_meta`` of a walk item reached by ``kind`` edges (none unless calls, inherits or tests; ``via``:
    ``members_links``'s); in a branch session (``view``) by ids through ``BranchView.link_meta``:
    either end may be the overlay's or the base's."""
    if set(kind.split(",")).isdisjoint(LINKED):
        return {}
    me, other = sh.col("id")[row], ns.col("id")[r]
    m = via.get(other, me)
    if view is None:
        if ns is not sh:
            return {}
        mr = row if m == me else sh.resolve(m)
        return link_meta(sh, row, r, direction, row if mr is None else mr)
    got = view.link_meta(base, m, other) if direction in ("out", "both") else {}
    if not got and direction in ("in", "both"):
        got = view.link_meta(base, other, m)
    out = {k: str(v) for k, v in got.items()}
    if m != me:
        for s in (sh, base):
            if s is not None and (mr := s.resolve(m)) is not None:
                out["from"] = s.col("qualname")[mr] or ""
                break
    return out


def link_meta(sh, row: int, r: int, direction: str, m: int) -> dict[str, str]:
    """An item's calls/inherits edge as the index resolved it: how, the call as written (as), its
    line in the caller, and which definition of the walked file or class it joins (from: member
    row ``m``, the walked ``row`` itself when it is not one of its members)."""
    got = sh.link_meta(m, r) if direction in ("out", "both") else {}
    if not got and direction in ("in", "both"):
        got = sh.link_meta(r, m)
    out = {k: str(v) for k, v in got.items()}
    if m != row:
        out["from"] = sh.col("qualname")[m] or ""
    return out

def gather(memory, view, sh, ov, row: int | None, note: dict | None, kinds: list[str], direction: str,
           notes: bool) -> tuple[list[tuple], object, dict]:
    """What ``walk`` serves before it merges a node's edges: (row, note, edge kind, direction, weight,
    the row's shard) each, a quarantined note's rows left out for this reader; the shard the
    session's branch reads the node in (``base``) and the members' links (``members_links``)."""
    out: list[tuple] = []
    base = sh
    if row is not None and view is not None:
        base = view.base_of(sh, list(memory))
        out += [(r, None, k, d, w, ns) for ns, r, k, d, w in
                view.neighbors(base, sh.col("id")[row], tuple(kinds), direction)]
    elif row is not None:
        out += [(r, None, k, d, w, sh) for r, k, d, w in sh.neighbors(row, tuple(kinds), direction)]
    via = members_links(view, list(memory), sh, row, kinds, direction, out)
    if not kinds or "about" in kinds:     # notes about it, or a note's code: on a branch, where it has that code
        out = about(memory, view, sh, base, ov, row, note, direction in ("in", "both") or notes,
                    direction in ("out", "both"), out)
    return [t for t in out if t[0] is None or not memory.hidden(t[5], t[0])], base, via


def none_said(sh, row: int | None, kinds: list[str], direction: str) -> list[str]:
    """What an empty walk of the default session says when the edges asked run the other way or
    join files only (`walk app.py --edge tests` asks who tests it: those edges point here)."""
    if row is None or not kinds:
        return []
    back = len(sh.neighbors(row, tuple(kinds), "in")) if direction == "out" else 0
    if back:
        return [f"no outgoing {'/'.join(kinds)} edges here; {back} point here: walk with "
                f"direction \"in\" (e.g. the tests of a file, who imports it)"]
    if set(kinds) <= {"imports", "tests"} and sh.col("kind")[row] not in ("file", "dir", "repo"):
        return [f"imports and tests edges join files: walk {sh.col('path')[row]} instead"]
    return []


__all__ = ["LINKS", "LINKED", "gather", "none_said", "about", "note_about", "members_links", "overridden", "link_meta", "item_meta"]
