"""The loaded memory: the one owner of the shards, their notes overlays and the version swap.

Tools never hold a shard or an overlay of their own; they ask this object. It answers:

- which shard, row or unmerged note a target names, across every shard (``resolve``);
- the notes overlay of a given shard object (``overlay``), built for a newly published version
  before any call pairs that version with the old version's unmerged notes;
- the active notes about a code node, merged and unmerged (``notes_about``), for items that carry
  the experience left on what they return;
- the graph facts a session's controller needs (``graph``, a :class:`~stratum.controller.GraphView`).
"""

from __future__ import annotations

import itertools
import re
import threading
import time
import weakref
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import NamedTuple, Sequence

import numpy as np

from stratum import schema as S
from stratum.apicut import API_CAP, is_cut
from stratum import notenodes
from stratum import notes as N
from stratum import notindexed, whichstore as W
from stratum import pathtails as PT
from stratum import targetnear as TN
from stratum.branchcode import BranchCode
from stratum.branchnotes import seen_on
from stratum.branchview import BranchView, StoreOverlay
from stratum.errors import InvalidArgument, NotFound
from stratum.freshness import Freshness, repo_at
from stratum.identity import current
from stratum.ids import node_id
from stratum.limits import MAX_TARGET_CHARS, check_len, echo
from stratum.notedpaths import Noted, NotedPaths
from stratum.noteitems import mined_from
from stratum.notetrust import is_maintainer
from stratum.overlay import NotesOverlay, no_such_note
from stratum.shard import Shard, ShardSet
from stratum.targetstale import judged

NOTES_REFRESH_SECONDS = 0.1    # attached notes poll the delta log at most this often (a poll is ~50 us;
                               # this process's own writes are folded at once, others' within 0.1 s)



class Target(NamedTuple):
    """What a target string names: a code or merged-note row of ``shard``, or an unmerged note."""

    shard: Shard
    row: int | None
    note: dict | None

    @property
    def id(self) -> str:
        if self.row is not None:
            return self.shard.col("id")[self.row]
        assert self.note is not None
        return self.note["id"]


@dataclass(frozen=True)
class AttachedNote:
    """An active note about a node, as an item carries it (one line, never the note's body)."""

    id: str
    kind: str
    created_at: datetime
    author: str
    trust: str                 # "authenticated", "unauthenticated", "mined" or (its author's) "quarantined"
    stale: bool                # its code on this item changed since it was written (``targetstale``)
    title: str
    about: str                 # what it is about, when that is a symbol inside the item's file
    # written by a maintainer under its own proven name (a token's or mTLS maintainer, the OS user;
    # ``notetrust.provenance``): ranks first within its kind (``render._shown``), and its line says so
    maintainer: bool = False
    # a mined note's commit and that commit's author (``noteitems.mined_from``): its line names them,
    # as its item's header does
    commit: str = ""
    commit_author: str = ""


_ID_PREFIX = re.compile(r"n?[0-9a-f]{7,19}")        # a node or note id's first characters


class Memory:
    """Shards + overlays + reload. Thread-safe: readers see whole swaps, never half a reload."""

    def __init__(self, shards: ShardSet, embedder=None, freshness=None):
        self.shards = shards
        # the git seam (``probe`` + ``view``) behind a per-store cache; None: no repository to compare
        self.freshness = Freshness(freshness) if Freshness.supports(freshness) else None
        self.embedder = embedder
        self._lock = threading.Lock()
        self.overlays: dict[str, NotesOverlay] = {str(s.store.root): NotesOverlay(s, embedder=embedder)
                                                  for s in shards.shards}      # each store's newest version's
        # every loaded version's overlay, while a call holds that version (``overlay``)
        self._versions: weakref.WeakKeyDictionary[Shard, NotesOverlay] = weakref.WeakKeyDictionary(
            (ov.shard, ov) for ov in self.overlays.values())
        self.graph = MemoryGraph(self)
        self._polled: dict[str, float] = {}
        self._noted = NotedPaths()

    @property
    def version(self) -> int:
        return self.shards.version

    def __iter__(self):
        return iter(self.shards.shards)

    # ---- versions and overlays ------------------------------------------------------------
    def reload(self) -> list:
        """Pick up newly published store versions; calls already running keep their old shard."""
        switched = self.shards.reload()
        for sh in self.shards.live:    # build the new versions' overlays now, not on the next call
            self.overlay(sh)
        return switched

    def overlay(self, sh: Shard) -> NotesOverlay:
        """The notes overlay of this very shard object. After a reload the first call with the new
        shard builds its overlay (others wait for it), so no call pairs a new version with the old
        version's unmerged notes: those were merged into it, and would show twice. A call still
        holding an older shard (it started before the reload: ``ShardSet.pinned``) keeps that
        version's overlay, as long as a call holds the shard (``NotesOverlay.loosen``): with the new
        one, the notes the new version merged were neither its rows nor unmerged (get said NotFound,
        walk left them out) and its notes were judged against the new code (stale beside the code it
        served them with). A new overlay keeps the old one's log writer."""
        key = str(sh.store.root)
        ov = self.overlays.get(key)
        if ov is not None and ov.shard is sh:
            return ov
        ov = self._versions.get(sh)
        if ov is not None:
            return ov
        with self._lock:
            ov = self._versions.get(sh)
            if ov is None:
                cur = self.overlays.get(key)
                log = cur.log if cur is not None else None
                ov = self._versions[sh] = NotesOverlay(sh, embedder=self.embedder, log=log)
                if any(s is sh for s in self.shards.live):      # the store's newest version
                    self.overlays = {**self.overlays, key: ov}
                    if cur is not None:
                        cur.loosen()
                else:           # an older one, no overlay built for it yet (two reloads during a call)
                    ov.loosen()
            return ov

    def note_store(self, note_id: str) -> Shard | None:
        """The shard whose overlay holds an agent note (quarantined ones too), or None."""
        return next((sh for sh in self.shards.shards if self.overlay(sh).exists(note_id)), None)

    def note_holder(self, note_id: str, action: str) -> tuple[Shard, str]:
        """The shard holding the note a reviewer names to ``action`` (retract, confirm), and its full id: its
        id (quarantined notes too), or a short id of one the caller may see (``notes.by_prefix``, the CLI's
        rule). A mined or code node's id is said to be one (``notes.not_a_note``), else ``no_such_note``."""
        if (held := self.note_store(note_id)) is not None:
            return held, note_id
        sees_all = current().is_maintainer         # as ``NotesOverlay.retract`` reaches hidden notes
        reach = {n: sh for sh in self.shards.shards for ov in (self.overlay(sh),) for n in ov.notes
                 if n.startswith(note_id) and (sees_all or ov.visible(n))} if N.SHORT_ID.fullmatch(note_id) else {}
        full = N.by_prefix(reach, note_id)
        if full is not None:
            return reach[full], full
        node = next((sh.row(r) for sh in self.shards.shards if (r := sh.row_of.get(note_id)) is not None), None)
        raise no_such_note(note_id) if node is None else N.not_a_note(node, action)

    # ---- freshness ------------------------------------------------------------------------
    def fresh(self, items: list[tuple[str, str, str]], *, everything: bool = False,
              checkout: bool = True, asked: Sequence[Shard] | None = None) -> tuple[dict, list[str], bool]:
        """(commits, warnings, stale) for an answer returning ``items`` ((id, path, kind)): the
        indexed commit of each store the answer draws on (keyed by repository name, or store path
        when two share a name), and warnings when such a repository has moved on past it or has
        uncommitted changes touching the returned items (``everything``: any, in every store, for
        status). The stores an answer draws on are its items' (``asked``, the stores it was asked
        of, when it has none: all by default); a commit in another store is no staleness of it (a
        probe: a get of alpha's code was stale, commit '', because gamma moved on). Each item is
        checked against its own repository only: another store's path is no edit of this one's.
        ``checkout=False``: the answer is a branch, commit or worktree session's, whose code is that
        revision's; the main checkout's HEAD and work tree say nothing about it (a probe: an edit
        there, or a detached HEAD, was reported as staleness of a --branch answer), so only the
        commits are given."""
        shards = self.shards.shards
        names, commits, warnings, stale = [sh.manifest.repo_name or str(sh.store.root) for sh in shards], {}, [], False
        own = self._by_store(shards, items, asked, everything)
        for sh, name in zip(shards, names):
            paths = own.get(id(sh))
            if paths is None:
                continue                    # a store this answer does not draw on
            m = sh.manifest
            key = name if names.count(name) == 1 else str(sh.store.root)
            if m.indexed_commit:
                commits[key] = m.indexed_commit
            if self.freshness is not None and m.repo_path and checkout:
                w, st = self.freshness.check(repo_at(str(sh.store.root), m.repo_path), m.indexed_commit, paths, store_root=str(sh.store.root),
                                             everything=everything, label=key if len(shards) > 1 else "",
                                             indexed_dirty=(m.report or {}).get("dirty_paths") or ())
                warnings += w
                stale = stale or st
        return commits, warnings, stale

    def _by_store(self, shards: list[Shard], items: list[tuple[str, str, str]], asked: Sequence[Shard] | None,
                  everything: bool) -> dict[int, list[tuple[str, str]]]:
        """id(store) -> (path, kind) of its returned items, for each store the answer draws on: every
        store for status, the items' stores, and the stores asked of (``asked``, else all) when no
        store holds an item (none returned, or code only a branch has)."""
        # a note about code only a branch has names a path the checkout does not hold: no edit of it
        # (``_branch_only``: one about a symbol the checkout added to an indexed file is judged)
        judged = {it[0] for it in items if it[2] not in S.AGENT_NOTE_KINDS or not self._branch_only(it[0])}
        if len(shards) == 1:
            return {id(shards[0]): [(p, k) for nid, p, k in items if nid in judged]}
        own: dict[int, list[tuple[str, str]]] = {id(sh): [] for sh in shards} if everything else {}
        loose = not items
        for nid, p, k in items:
            sh = next((sh for sh in shards if self._holds(sh, nid)), None)
            if sh is None:
                loose = True
                continue
            own.setdefault(id(sh), []).extend([(p, k)] if nid in judged else [])
        for sh in (shards if asked is None else asked) if loose else ():
            own.setdefault(id(sh), [])
        return own

    def label_repos(self, items: list) -> None:
        """With several stores, each item says its repository (``Item.repo``): two stores may both
        hold ``src/`` or ``CHANGES.rst``. With one store the field stays empty (no bytes spent)."""
        shards = self.shards.shards
        if len(shards) < 2:
            return
        for it in items:
            sh = next((sh for sh in shards if self._holds(sh, it.id)), None)
            if sh is not None:
                it.repo = sh.manifest.repo_name

    def _holds(self, sh: Shard, nid: str) -> bool:
        """Whether ``nid`` is this shard's: one of its rows, or a note of its overlay."""
        ov = self.overlays.get(str(sh.store.root))
        return nid in sh.row_of or (ov is not None and ov.exists(nid))

    def _branch_only(self, note_id: str) -> bool:
        """Whether every target of this note is code only a branch has (``stratum.branchnotes``)."""
        for ov in self.overlays.values():
            n = ov.notes.get(note_id)
            if n is not None:
                # a symbol the checkout added to an indexed file (uncommitted there) is in a path it holds
                return bool(n.about) and all(t.pending and t.node_id not in ov.code
                                             and not (t.uncommitted and ov.code.row(t.path) is not None)
                                             for t in n.about)
        return False

    # ---- targets --------------------------------------------------------------------------
    def check_language(self, language: str) -> None:
        """InvalidArgument when no store holds code in ``language`` (a filter that can match nothing),
        naming the languages there are. Read only after an empty answer: a column scan at 1M nodes."""
        import pyarrow.compute as pc

        have = sorted({v.lower() for sh in self.shards.shards
                       for v in pc.unique(sh.col("language").array).to_pylist() if v})
        if language.lower() not in have:
            raise InvalidArgument(f"no code in language {echo(language)!r} here; the index has: {', '.join(have) or 'none'}")

    def check_filters(self, language: str, path_prefix: str, shards: Sequence[Shard]) -> None:
        """After an empty answer: InvalidArgument when the language filter (``check_language``) or
        the path prefix can match nothing in ``shards`` (it answered "0 of 0 items", as if the folder
        held nothing that matched: a probe), naming the top-level folders there are."""
        if language:
            self.check_language(language)
        if not path_prefix:
            return
        import bisect

        names = [sh.warm.searcher.meta.path_names for sh in shards]     # sorted: what a path filter bisects
        if any(bisect.bisect_left(n, path_prefix) < bisect.bisect_left(n, path_prefix + "\U0010ffff") for n in names):
            return
        paths = [p for n in names for p in n if p]
        top = sorted({p.split("/", 1)[0] + "/" for p in paths if "/" in p}) or sorted(paths)
        raise InvalidArgument(f"no indexed path starts with {echo(path_prefix)!r}; paths are relative to the repository "
                              f"root: {', '.join(top[:12]) or 'none'}{' ...' if len(top) > 12 else ''}")

    def in_repo(self, target: str, prefix: bool = False) -> tuple[list[Shard], str]:
        """The shards to look in and the target without its ``repo:`` (``whichstore.in_repo``)."""
        return W.in_repo(self.shards.shards, target, prefix)

    def resolve(self, target: str, asked: str = "") -> Target:
        """The node a node id, a path or path::symbol names (``repo:`` first with several stores);
        one that several stores hold is refused, naming each one's ``repo:`` spelling of ``asked``
        (the target as the caller wrote it: a path:LINE's) (``stratum.whichstore``). A path as a
        traceback or a package prints it names its file by its tail; a tail several files end with
        is refused, naming them (``stratum.pathtails``)."""
        check_len("target", target, MAX_TARGET_CHARS)
        if not target or not target.strip():
            raise InvalidArgument("target is empty: give a node id, a path or path::symbol")
        given, (shards, target) = target, self.in_repo(target)     # given: a NotFound says the repo: asked in
        hits: list[tuple[Shard, Target]] = []
        for sh in shards:
            r = sh.resolve(target)
            if r is not None and not self.hidden(sh, r):
                hits.append((sh, Target(sh, r, None)))
            elif (n := self.overlay(sh).get(target)) is not None:
                hits.append((sh, Target(sh, None, n)))
        if hits:
            return W.one(hits, asked or target)
        if _ID_PREFIX.fullmatch(target):        # a why's short id ("rca note n583859b")
            found = self._by_prefix(shards, target)
            if found is not None:
                return found
        if "/" in target or "\\" in target:     # a path as a traceback prints it: by its tail, as a frame (``pathtails``)
            hits = [(sh, Target(sh, r, None)) for sh in shards if (r := self.by_tail(sh, target)) is not None]
            if hits:
                return W.one(hits, asked or target)
        skipped = notindexed.why(shards, target)
        if skipped:
            raise NotFound(skipped)
        if "/" in target or "\\" in target:     # a tail several files end with: which ones (``pathtails``)
            several = (PT.installed(shards, target, asked or given) or PT.ambiguous(shards, target, asked or given)
                       or PT.crossing(shards, target, asked or given))
            if several is not None:
                raise several
        several = TN.several(shards, target, asked or given, self.hidden)   # x.cc::Get: two classes' (``targetnear``)
        if several is not None:
            raise several
        near = TN.near(shards, target)
        raise NotFound(f"no node {echo(given)!r}: use a node id, a repo-relative path, or path::Qualified.name"
                       + (f"; did you mean {', '.join(near)}?" if near else ""))

    def by_tail(self, sh: Shard, target: str) -> int | None:
        """The row a path as a traceback prints it names (``pathtails.named_file``), its ``::symbol``
        too: ``x/shop/pricing.py::discount`` as ``x/shop/pricing.py`` is read (it was "no node", a probe)."""
        path, sep, qual = target.partition("::")
        got = PT.named_file(sh, path)
        if got is None or not sep:
            return None if got is None else got[1]
        r = sh.resolve(f"{sh.col('path')[got[1]]}::{qual}")
        return r if r is not None and not self.hidden(sh, r) else None

    def hidden(self, sh: Shard, row: int) -> bool:
        """Whether row ROW of ``sh`` is a merged note this call may not see (another author's,
        quarantined: ``NotesOverlay.visible``): it is absent, as it was before the merge. Nothing
        is looked up while no note waits (the common case: a dict get and a set's truth)."""
        ov = self.overlays.get(str(sh.store.root))
        if ov is None or not ov.quarantined:
            return False
        nid = sh.col("id")[row]
        return nid in ov.quarantined and not ov.visible(nid)

    def unindexed(self, shards: list[Shard], target: str) -> str:
        """Why a target is unknown, "" when it cannot say: its file (or folder) is not in the index
        (``stratum.notindexed``), else a symbol's several nodes or the names near it, as get says them
        (``targetnear.said``). `remember` says it of a target it does not know, `tree` of a path."""
        return notindexed.why(shards, target) or TN.said(shards, target, self.hidden)

    def _by_prefix(self, shards: list[Shard], prefix: str) -> Target | None:
        """The one node or note whose id starts with ``prefix`` (None: none; several: refused, ``whichstore.by_prefix``)."""
        import pyarrow.compute as pc

        hits: list[Target] = []
        for sh in shards:
            rows = np.flatnonzero(pc.starts_with(sh.col("id").array, prefix).to_numpy(zero_copy_only=False))
            hits += list(itertools.islice((Target(sh, r, None) for r in rows.tolist() if not self.hidden(sh, r)), 2))
            ov = self.overlay(sh)      # its unmerged notes (merged ones are rows, found above)
            hits += [Target(sh, None, node) for n in list(ov.notes)
                     if n.startswith(prefix) and (node := ov.get(n)) is not None][:2]
        return W.by_prefix(hits, prefix)

    def shard_for(self, about: list[str], view: BranchView | None = None) -> tuple[Shard, list[str]]:
        """The shard a note about these targets belongs to, and the targets without their ``repo:``
        (``whichstore.note_store``)."""
        return W.note_store(self.shards.shards, about, view)

    # ---- notes where the agent works --------------------------------------------------------
    def refresh_notes(self) -> None:
        """Fold what other writers appended to the delta logs: once per answer, before ``notes_about``."""
        now = time.monotonic()
        for sh in self.shards.shards:
            key = str(sh.store.root)
            ov = self.overlay(sh)       # a write of a call on another version's overlay: at once
            if now - self._polled.get(key, -1e9) >= NOTES_REFRESH_SECONDS or ov.behind():
                ov.refresh()
                self._polled[key] = now

    def notes_about(self, sh: Shard, row: int, code: "BranchCode | None" = None) -> list[AttachedNote]:
        """Active notes about a code node (and, for a file, about its symbols): merged ones from the
        shard's incoming ``about`` edges, unmerged ones from the overlay as of the last
        ``refresh_notes``; retracted, superseded and orphaned ones left out. Ordered failure, rca,
        insight, fix (``schema.NOTE_ORDER``), newest first. ``code``: a branch session's, which
        judges them (``branch_notes``)."""
        ov = self.overlay(sh)
        by_note, by_edge, _ = self.by_path(sh, ov)
        if not by_note and not by_edge:
            return []                        # no notes in this version at all
        path = sh.col("path")[row]
        if path not in by_note and path not in by_edge:
            return []                        # nothing noted in this file: the common case, two dict lookups
        kind = sh.col("kind")[row]
        if kind in S.NOTE_KINDS:
            return []
        code_id, whole_file = sh.col("id")[row], kind == "file"
        cands = [(nid, "" if tid == code_id else qual) for nid, tid, qual, branch_only in by_note.get(path, ())
                 if (tid == code_id or whole_file) and not branch_only]
        for r in by_edge.get(path, ()):      # merged notes, from the shard's incoming about edges
            if r == row or whole_file:
                label = "" if r == row else (sh.col("qualname")[r] or "")
                # all in-edges, filtered here: the graph's kind filter is an isin per call (~4x the cost)
                cands += [(sh.col("id")[n], label) for n, k, _, _ in sh.neighbors(r, (), "in")
                          if k == "about" and sh.col("kind")[n] in S.ATTACHED_NOTE_KINDS]   # not mined changes
        labels: dict[str, list[str]] = {}     # a note about two symbols of a file names both (it named
        for nid, label in cands:              # the first, the unchanged one, beside "stale": a probe)
            if label not in labels.setdefault(nid, []):
                labels[nid].append(label)
        found: dict[str, AttachedNote] = {}
        for nid, said in labels.items():
            if ov.status_of(nid) in (None, "active"):
                label = "" if "" in said else ", ".join(said)      # about the item itself: no "on"
                att = self._attached(sh, ov, nid, label, (code_id, path, whole_file), code)
                if att is not None:
                    found[nid] = att
        return sorted(found.values(), key=lambda a: (S.NOTE_ORDER.get(a.kind, 9), -a.created_at.timestamp(), a.id))

    def branch_code(self, view: BranchView, base: Shard) -> "BranchCode | None":
        """The code a branch session sees in the store of ``base``, as its notes are judged against
        (None: the view has no overlay there). Where it placed each note (``BranchCode.locate``) is
        kept on the overlay (``view.of(base)``) for its life, for that base shard, so one answer
        places each note once (a branch walk built three, get one per item): a new overlay (the
        branch moved, a store published a version) or another base shard starts afresh, and a note
        the fold changed is a new object, which the cache does not serve. The placements, not the
        ``BranchCode``: overlays outlive sessions in ``Tools``' cache, and a kept ``BranchCode``
        held a replaced version's shard (and its view) there."""
        o = view.of(base)
        if o is None:
            return None
        held = o.placed
        if held is None or held[0]() is not base:
            held = o.placed = (weakref.ref(base), {})   # threads racing here each start one: the last one stays
        return BranchCode(view, base, o, self.overlay(base).judge.merged, placed=held[1])

    def branch_notes(self, view: BranchView, base: Shard, sh: Shard, row: int) -> list[AttachedNote]:
        """The notes a branch session's item of row ROW of ``sh`` (an overlay shard of ``base``, or
        ``base`` itself for a file the branch did not change) carries: the base's notes about the
        same node, and notes about code only a branch has (pending on the default branch:
        ``stratum.branchnotes``), each one's staleness judged by ``BranchCode.staleness``, as the
        session's note items are; and those about the node at a path a rename leads from to its
        file (``BranchCode.locate``: the branch's own rename detached them all, a probe), or under
        a same-named neighbour's id when the branch added a definition of its name above it
        (``BranchCode.renumbered_from``). A note whose code the branch has at another node is not
        this one's (``BranchCode.lands``). Ordered as ``notes_about``."""
        code = self.branch_code(view, base)
        if code is None:
            return self.notes_about(sh, row)
        ov, code_id, path, kind = self.overlay(base), sh.col("id")[row], sh.col("path")[row], sh.col("kind")[row]
        whole = kind == "file"
        found: dict[str, AttachedNote] = {}
        by_note = self.by_path(base, ov).active
        qual = sh.col("qualname")[row] or ""
        olds = [(code_id, path, False)] + [(node_id(base.repo, p, kind, qual), p, True)
                                           for p in sorted(code.renames.sources(path))]
        olds += [(oid, path, True) for oid in code.renumbered_from(code_id, path, qual)]   # add#2 -> add#3
        for oid, at, moved in olds:       # the node where it is, then where its notes may name it
            b = base.resolve(oid)
            for a in self.notes_about(base, b, code) if b is not None else ():
                note = ov.notes.get(a.id)       # None: a merged record the fold lacks (a mined one)
                if a.id in found or (note is not None and not code.lands(note, code_id, path, whole)) \
                        or (note is None and moved and at == path):     # a mined note stays on its own id
                    continue
                found[a.id] = replace(a, about=code.label(note, path, a.about)) if note is not None else replace(
                    a, stale=base.code.hash_of(oid) != code.hash_of(code_id) if moved else view.hidden(base, b))
            for nid, tid, q, branch_only in by_note.get(at, ()):
                if not branch_only or not (tid == oid or whole) or nid in found or ov.status_of(nid) not in (None, "active"):
                    continue
                if (note := ov.notes.get(nid)) is None or not code.lands(note, code_id, path, whole):
                    continue        # moved here, or code only another branch has (not this file's here)
                att = self._attached(base, ov, nid, "" if tid == oid else code.label(note, path, q),
                                     (code_id, path, whole), code)
                if att is not None:
                    found[nid] = att
        return sorted(found.values(), key=lambda a: (S.NOTE_ORDER.get(a.kind, 9), -a.created_at.timestamp(), a.id))

    def by_path(self, sh: Shard, ov: NotesOverlay) -> Noted:
        """Where notes are, by the path of the file they concern (``notedpaths.Noted``): a file's item
        then finds its symbols' notes without walking its symbols, and an item in a file nothing is
        noted on costs one dict lookup."""
        return self._noted.of(sh, ov)

    def _attached(self, sh: Shard, ov: NotesOverlay, nid: str, label: str, at: tuple[str, str, bool],
                  code: "BranchCode | None" = None) -> AttachedNote | None:
        """``code``: a branch session's, which judges the note's staleness (else ``sh``'s code). AT:
        the item's (node id, path, whole file): the note is stale there only if one of its targets
        on it changed (``targetstale``; an rca note about two functions read stale on the one that
        had not changed, a probe)."""
        note = ov.notes.get(nid)
        if note is None:                     # a merged note row the overlay does not fold (no log record)
            r = sh.row_of.get(nid)
            if r is None or (sh.col("status")[r] or "active") != "active":
                return None
            rec = sh.row(r)
            mined = rec["kind"] in S.MINED_NOTE_KINDS                   # else its meta says who wrote it
            written = None if mined else notenodes.note_from_node(rec)
            trust = N.trust_of(written, rec["kind"])
            by, sha = mined_from(rec.get("meta")) if mined else ("", "")
            return AttachedNote(nid, rec["kind"], _utc(rec["created_at"]), rec["author"] or "", trust, False,
                                rec["name"] or rec["summary"] or "", label, is_maintainer(written), sha, by)
        stale = judged(code or ov.judge, note).stale_on(*at)      # ov.judge: the default branch's (branchnotes)
        if seen_on(note) and (code is None or code.names_version(note)):   # judged again only if it may be about
            label = ov.judge.about(note, label) if code is None else code.about(note, label)   # another version: said so
        trust = N.trust_of(note, note.kind, quarantined=nid in ov.quarantined)      # trust as `get` says
        return AttachedNote(nid, note.kind, _utc(note.created_at), note.author, trust, stale, note.title(120), label,
                            is_maintainer(note))


class MemoryGraph:
    """Graph facts the controller needs, read from the current shards (no I/O beyond the warm tier)."""

    def __init__(self, memory: Memory):
        self.memory = memory

    def _find(self, nid: str):
        # a line range's context entry (``<node id>#L<a>-<b>``, stratum.linerange) is its node's
        # for proximity and co-change: else it scored 0 on both and was evicted first
        nid = nid.partition(S.RANGE_MARK)[0]
        for sh in self.memory.shards.shards:
            r = sh.row_of.get(nid)
            if r is not None:
                return sh, r
        return None, None

    def file_of(self, nid: str) -> str | None:
        sh, r = self._find(nid)
        return file_id(sh, r) if sh else None

    def file_id(self, path: str) -> str | None:
        for sh in self.memory.shards.shards:
            r = sh.resolve(path)
            if r is not None:
                return file_id(sh, r)
        return None

    def neighbors(self, nid: str, kinds=("imports", "tests", "contains")) -> list[str]:
        sh, r = self._find(nid)
        if sh is None:
            return []
        return [sh.col("id")[x] for x, _, _, _ in sh.neighbors(r, tuple(kinds), "both")]

    def cochange(self, nid: str) -> dict[str, float]:
        sh, r = self._find(nid)
        if sh is None:
            return {}
        return {sh.col("id")[x]: float(w or 0.0) for x, _, _, w in sh.neighbors(r, ("cochange",), "both")}

    def levels(self, nid: str) -> dict[str, int]:
        """Tokens of each level of a node; none for a line range's entry: it holds those lines at
        full level and has no api or summary to step down to, so it is dropped whole (it was
        "demoted" to its file's api, text the agent never received: a probe)."""
        if S.RANGE_MARK in nid:
            return {}
        sh, r = self._find(nid)
        if sh is None:
            return {}
        m = sh.meta
        out = {lv: int(m.column(f"{lv}_tokens")[r].as_py() or 0) for lv in S.LEVELS}
        if is_cut(sh.col("kind")[r], out.get("api", 0)):
            out["api"] = API_CAP    # served as its outline (``apicut``), at most this: planned at the whole
        return out                  # api, a prefetch put at summary what the outline would have held


def file_id(sh: Shard, row: int) -> str:
    """The file node containing a node (a file, dir or repo is its own)."""
    if sh.col("kind")[row] in ("file", "dir", "repo"):
        return sh.col("id")[row]
    return node_id(sh.repo, sh.col("path")[row], "file", "")


def _utc(t) -> datetime:
    if t is None:
        return datetime.fromtimestamp(0, timezone.utc)
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)


__all__ = ["Memory", "MemoryGraph", "BranchCode", "Target", "AttachedNote", "file_id"]
