"""What the focus (the files being edited) reaches in the graph: the facts behind the controller's G
and C signals. Each file's hops over imports/tests edges to the nearest focus file (G), and its
co-change affinity with the focus, each focus file's partners scaled to its strongest one (C).

Why apart from ``stratum.controller``: this is graph arithmetic over a :class:`GraphView` alone, with
no budget, entries or lock; the controller keeps the one result for the focus it has
(``Controller._focus_info``) and drops it when the focus or the graph changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stratum.graphview import GraphView


@dataclass
class Focus:
    files: tuple[str, ...]
    hops: dict[str, int] = field(default_factory=dict)      # file -> hops to the nearest focus file
    affinity: dict[str, float] = field(default_factory=dict)  # file -> normalised co-change, [0, 1]


def reach(graph: GraphView, files: tuple[str, ...], max_hops: int, kinds: tuple[str, ...]) -> Focus:
    """``files``' reach: hops up to ``max_hops`` over edges of ``kinds`` (breadth first), and
    co-change affinity in [0, 1] (a focus file's own: 1)."""
    info = Focus(files)
    frontier = list(files)
    for f in files:
        info.hops[f] = 0
    for d in range(1, max_hops + 1):
        nxt = []
        for f in frontier:
            for n in graph.neighbors(f, kinds):
                if n not in info.hops:
                    info.hops[n] = d
                    nxt.append(n)
        frontier = nxt
    for f in files:
        cc = graph.cochange(f)
        top = max(cc.values(), default=0.0)
        if top > 0:
            for g, w in cc.items():
                if w > 0:
                    info.affinity[g] = max(info.affinity.get(g, 0.0), min(1.0, w / top))
    for f in files:
        info.affinity[f] = 1.0
    return info


__all__ = ["Focus", "reach"]
