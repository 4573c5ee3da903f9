"""``walk`` over calls and inherits edges: a file's or class's definitions walked with it, and
each item's edge as the index resolved it.

Why apart from ``tools``: these edges join definitions, not files, so "who calls anything in
cart.py" is a walk of cart.py's definitions, and an item says how its edge was linked
(``pipeline.calls``: a name-resolved edge is worth weighing by its rule).
"""

from __future__ import annotations

LINKS = ("calls", "inherits")


def members_links(view, shards: list, sh, row: int | None, kinds: list[str], direction: str,
                  out: list[tuple]) -> dict[int, int]:
    """For a file or class walked for calls/inherits: its definitions' edges too, appended to
    ``out`` as ``Tools.walk`` lists them (row, None, kind, direction, weight, shard), without the
    ones inside it; returns each such neighbour's first member row in ``sh`` (for ``link_meta``)."""
    linked = tuple(k for k in kinds if k in LINKS)
    if row is None or not linked or sh.col("kind")[row] not in ("file", "class"):
        return {}
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
    return via


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


__all__ = ["LINKS", "members_links", "link_meta"]
