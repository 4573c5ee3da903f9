"""The graph facts the context controller needs, through five callbacks (:class:`GraphView`), and
:class:`RecordGraph`, which answers them over plain node and edge records (tests, the replay
benchmark, small overlays). A shard answers them over its warm adjacency (``stratum.memory``)."""

from __future__ import annotations

from typing import Iterable, Mapping, Protocol, Sequence, runtime_checkable

from stratum.schema import LEVELS, NOTE_KINDS


@runtime_checkable
class GraphView(Protocol):
    """The graph facts the controller needs; ids are node ids, files are file node ids."""

    def file_of(self, node_id: str) -> str | None:
        """The file node containing ``node_id`` (itself for a file); None if unknown or fileless."""

    def file_id(self, path: str) -> str | None:
        """The file node id of a repo-relative path; None if there is no such file."""

    def neighbors(self, node_id: str, kinds: Sequence[str]) -> Iterable[str]:
        """Node ids linked to ``node_id`` by an edge of one of ``kinds``, in either direction."""

    def cochange(self, file_id: str) -> Mapping[str, float]:
        """Co-change partners of a file with a non-negative weight (larger = more coupled)."""

    def levels(self, node_id: str) -> Mapping[str, int]:
        """Token cost of each detail level the node has ({} if unknown)."""


class RecordGraph:
    """A :class:`GraphView` over plain node and edge records (dicts keyed by ``stratum.schema``
    field names): for small stores, note overlays, tests and replay benchmarks."""

    def __init__(self, nodes: Iterable[Mapping], edges: Iterable[Mapping] = ()):
        self._kind: dict[str, str] = {}
        self._parent: dict[str, str | None] = {}
        self._levels: dict[str, dict[str, int]] = {}
        self._files: dict[str, str] = {}
        self._adj: dict[str, dict[str, set[str]]] = {}
        self._cc: dict[str, dict[str, float]] = {}
        for n in nodes:
            nid = n["id"]
            self._kind[nid] = n["kind"]
            self._parent[nid] = n.get("parent_id")
            self._levels[nid] = {lvl: int(n[f"{lvl}_tokens"]) for lvl in LEVELS
                                 if n.get(f"{lvl}_tokens") is not None}
            if n["kind"] == "file":
                self._files[n["path"]] = nid
        for e in edges:
            src, dst, kind = e["src"], e["dst"], e["kind"]
            if kind == "cochange":
                w = e.get("weight")
                w = float(e.get("support") or 1) if w is None else float(w)
                self._cc.setdefault(src, {})[dst] = max(w, self._cc.get(src, {}).get(dst, 0.0))
                self._cc.setdefault(dst, {})[src] = max(w, self._cc.get(dst, {}).get(src, 0.0))
            adj = self._adj.setdefault(kind, {})
            adj.setdefault(src, set()).add(dst)
            adj.setdefault(dst, set()).add(src)

    def file_of(self, node_id: str) -> str | None:
        kind = self._kind.get(node_id)
        if kind in NOTE_KINDS:  # a note belongs to the (first) file it is about
            files = sorted(f for t in self._adj.get("about", {}).get(node_id, ())
                           if self._kind.get(t) not in NOTE_KINDS and (f := self.file_of(t)))
            return files[0] if files else None
        cur: str | None = node_id
        steps = 0
        while cur is not None and steps < 64:
            if self._kind.get(cur) == "file":
                return cur
            cur, steps = self._parent.get(cur), steps + 1
        return None

    def file_id(self, path: str) -> str | None:
        return self._files.get(path)

    def neighbors(self, node_id: str, kinds: Sequence[str]) -> list[str]:
        out: set[str] = set()
        for k in kinds:
            out |= self._adj.get(k, {}).get(node_id, set())
        return sorted(out)

    def cochange(self, file_id: str) -> dict[str, float]:
        return dict(self._cc.get(file_id, {}))

    def levels(self, node_id: str) -> dict[str, int]:
        return dict(self._levels.get(node_id, {}))


__all__ = ["GraphView", "RecordGraph"]
