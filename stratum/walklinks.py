"""``walk`` over calls and inherits edges: a file's or class's definitions walked with it, and
each item's edge as the index resolved it.

Why apart from ``tools``: these edges join definitions, not files, so "who calls anything in
cart.py" is a walk of cart.py's definitions, and an item says how its edge was linked
(``pipeline.calls``: a name-resolved edge is worth weighing by its rule).
"""

from __future__ import annotations

LINKS = ("calls", "inherits")


def members_links(view, shards: list, sh, row: int | None, kinds: list[str], direction: str,
                  out: list[tuple], ids: dict[str, str] | None = None) -> dict[int, int]:
    """For a file or class walked for calls/inherits: its definitions' edges too, appended to
    ``out`` as ``Tools.walk`` lists them (row, None, kind, direction, weight, shard), without the
    ones inside it; for a method walked for its callers: the callers of the methods it overrides
    (``overridden``: a call through the base's type may reach it); returns each such neighbour's
    first member (or overridden method) row in ``sh`` (for ``link_meta``, whose ``from`` names it);
    ``ids``: filled with each neighbour's id -> that member's id (any shard: a branch session's)."""
    linked = tuple(k for k in kinds if k in LINKS)
    kind = sh.col("kind")[row] if row is not None else ""
    if row is None or not linked or kind not in ("file", "class", "method"):
        return {}
    if kind == "method":
        if "calls" not in linked or direction == "out":
            return {}
        inside, linked, direction = overridden(sh, row), ("calls",), "in"
        mine = set(inside) | {row} | {r for r, _, _, _ in sh.neighbors(row, linked, "in")}   # its own callers
    else:
        inside = sh.members(row)
        mine = set(inside) | {row}
    base = view.base_of(sh, shards) if view is not None else None
    via: dict[int, int] = {}
    for m in inside:
        if view is not None:
            found = list(view.neighbors(base, sh.col("id")[m], linked, direction))
        else:
            found = [(sh, r, k, d, w) for r, k, d, w in sh.neighbors(m, linked, direction)]
        for ns, r, k, d, w in found:
            if ns is sh and r in mine:
                continue
            out.append((r, None, k, d, w, ns))
            if ns is sh:
                via.setdefault(r, m)
            if ids is not None:
                ids.setdefault(ns.col("id")[r], sh.col("id")[m])
    return via


def overridden(sh, row: int, depth: int = 3) -> list[int]:
    """The methods of the same name that method ROW overrides: its class's bases' (``inherits``
    edges of the index, up to DEPTH levels), nearest first, in this shard."""
    name = sh.col("name")[row]
    owners = [c for c, _, _, _ in sh.neighbors(row, ("contains",), "in") if sh.col("kind")[c] == "class"]
    seen, out = set(owners), []
    for _ in range(depth):
        bases = [b for c in owners for b, _, _, _ in sh.neighbors(c, ("inherits",), "out") if b not in seen]
        seen.update(bases)
        for b in bases:
            out += [m for m, _, _, _ in sh.neighbors(b, ("contains",), "out")
                    if sh.col("kind")[m] == "method" and sh.col("name")[m] == name]
        owners = bases
    return out


def item_meta(view, base, sh, row: int, ns, r: int, kind: str, direction: str, via: dict[int, int],
              ids: dict[str, str]) -> dict[str, str]:
    """``link_meta`` of a walk item reached by ``kind`` edges (none unless calls or inherits); in a
    branch session (``view``) by ids through ``BranchView.link_meta``: either end may be the
    overlay's or the base's."""
    if set(kind.split(",")).isdisjoint(LINKS):
        return {}
    if view is None:
        return link_meta(sh, row, r, direction, via) if ns is sh else {}
    me, other = sh.col("id")[row], ns.col("id")[r]
    m = ids.get(other, me)
    got = view.link_meta(base, m, other) if direction in ("out", "both") else {}
    if not got and direction in ("in", "both"):
        got = view.link_meta(base, other, m)
    out = {k: str(v) for k, v in got.items()}
    if m != me and (mr := sh.resolve(m)) is not None:
        out["from"] = sh.col("qualname")[mr] or ""
    return out


def link_meta(sh, row: int, r: int, direction: str, via: dict[int, int]) -> dict[str, str]:
    """An item's calls/inherits edge as the index resolved it: how, the call as written (as), its
    line in the caller, and which definition of the walked file or class it joins (from)."""
    m = via.get(r, row)
    got = sh.link_meta(m, r) if direction in ("out", "both") else {}
    if not got and direction in ("in", "both"):
        got = sh.link_meta(r, m)
    out = {k: str(v) for k, v in got.items()}
    if m != row:
        out["from"] = sh.col("qualname")[m] or ""
    return out


__all__ = ["LINKS", "members_links", "overridden", "link_meta", "item_meta"]
