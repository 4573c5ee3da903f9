"""The code a branch, commit or worktree session sees in one store, as its notes are judged against.

One judge (``BranchCode``) for get's attached notes and for the note items of remember, walk and
search (a probe: the note just written on a branch was stale in three of them, fresh in get). A
node's content hash is the overlay's, else the base's unless the branch changed or deleted its file.

A note's targets are first placed where the branch has their code (``BranchCode.locate``), by the
rule a merge places them by (``stratum.placement``): the current target; else the writer's own
target (``written_about``: a re-index of the default branch moved it after a rename the branch does
not have); else where the branch's renames lead (``BranchRenames``, recorded by the overlay build,
``pipeline/overlay.py``); and the same-named node holding its code when the branch added a
definition of that name above it (``add`` -> ``add#2``). Then each target is judged by its node's
hash: a note is stale only if the code it is about differs, not because the branch changed another
function of its file, and a node the branch lacks "no longer exists on branch X". Core code: no git.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

from stratum import notes as N
from stratum import placement
from stratum.branchnotes import OnDefault, pending_warnings, seen_on, served_of
from stratum.limits import echo
from stratum.placement import WRITTEN_KEY

if TYPE_CHECKING:
    from stratum.branchview import BranchView, StoreOverlay
    from stratum.notes import Resolved
    from stratum.shard import Shard


@dataclass(frozen=True)
class BranchRenames:
    """The renames between the indexed commit and a branch's commit (``pipeline.overlay._renames``).

    ``net``: base path -> the branch's path (one diff; the default branch's renames since the fork
    read backwards too). ``commits``: the branch's commits since the fork, oldest first; ``moves``:
    sha -> {old: new} of those that renamed. A note written at one of those commits follows the
    renames after it (a file only the branch has too); any other note follows ``net``."""

    net: dict[str, str] = field(default_factory=dict)
    commits: tuple[str, ...] = ()
    moves: dict[str, dict[str, str]] = field(default_factory=dict)

    _order: dict[str, int] = field(init=False, repr=False, compare=False)
    _back: dict[str, set[str]] = field(init=False, repr=False, compare=False)   # new -> the paths it came from

    def __post_init__(self) -> None:
        back: dict[str, set[str]] = {}
        for moved in (self.net, *self.moves.values()):
            for old, new in moved.items():
                back.setdefault(new, set()).add(old)
        object.__setattr__(self, "_order", {c: i for i, c in enumerate(self.commits)})   # frozen: set once
        object.__setattr__(self, "_back", back)

    @classmethod
    def of(cls, got: dict | None) -> "BranchRenames":
        """From an overlay's recorded ``renames`` (``pipeline.overlay._renames``; none: NO_RENAMES)."""
        if not got:
            return NO_RENAMES
        return cls(dict(got.get("net") or {}), tuple(got.get("commits") or ()),
                   {k: dict(v) for k, v in (got.get("moves") or {}).items()})

    def __bool__(self) -> bool:
        return bool(self.net or self.moves)

    def lead(self, path: str, commit: str | None) -> str | None:
        """The path the branch has the file at PATH at, as seen from a note written at COMMIT (None:
        no rename leads from it)."""
        i = self._order.get(commit or "")
        if i is None:
            return self.net.get(path)
        p = path
        for c in self.commits[i + 1:]:
            p = self.moves.get(c, {}).get(p, p)
        return p if p != path else None

    def sources(self, path: str) -> set[str]:
        """Every path a rename leads from to PATH (``lead``'s inverse): where notes about the code
        of the branch's file PATH may name it."""
        out, todo = set(), [path]
        while todo:
            for p in self._back.get(todo.pop(), ()):
                if p not in out and p != path:
                    out.add(p)
                    todo.append(p)
        return out


NO_RENAMES = BranchRenames()


class _AtThisCommit:
    """``OnDefault``'s ``merged`` for notes of the session's own branch: a note written in the checkout
    about code it had edited and not committed (``checkoutnotes``) holds the work tree's hashes, and
    the session's commit is its HEAD, so that code differs though nothing changed after the note (a
    probe: ``--branch main``, the checkout's own branch, read "stale: ... changed since" where the
    default session and ``--commit HEAD`` read "not indexed yet"). Such a target is about the work
    tree's version (``unindexed``) while the note was written at this session's commit, in no
    worktree session (a worktree session reads the work tree: the hashes decide) and, where this
    commit is the indexed one, until an index took the work tree in (``IndexedHistory.unindexed``,
    as the default session judges it: its code is the index's). Otherwise the hashes decide."""

    def __init__(self, code: "BranchCode", merged: Callable[[str], bool]):
        self.code = code
        self._indexed: Callable[[N.Note], bool] | None = getattr(merged, "unindexed", None)

    def __call__(self, commit: str) -> bool:
        return True         # a note of this branch: about the code as the branch has it, not another's version

    def unindexed(self, note: N.Note) -> bool:
        c = self.code
        if not note.commit or note.commit != c.o.commit or c.view.args[2]:
            return False
        if note.commit != c.base.manifest.indexed_commit:
            return True     # the branch moved past the index: its edited files are read from this commit
        return self._indexed is not None and self._indexed(note)


class BranchCode:
    """The code a branch, commit or worktree session sees in one store (module docstring)."""

    def __init__(self, view: "BranchView", base: "Shard", o: "StoreOverlay", merged: Callable[[str], bool],
                 placed: "dict[str, tuple[N.Note, N.Note]] | None" = None):
        self.view, self.base, self.o = view, base, o
        scope = view.note_scope(base)
        self.branch = scope.branch if scope is not None else ""     # as a note written here records it
        self.other = OnDefault(self, merged, here="this session's", branch_code=True,   # the overlay's merged: kept
                               default=base.code)
        # this branch's notes: one written at this session's commit about code edited in the checkout
        # (``_AtThisCommit``), worded as the default session words it where this commit is the index's
        at_index = o.commit == base.manifest.indexed_commit
        self.same = OnDefault(self, _AtThisCommit(self, merged), here="the indexed" if at_index else "this session's",
                              branch_code=True, default=base.code)
        self.renames = o.renames
        self.where = f"branch {self.branch}" if self.branch else f"commit {o.commit[:12]}"
        # note id -> (the note, it placed): ``locate``'s; PLACED: one kept for this overlay and base
        # (``Memory.branch_code``), so the callers of one answer share it
        self._placed: dict[str, tuple[N.Note, N.Note]] = placed if placed is not None else {}

    def hash_of(self, node_id: str) -> str | None:
        osh = self.o.shard
        if osh is not None and node_id in osh.code:
            return osh.code.hash_of(node_id)
        r = self.base.row_of.get(node_id)
        return None if r is None or self.view.hidden(self.base, r) else self.base.code.hash_of(node_id)

    def __contains__(self, node_id: object) -> bool:
        return isinstance(node_id, str) and self.hash_of(node_id) is not None

    # ---- where the branch has a note's code -------------------------------------------------
    def locate(self, note: N.Note) -> N.Note:
        """NOTE with each target at the node the branch has its code at, by the merge's rule
        (``stratum.placement``: the current target, the writer's own, where the branch's renames
        lead, the same-named node holding its code); a target found nowhere stays. Nothing is
        rewritten: the note as this session reads it. Kept for the overlay's life (``placed``: its
        code is fixed, and a fold replaces a changed note's object): an item's staleness, warnings and
        label, and a search's staleness and lift, each asked it (~90 us a renumbered note)."""
        got = self._placed.get(note.id)
        if got is not None and got[0] is note:
            return got[1]
        about = placement.place(note.about, self, lambda: self._written(note), self._leads(note.commit))
        out = note if about is None else replace(note, about=about)
        self._placed[note.id] = (note, out)
        return out

    def resolve(self, target: str) -> "Resolved | None":
        """The node the branch has at TARGET (``path::qualname``, a path): the overlay's for a file
        the branch changed, else the base's when the branch did not change or delete its file."""
        osh = self.o.shard
        for code in ((osh.code,) if osh is not None else ()) + (self.base.code,):
            r = code.resolve(target)
            if r is not None and r.node_id in self:
                return r
        return None

    def renumbered_from(self, code_id: str, path: str, qualname: str) -> list[str]:
        """The base's ids of the definitions named as QUALNAME (but for its number) in PATH other
        than CODE_ID, when the branch changed that file: where notes about the branch's node
        CODE_ID may name its code if the branch added a same-named one above it (``add#2`` ->
        ``add#3``). Their notes are this node's only if they land on it (``lands``)."""
        osh = self.o.shard
        if not qualname or osh is None or code_id not in osh.code:
            return []
        return [r.node_id for r in placement.same_named(self.base.code, path, qualname) if r.node_id != code_id]

    def label(self, note: N.Note, path: str, qualname: str) -> str:
        """The symbol of the file at PATH that NOTE's target named QUALNAME there is on as the branch
        has it (``locate``; QUALNAME when it stays, or lands in another file): a file's item names
        each of its symbols' notes by its symbol, and by the stored name it named the neighbour a
        definition the branch added above renumbered onto the note's id ("on add#2" for ``add#3``)."""
        if not qualname:
            return qualname
        placed = self.locate(note)
        if placed is note:
            return qualname
        for t, p in zip(note.about, placed.about):      # the stored name may be at a path renamed to PATH
            if t.qualname == qualname and p.path == path and p.qualname:
                return p.qualname
        return qualname

    def _written(self, note: N.Note) -> list[N.Target]:
        """The writer's targets of a note (a merged one's meta keeps them while a merge moved them)."""
        r = self.base.row_of.get(note.id)
        if r is not None:
            try:
                got = [N.Target(**d) for d in json.loads(self.base.col("meta")[r] or "{}").get(WRITTEN_KEY) or ()]
            except (TypeError, ValueError):     # a form this build does not know: the current targets
                got = []
            if len(got) == len(note.about):
                return got
        return list(note.about)

    def _leads(self, commit: str | None) -> placement.Leads:
        """Where the branch's renames lead from a path, for a note written at COMMIT."""
        def leads(path: str) -> list[str]:
            p = self.renames.lead(path, commit) if self.renames else None
            return [p] if p is not None else []
        return leads

    def lands(self, note: N.Note, code_id: str, path: str, whole: bool) -> bool:
        """Whether the note is about node CODE_ID (WHOLE: a file at PATH, or its symbols) as the branch
        has it: code only another branch has is no code of this file here."""
        return any(t.node_id == code_id or (whole and t.path == path and t.node_id in self)
                   for t in self.locate(note).about)

    # ---- judging ------------------------------------------------------------------------------
    def staleness(self, note: N.Note) -> str | None:
        """Why the note is stale in this session, or None. Each target is judged by its node's hash
        where the branch has it (a note about a function the branch left alone is fresh however its
        file changed), absent being "no longer exists on branch X", but code only another branch has
        is pending there; a base note's target with no hash recorded is stale when the branch
        changed its file. A note of another, unmerged branch is about that branch's version
        (``OnDefault``), not stale."""
        return self.stale_targets(note)[0]

    def stale_targets(self, note: N.Note) -> tuple[str | None, frozenset[str]]:
        """``staleness`` and the node ids of the targets (as placed, or as written) that make it so:
        ``targetstale`` reads which changed here rather than judging each target again (a note of one
        target under the note's id, placed again, evicted the note's kept placement)."""
        st = self._judge(note)[0]
        if st:
            return self._said(note, st), frozenset(c["node_id"] for c in st["changes"])
        if note.commit != self.o.commit and not seen_on(note):      # no hash to compare: the file decides
            moved = [t for t in note.about if t.content_hash is None
                     and (r := self.base.row_of.get(t.node_id)) is not None and self.o.branch_changed(self.base, r)]
            if moved:
                return (f"stale: {', '.join(t.label() for t in moved)} {'is' if len(moved) == 1 else 'are'} in a "
                        f"file {echo(self.view.rev)!r} changed since this note was written "
                        f"({note.created_at.date().isoformat()})"), frozenset(t.node_id for t in moved)
        return None, frozenset()

    def _said(self, note: N.Note, st: dict) -> str:
        """The stale line: a gone target said to be gone from this branch; code that a worktree
        had uncommitted when the note was written (its pending target names the commit this session
        reads, which lacks it) said to be so, not to be gone."""
        when = note.created_at.date().isoformat()
        at = {t.node_id: t for t in self.locate(note).about}
        since, uncommitted = [], []
        for c in st["changes"]:
            t = at.get(c["node_id"])
            if c["reason"] == "changed":
                since.append(f"{c['path']} changed")
            elif t is not None and t.pending and (t.uncommitted or t.branch_commit == self.o.commit) \
                    and not self.view.args[2]:      # its flag: a branch that moved on never committed it either
                uncommitted.append((c["path"], t.branch_commit == self.o.commit))
            else:
                since.append(f"{c['path']} no longer exists on {self.where}")
        said = [f"{'; '.join(since)} since this note was written ({when})"] if since else []
        said += [f"{p} is not {'in that commit' if here else 'on ' + self.where}: it was uncommitted work in a "
                 f"worktree when the note was written ({when})" for p, here in uncommitted]
        return "stale: " + "; ".join(said)

    def _judge(self, note: N.Note) -> tuple[dict | None, list[str]]:
        note = self.locate(note)
        mine = [t for t in note.about if not t.pending or t.node_id in self or self._ours(t)]
        note = note if len(mine) == len(note.about) else replace(note, about=mine)
        return self._judge_of(note).judge(note)

    def _judge_of(self, note: N.Note) -> OnDefault:
        """Who judges NOTE here: a note of another branch is about that branch's version (``other``);
        one of this branch as any note, but for code it had edited and not committed (``same``)."""
        return self.other if seen_on(note) != self.branch else self.same

    def warnings(self, note: N.Note) -> list[str]:
        """What a note item says of its code in this session: stale, another branch's version, the
        work tree's version, pending; code pending on a branch behind the default one (its commit in
        the default branch's history, ``other.merged``) is said to be gone from the default branch, not
        to attach once merged, as the default session says it (merging that branch brings nothing)."""
        st, at = self.staleness(note), self.locate(note)
        theirs = self._judge(note)[1] if self.names_version(note) else []        # judged again: only then

        def here(nid: str) -> bool:
            return nid in self or any(t.node_id == nid and self._ours(t) for t in at.about)
        return ([st] if st else []) + self._judge_of(note).theirs(note, theirs) + pending_warnings(
            at, here, self.other.merged, *served_of(self.base.manifest))

    def names_version(self, note: N.Note) -> bool:
        """Whether ``about`` may name a version of NOTE's code (asked only then: it judges again): a
        note of another branch, or one of this branch written at this session's commit (``same``)."""
        branch = seen_on(note)
        return bool(branch) and (branch != self.branch or note.commit == self.o.commit)

    def about(self, note: N.Note, label: str) -> str:
        """An attached note's ``about``, naming the branch when it is about another branch's version,
        or saying it is about the work tree's version."""
        return self._judge_of(note).about(self.locate(note), label)

    def _ours(self, t: N.Target) -> bool:
        """A pending target written in a session on this branch or at this commit: absent, it is gone."""
        return t.branch_commit == self.o.commit or bool(self.branch and t.branch == self.branch)


__all__ = ["BranchCode", "BranchRenames", "NO_RENAMES"]
