"""A session's view of a branch or commit: the shared base shards plus per-store overlays, as one.

An overlay (built by the pipeline, ``pipeline/overlay.py``, handed in through the composition root's
callback) is a small store holding only the files a branch changed or added. Answering through a
view: base rows of changed and deleted files are hidden, the overlay's rows take their place, added
files appear; search runs on both and merges (the overlay's rows scored among the base's lists,
``stratum.branchscore``); get/walk/tree consult the overlay first. A folder above
a changed, added or deleted file is the overlay's (listed and counted as the branch has it; its
children are the base's unchanged ones plus the overlay's), and a folder the branch emptied is
hidden. Notes about a changed file come from the base and are marked stale for this session only
(the base is untouched).
A branch session follows its branch: every call asks what the branch names now (the builder
answers from git's ref files, ``pipeline.overlaybuilder``) and a new commit is served from that call
on, said on its answer (``then``, ``warning``); a branch that can no longer be read (deleted,
renamed) leaves the session at the commit it served, saying it is behind. A commit names one
version; a worktree session looks at its worktree on every call (the builder's ``_Looks``: git runs
only when its HEAD, index or a listed file's stat moved) and serves an edit from the next call.
Core code: no git, no pipeline; ids are stable (``stratum.ids``), so base and overlay rows of the
same node share an id.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from stratum import branchscore
from stratum import schema as S
from stratum.branchcode import NO_RENAMES, BranchRenames
from stratum.branchnotes import TREE_KINDS, NoteScope, about_ids, check_branch
from stratum.errors import InvalidArgument, NotFound
from stratum.limits import echo
from stratum.shard import Shard
from stratum.store import Store

_NOTE_KINDS = frozenset(S.NOTE_KINDS)

if TYPE_CHECKING:
    from stratum.noteindex import NoteIndex

CROSS_FILE = "cross_edges.json"     # written by pipeline/overlay.py beside the overlay store


@dataclass
class StoreOverlay:
    """One store's overlay: what the branch changed there, and the overlay shard (None: no change)."""

    store_root: str
    commit: str
    changed: frozenset[str]
    deleted: frozenset[str]
    shard: Shard | None

    cross: tuple = ()           # (src id, dst id, kind[, meta]) imports/tests/calls edges between overlay and base
    base_version: int = 0       # the store version the overlay was built against
    deleted_dirs: frozenset[str] = frozenset()      # base folders the branch emptied
    base_moved: frozenset[str] = frozenset()        # changed/deleted paths only the default branch changed since the fork
    dirty: frozenset[str] = frozenset()             # a worktree's uncommitted paths (its notes say so: NoteScope)
    renames: BranchRenames = NO_RENAMES             # the branch's renames since the indexed commit (BranchCode)

    def __post_init__(self) -> None:
        self.hidden_paths = self.changed | self.deleted
        self.cross_out: dict[str, list[tuple[str, str]]] = {}
        self.cross_in: dict[str, list[tuple[str, str]]] = {}
        self.cross_meta: dict[tuple[str, str], str] = {}     # a calls/inherits edge's meta (how, as, line)
        self.placed: tuple | None = None    # (weak ref to a base shard, note id -> placement): Memory.branch_code
        for src, dst, kind, *meta in self.cross:            # an overlay built before meta has three fields
            self.cross_out.setdefault(src, []).append((dst, kind))
            self.cross_in.setdefault(dst, []).append((src, kind))
            if meta and meta[0] and kind in ("calls", "inherits"):
                self.cross_meta[(src, dst)] = meta[0]
        self._index: NoteIndex | None = None                    # branchscore.overlay_index, built on first search
        self._hidden: tuple[int, np.ndarray] | None = None      # (base version, hidden_rows)

    @classmethod
    def load(cls, store_root: str, info: dict, embedder=None) -> "StoreOverlay":
        sh = Shard(Store(info["dir"]), embedder=embedder) if info.get("dir") else None
        cross: list = []
        if sh is not None and (Path(info["dir"]).parent / CROSS_FILE).is_file():
            cross = json.loads((Path(info["dir"]).parent / CROSS_FILE).read_text())
        return cls(store_root, info["commit"], frozenset(info.get("changed", ())),
                   frozenset(info.get("deleted", ())), sh, tuple(tuple(c) for c in cross),
                   int(info.get("base_version", 0)), frozenset(info.get("deleted_dirs", ())),
                   frozenset(info.get("base_moved", ())), frozenset(info.get("dirty", ())),
                   BranchRenames.of(info.get("renames")))

    def hides(self, sh: Shard, row: int) -> bool:
        """A base row of a changed or deleted file, or of a folder the branch emptied. A folder it
        kept stays (the base's contains edges to its unchanged files hold); where one row is served,
        the overlay's row of it stands in (``replaces``)."""
        kind = sh.col("kind")[row]
        if kind in TREE_KINDS:
            return kind == "dir" and sh.col("path")[row] in self.deleted_dirs
        if kind in _NOTE_KINDS:     # a merged note carries its code's path, but it is no code of the
            return False            # file: hidden, a branch's own notes vanished from it after a re-index
        return sh.col("path")[row] in self.hidden_paths

    def branch_changed(self, sh: Shard, row: int) -> bool:
        """A base row ``hides`` whose file the branch itself changed or deleted since it forked, not
        one only the default branch changed since (``base_moved``): a base note about code there is
        not about the branch's code as the note saw it (``memory.BranchCode``), while one about
        code main moved after the fork is judged by its hashes, the branch having that code as it
        was (it read "in a file 'feature' changed since this note was written")."""
        return self.hides(sh, row) and sh.col("path")[row] not in self.base_moved

    def hidden_rows(self, sh: Shard) -> np.ndarray:
        """The base rows ``hides``, sorted (kept per base version): a search drops them from the
        default branch's lists in one pass when it ranks the branch's code among them."""
        got = self._hidden
        if got is None or got[0] != sh.version:
            meta = sh.warm.searcher.meta
            rows: list[int] = []
            for p in self.hidden_paths | self.deleted_dirs:     # a path's rows: a slice of the path order
                c = bisect.bisect_left(meta.path_names, p)
                if c < len(meta.path_names) and meta.path_names[c] == p:
                    rows += [r for r in meta.path_order[meta.path_cum[c]:meta.path_cum[c + 1]].tolist()
                             if self.hides(sh, r)]
            got = self._hidden = (sh.version, np.array(sorted(rows), np.int64))
        return got[1]

    def index(self) -> "NoteIndex":
        """The overlay's rows indexed to be scored against the base's lists (``branchscore``)."""
        if self._index is None:
            assert self.shard is not None, "an overlay with no changed file has no rows to score"
            self._index = branchscore.overlay_index(self.shard)
        return self._index

    def replaces(self, sh: Shard, row: int) -> bool:
        """A base folder or repo row the overlay has its own row of (the branch's listing and counts)."""
        return self.shard is not None and sh.col("kind")[row] in TREE_KINDS \
            and self.shard.row_of.get(sh.col("id")[row]) is not None


def depth_first(start: tuple[Shard, int], kids, depth: int, order) -> list[tuple[Shard, int, int]]:
    """(shard, row, depth) of the ``contains`` hierarchy below ``start``, siblings sorted by
    ``order(shard, row)``: the one walk behind ``tree`` on a base shard and on a branch view.
    ``kids(shard, row)`` lists a node's children as (shard, row)."""
    rows: list[tuple[Shard, int, int]] = []
    stack = [(start[0], start[1], 0)]
    while stack:
        sh, i, d = stack.pop()
        rows.append((sh, i, d))
        if d < depth:
            ks = kids(sh, i)
            ks.sort(key=lambda p: order(p[0], p[1]), reverse=True)
            stack.extend((s, k, d + 1) for s, k in ks)
    return rows


@dataclass
class BranchView:
    """The overlays of one branch/commit over every loaded store (keyed by store root)."""

    rev: str
    overlays: dict[str, StoreOverlay] = field(default_factory=dict)
    args: tuple[str, str, str] = ("", "", "")     # (branch, commit, worktree) it was opened with
    name: str = ""              # a worktree's branch (the overlay builder's ``branch``), for notes
    moved: dict[str, str] = field(default_factory=dict)     # store root -> commit served before a move (said once)
    followed: list[tuple[str, str]] = field(default_factory=list)   # (from, to): each move this session followed
    behind: str = ""            # why the branch's commit now is not the one served ("": it is)
    rebase: bool = False        # ``outdated`` found a store's new version: the old overlay is no answer

    def __post_init__(self) -> None:
        if self.args[0]:            # refused before any git work: notes written here would record it
            check_branch(self.args[0])

    @property
    def follows(self) -> bool:
        """A branch session: it serves what the branch names now (a commit names one version)."""
        return bool(self.args[0])

    def note_scope(self, sh: Shard) -> NoteScope | None:
        """Where a note written in this session about store ``sh`` is written from (None: the
        branch does not differ there, so its targets are the base's): its targets resolve through
        the view, branch-only code recorded as such (``stratum.branchnotes``). A note written on the
        repository's default branch (a worktree that has it out, ``--branch main``, the checkout's
        own edits) records no branch, as one written on the indexed default branch does: the
        index's run report says which that is (``default_branch``); its targets keep the name."""
        o = self.of(sh)
        if o is None:
            return None
        branch, commit, _ = self.args       # one branch however it is spelled ("refs/heads/feature": a probe)
        name = branch.removeprefix("refs/heads/") or self.name or ("" if commit else "worktree")
        default = (sh.manifest.report or {}).get("default_branch")
        return NoteScope(name, o.commit, o.shard.code if o.shard is not None else None, o.hidden_paths,
                         dirty=o.dirty, records="" if name and name == default else None)

    def outdated(self, base_shards: list[Shard]) -> bool:
        """Whether to build the view again (``then``): a store published a new version since (the
        overlay must be diffed against it), or this is a branch session, which asks every call
        whether its branch moved (the builder answers from git's ref files in ~0.1 ms), or a worktree
        session, which looks at its worktree every call (``overlaybuilder._Looks``: an edit is served
        from the next call)."""
        self.rebase = any((o := self.of(sh)) is not None and o.base_version != sh.version for sh in base_shards)
        return self.rebase or self.follows or bool(self.args[2])

    def then(self, build: Callable[[], "BranchView | None"],
             at: Callable[[dict[str, str]], "BranchView | None"]) -> "BranchView":
        """The view to answer with from now on, given BUILD (``args`` built afresh): itself while
        nothing moved; else the new view, remembering the commits it moved from, said on its next
        answer (a probe: a session switched to the branch's new commit silently, at a re-index).
        A branch that cannot be read any more (deleted, renamed) leaves this view, behind, saying
        why; if the base moved too (its overlay was diffed against a version no longer served), AT
        builds the commits it served (store root -> commit) afresh on the new base (a probe: merge,
        delete the branch, re-index, and every call of the session, status too, was refused)."""
        try:
            new = build()
        except InvalidArgument as e:
            if not self.follows:
                raise
            behind = f"{echo(self.rev)!r} cannot be followed ({e})"
            if not self.rebase:
                self.behind = behind
                return self
            view = at(self.commits)
            if view is None:
                raise
            view.name, view.followed, view.behind = self.name, list(self.followed), behind   # its args: it follows
            return view
        if new is None or (new.overlays.keys() == self.overlays.keys()
                           and all(new.overlays[k] is o for k, o in self.overlays.items())):
            self.behind = ""
            return self
        new.followed = list(self.followed)
        for k, o in self.overlays.items():
            n = new.overlays.get(k)
            if n is not None and n.commit != o.commit:
                new.moved[k] = self.moved.get(k, o.commit)
                new.followed.append((o.commit, n.commit))
        return new

    def of(self, sh: Shard) -> StoreOverlay | None:
        return self.overlays.get(str(sh.store.root))

    @property
    def commits(self) -> dict[str, str]:
        return {k: o.commit for k, o in self.overlays.items()}

    def commits_for(self, commits: dict[str, str], base_shards: list[Shard]) -> dict[str, str]:
        """``Memory.fresh``'s commits (keyed as it keys them) with each overlaid store's branch commit."""
        names = [sh.manifest.repo_name or str(sh.store.root) for sh in base_shards]
        out = dict(commits)
        for sh, name in zip(base_shards, names):
            o = self.of(sh)
            key = name if names.count(name) == 1 else str(sh.store.root)
            if o is not None and key in out:        # only the stores the answer draws on (Memory.fresh)
                out[key] = o.commit
        return out

    def describe(self) -> dict:
        """What ``status`` shows of the view: per store, the commit and what the branch changed."""
        out = {"for": self.rev, "follows": self.follows, "behind": bool(self.behind),
               "followed": [list(m) for m in self.followed],
               "stores": {k: {"commit": o.commit, "base_version": o.base_version,
                              "changed": sorted(o.changed), "deleted": sorted(o.deleted)}
                          for k, o in self.overlays.items()}}
        if self.behind:
            out["behind_because"] = self.behind
        return out

    def warning(self) -> str:
        n = sum(len(o.changed | o.deleted) for o in self.overlays.values())
        c = sum(len(o.changed) for o in self.overlays.values())
        d = sum(len(o.deleted) for o in self.overlays.values())
        commit = next(iter(self.overlays.values())).commit[:12] if self.overlays else ""
        said = (f"branch overlay: {n} changed files ({c} changed or added, {d} deleted) vs the indexed "
                f"commit; answers reflect {echo(self.rev)!r} at {commit}")
        if self.moved:          # said once, on the first answer from the new commit
            was = ", ".join(sorted({m[:12] for m in self.moved.values()}))
            said += f" (it moved from {was} since this session's last answer)"     # a commit, a reset or a rewrite
            self.moved = {}
        if self.behind:
            said += f"; behind: {self.behind}, so answers still reflect the commit the session last served"
        return said

    def hidden(self, sh: Shard, row: int | None) -> bool:
        o = self.of(sh)
        return o is not None and row is not None and o.hides(sh, row)

    def resolve(self, base_shards: list[Shard], target: str) -> tuple[Shard, int] | None:
        """(shard, row) of a code target through the view: the overlay first, then the base unless
        the branch changed or deleted its file; None when neither has it."""
        for sh in base_shards:
            o = self.of(sh)
            if o is not None and o.shard is not None:
                r = o.shard.resolve(target)
                if r is not None:
                    return o.shard, r
            r = sh.resolve(target)
            if r is not None:
                if self.hidden(sh, r):
                    why = "deleted every file in this folder" if sh.col("kind")[r] in TREE_KINDS \
                        else "changed or deleted its file"
                    raise NotFound(f"{echo(target)!r} is not on {echo(self.rev)!r} (the branch {why})")
                return sh, r
        return None

    def note_targets(self, base_shards: list[Shard], ids: Iterable[str]) -> list[tuple[Shard, int]]:
        """(shard, row) of the code a note's targets (node IDS) name as the branch has it: its
        version of code it changed, code only it has, the base's code it left alone; a target in a
        file it deleted is left out. The one reading of a note's targets through a view, for a
        merged note (``neighbors``) and an unmerged one (``walklinks.note_about``)."""
        out = []
        for t in ids:
            try:
                hit = self.resolve(base_shards, t)
            except NotFound:
                continue
            if hit is not None:
                out.append(hit)
        return out

    def base_of(self, sh: Shard, base_shards: list[Shard]) -> Shard:
        """The base shard an overlay shard belongs to (itself for a base shard)."""
        for b in base_shards:
            o = self.of(b)
            if o is not None and o.shard is sh:
                return b
        return sh

    def neighbors(self, base: Shard, nid: str, kinds: tuple[str, ...], direction: str
                  ) -> list[tuple[Shard, int, str, str, float]]:
        """(shard, row, kind, direction, weight) one hop from node NID through the view. A base edge
        counts only when the file it comes from (its source) is unchanged on the branch; an end in a
        changed file is that file's overlay row, one in a deleted file is dropped. The overlay's own
        edges and its edges to base nodes (``cross``) are added."""
        o = self.of(base)
        osh = o.shard if o is not None else None
        out: dict[tuple, tuple[Shard, int, str, str, float]] = {}

        def put(sh: Shard | None, r: int | None, k: str, d: str, w: float) -> None:
            if sh is not None and r is not None:
                out.setdefault((sh.col("id")[r], k, d), (sh, r, k, d, w))

        def through(nid2: str) -> tuple[Shard | None, int | None]:
            if osh is not None and (r := osh.resolve(nid2)) is not None:
                return osh, r
            r = base.resolve(nid2)
            return (base, r) if r is not None and not self.hidden(base, r) else (None, None)

        b = base.resolve(nid)
        if b is not None:
            for y, k, d, w in base.neighbors(b, kinds, direction):
                if self.hidden(base, b if d == "out" else y):
                    continue                      # the edge's source file changed or is gone
                swap = self.hidden(base, y) or (o is not None and o.replaces(base, y))   # a kept folder too
                put(*(through(base.col("id")[y]) if swap else (base, y)), k, d, w)
        if b is not None and direction in ("out", "both") and (not kinds or "about" in kinds) \
                and base.col("kind")[b] in _NOTE_KINDS:
            # a merged note's targets as the branch has them: code only the branch has has no about
            # edge in the base (a probe: `walk NOTE --edge about` of such a note listed nothing)
            for tsh, tr in self.note_targets([base], about_ids(base.col("meta")[b])):
                put(tsh, tr, "about", "out", 1.0)
        if osh is not None and (r := osh.resolve(nid)) is not None:
            for y, k, d, w in osh.neighbors(r, kinds, direction):
                put(osh, y, k, d, w)
        if o is not None:
            for d, table in (("out", o.cross_out), ("in", o.cross_in)):
                if direction in (d, "both"):
                    for other, k in table.get(nid, ()):
                        if not kinds or k in kinds:
                            put(*through(other), k, d, 1.0)
        return list(out.values())

    def link_meta(self, base: Shard, src: str, dst: str) -> dict:
        """How the calls/inherits edge SRC -> DST that ``neighbors`` serves was linked (``pipeline.calls``:
        how, as, line), or {}: an edge between overlay and base keeps it in ``cross``, the overlay's
        own edges in its shard, a base edge (its source file unchanged) in the base's."""
        o = self.of(base)
        if o is not None:
            got = o.cross_meta.get((src, dst))
            if got:
                return json.loads(got)
            if o.shard is not None and (a := o.shard.resolve(src)) is not None \
                    and (b := o.shard.resolve(dst)) is not None:
                return o.shard.link_meta(a, b)
        a, b = base.resolve(src), base.resolve(dst)
        if a is None or b is None or self.hidden(base, a):
            return {}                       # the source changed on the branch: the base's meta is stale
        return base.link_meta(a, b)

    def kids(self, base: Shard, nid: str) -> list[tuple[Shard, int]]:
        """``contains`` children of node NID through the view: the base's the branch kept, and the
        overlay's (its changed and added files, the folders above them)."""
        out: dict[str, tuple[Shard, int]] = {}
        b = base.resolve(nid)
        if b is not None:
            for n, _, _, _ in base.neighbors(b, ("contains",), "out"):
                if not self.hidden(base, n):
                    out[base.col("id")[n]] = (base, n)
        o = self.of(base)
        if o is not None and o.shard is not None:
            r = o.shard.resolve(nid)
            if r is not None:
                for n, _, _, _ in o.shard.neighbors(r, ("contains",), "out"):
                    out[o.shard.col("id")[n]] = (o.shard, n)
        return list(out.values())

    def tree_rows(self, base_shards: list[Shard], path: str, depth: int, order) -> list[tuple[Shard, int, int]]:
        """(shard, row, depth) of the hierarchy under PATH, depth-first; ``order`` sorts siblings.
        Raises the view's NotFound (what the branch did to PATH) when no store has PATH on the branch."""
        rows: list[tuple[Shard, int, int]] = []
        gone: NotFound | None = None
        for base in base_shards:
            try:
                start = self.resolve([base], path)
            except NotFound as e:
                gone = gone or e
                continue
            if start is not None:
                rows += depth_first(start, lambda sh, i, b=base: self.kids(b, sh.col("id")[i]), depth, order)
        if not rows and gone is not None:
            raise gone
        return rows

    def search_overlay(self, base: Shard, query: str, *, kinds=(), path_prefix: str = "", language: str = "",
                       limit: int = 10, offset: int = 0, extra_docs=None) -> list:
        """The overlay's search items for QUERY, each scored as if the base's index held it, among
        the base's lists without the rows the branch hides (``stratum.branchscore``: the overlay's
        own fused list put every node of a changed file at the top); ``extra_docs``: the base's
        unmerged notes, which hold places in those lists. Base dirs already answer for directories."""
        o = self.of(base)
        if o is None or o.shard is None:
            return []
        base.warm.ensure_served()
        o.shard.warm.ensure_served()
        own = o.shard.warm.searcher.keywords
        names = np.empty(0, np.int64)
        if own is not None:             # the overlay's exact-name rows (boosted first in its own list)
            kh = own.search(query, base.warm.searcher.window)
            names = kh.rows[kh.exact_name]
        items = branchscore.overlay_items(base.warm.searcher, o.index().view(), names, o.hidden_rows(base), query,
                                          kinds, path_prefix, language, extra_docs=extra_docs)
        return [it for it in items[offset:offset + limit]
                if not (o.shard.col("kind")[it.row] in TREE_KINDS and base.resolve(it.id) is not None)]


class OverlayCache:
    """Loaded overlay shards by (store, overlay folder, commit), the oldest dropped past ``limit``:
    the sessions' views and ``remember``'s view of edited code share them (a load opens a shard;
    ``checkoutnotes`` loaded one per call: a review)."""

    def __init__(self, limit: int):
        self.limit = limit
        self._loaded: dict[tuple, StoreOverlay] = {}

    def get(self, store_root: str, info: dict, embedder=None) -> StoreOverlay:
        key = (store_root, info["dir"], info["commit"])
        hit = self._loaded.get(key)
        if hit is None:
            hit = StoreOverlay.load(store_root, info, embedder=embedder)
            while len(self._loaded) >= self.limit:
                self._loaded.pop(next(iter(self._loaded)), None)
            self._loaded[key] = hit
        return hit


__all__ = ["depth_first", "BranchView", "StoreOverlay", "OverlayCache", "TREE_KINDS"]
