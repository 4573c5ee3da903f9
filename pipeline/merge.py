"""Merge experience notes from the delta log into a new version: note nodes + ``about`` edges.

Pure and idempotent: note ids derive from log record ids, so merging the same records again (or
records whose notes the previous version already holds) adds nothing twice. Retracts and
supersedes are applied (``stratum.notes.fold_records``); a note whose code is all gone is kept and
marked orphaned; ``about`` edges point only at code that exists in the new version. A target whose
code is gone is placed again where that code is now (``pipeline.notetargets``: the writer's own
target when it is back, else where the renames since the note lead). A note written
in a branch session about code only that branch had (a *pending* target, ``stratum.branchnotes``)
is kept active and unattached until that code is in the new version; then its target lands (the
branch marks are dropped, the content hash stays the writer's: stale if the code changed since)
and it is attached like any other. A note written at a commit outside the new version's history
(the checkout was on a branch when it was written, and has left it) is about that branch's code:
its targets gone here become pending on it, not gone (``_outside_history``). So do the gone
targets of a note written on a branch this version's history does hold (a branch behind the
default one, which deleted the code since) while that branch still has the code
(``branch_holds``, ``pipeline.branchheld``); such a pending target whose branch is deleted, or
lost the code too (a commit, or a rewrite of the branch), is gone again (``_on_branch``). A pending
target whose file the branch renamed lands where the rename leads (``landing``,
``pipeline.branchlanding``: a squash merge records no rename).

The caller publishes the version, then retires the log segments holding ``merged_record_ids``
(never before: until the publish, the log is the only durable copy of a new note).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping

import pyarrow as pa

from pipeline.notetargets import Existing, Renames, WrittenTargets, place, renames_of, with_written, written_targets
from stratum import notenodes
from stratum import notes as N
from stratum import tokens
from stratum.branchnotes import seen_on
from stratum.codelookup import CodeLookup
from stratum.schema import AGENT_NOTE_KINDS


@dataclass
class MergeResult:
    nodes: list[dict]                   # every note node of the new version (schema.NODES records)
    edges: list[dict]                   # their about edges (schema.EDGES records), to existing code only
    merged_record_ids: list[str]        # log record uids reflected in ``nodes`` (notes and retracts)
    new_ids: list[str]                  # note ids not in the previous version
    orphaned: list[str]                 # note ids whose targets are all gone
    pending: list[str] = field(default_factory=list)            # about code only a branch has (not merged yet)
    unknown_retracts: list[str] = field(default_factory=list)   # retract uids naming no known note

    def summary(self) -> dict:
        by_status: dict[str, int] = {}
        for n in self.nodes:
            by_status[n["status"]] = by_status.get(n["status"], 0) + 1
        # "orphaned" is the status's count, as in by_status: a retracted or superseded note whose code
        # is gone too has that status, not orphaned (``orphaned`` above lists every note whose code is gone)
        return {"notes": len(self.nodes), "new": len(self.new_ids), "orphaned": by_status.get(N.ORPHANED, 0),
                "pending": len(self.pending),
                "about_edges": len(self.edges), "records": len(self.merged_record_ids),
                "unknown_retracts": len(self.unknown_retracts), "by_status": by_status}


def merge(prev_nodes, log_records: Iterable, code, *, repo: str | None = None,
          encoding: str = tokens.DEFAULT_ENCODING, prev_encoding: str = tokens.DEFAULT_ENCODING,
          renames: Renames | Mapping[str, str] | None = None, same_repository: bool = True,
          branch_holds: Callable[[str, N.Target, str], bool] | None = None, indexed_branch: str = "",
          home: Callable[[str], str] | None = None,
          default_hashes: Callable[[str], dict[str, str]] | None = None,
          landing: Callable[[N.Target, CodeLookup], N.Target | None] | None = None) -> MergeResult:
    """Notes of the previous version + log records -> the note nodes and edges of the new one.

    ``prev_nodes``: the previous version's nodes (a pyarrow Table or dict records; code nodes
    among them are ignored). ``log_records``: ``stratum.deltalog.Record``s (e.g. ``scan().records``).
    ``code``: the new version's code nodes (Table or dict records) or a ``codelookup.CodeLookup``
    (the resolver the shard and the overlay use, so targets mean the same thing everywhere).
    ``repo``: the repo name written on new note nodes (default: taken from the code nodes).
    ``encoding`` / ``prev_encoding``: token encodings of the new and the previous version (the
    manifests' ``token_encoding``); the previous counts are reused only when they are the same.
    ``renames``: the history's (``renames_of(file_changes)``; a plain old -> new mapping applies
    whenever the note was written). ``same_repository``: False when the store is given to another
    repository (``--replace``): a note's commit absent from that history says nothing of a branch,
    and notes whose code is gone are orphaned, as asked. ``branch_holds(branch, target, commit)``:
    whether that branch exists and holds that target's code now, seen at that commit of a line this
    history left behind, not merged (``branchheld.BranchHeld``; None: not asked,
    a note whose commit this history holds is judged by this version's code alone).
    ``indexed_branch``: the branch this version was built from when it is not the default one (the
    run report's ``branch``; "": the default branch, a detached HEAD, unknown): a committed target
    marked as that branch's version of changed code keeps its marks (``_landed``), and an uncommitted
    one this version has becomes committed, with the default branch's hash ``default_hashes(path)``
    gives (``defaultcode.DefaultHashes``; ``_committed``; None: it lands). ``home(commit)``:
    the branch a note that records none was written on, by its commit (``BranchHeld.default_at``: the
    default branch, whose notes record none, when its history holds the commit; "": a bare commit's).
    ``landing(target, index)``: a pending target this version (INDEX) lacks at its path, at the code
    it landed as (``branchlanding.BranchLanding``: its file renamed on the branch, then squash-merged)."""
    prev_rows = _rows(prev_nodes)
    log_records = list(log_records)         # read twice: folded, and for the writers' own targets
    moves = renames if isinstance(renames, Renames) else Renames.untimed(renames or {})
    if repo is None and code is not None and not isinstance(code, CodeLookup):
        rows = _rows(code.select(["repo"]) if isinstance(code, pa.Table) and "repo" in code.column_names
                     else ([] if isinstance(code, pa.Table) else code))
        repo = next((r.get("repo") for r in rows if r.get("repo")), None)
    index = CodeLookup.of(code)
    prev = notenodes.notes_from_nodes(prev_rows)
    prev_node = {r["id"]: r for r in prev_rows if r.get("id") in prev} if prev_encoding == encoding else {}
    if repo is None:
        repo = next((r.get("repo") for r in prev_rows if r.get("kind") in AGENT_NOTE_KINDS and r.get("repo")), "")
    folded = N.fold_records(log_records, prev)
    written = written_targets(prev_rows, log_records)
    exists = Existing(index)
    unmerged = _outside_history(moves) if same_repository else None    # --replace: another's commits
    held = branch_holds if same_repository else None
    landing = landing if same_repository else None
    out_nodes: list[dict] = []
    out_edges: list[dict] = []
    orphaned: list[str] = []
    pending: list[str] = []
    for nid in sorted(folded.notes):
        note = folded.notes[nid]
        mine = place(note, index, exists, written, moves)
        if any(t.pending for t in note.about):
            note.about = [replace(t, branch="", branch_commit="") if t.pending and exists(t.node_id) else t
                          for t in note.about]          # branch code now indexed: it landed
        outside = bool(unmerged is not None and note.commit and not all(exists(t.node_id) or t.pending
                                                                        for t in note.about) and unmerged(note.commit))
        if outside:      # code of a history this version does not hold: on its branch
            on = _written_on(note, home)
            note.about = [t if t.pending or exists(t.node_id) else
                          replace(t, branch=on, branch_commit=note.commit or "", base_hash=None) for t in note.about]
        if landing is not None and any(t.pending and not exists(t.node_id) for t in note.about):
            moved = [landing(t, index) if t.pending and not exists(t.node_id) else None for t in note.about]
            if any(moved):      # its file renamed on its branch, which a squash merge landed
                mine = mine if mine is not None else written.of(note)
                note.about = [m or t for m, t in zip(moved, note.about)]
        if not outside and held is not None:    # a history this version holds: pending while the branch has the code
            note.about = _on_branch(note, exists, held, moves, written)
        if any(t.pending for t in note.about):
            pending.append(nid)
        if indexed_branch and default_hashes is not None and any(_own_wip(t, index, indexed_branch) for t in note.about):
            note.about = [_committed(t, default_hashes) if _own_wip(t, index, indexed_branch) else t
                          for t in note.about]
        if any(t.branch and not t.pending for t in note.about):     # a branch's version of changed code
            note.about = [replace(t, branch="", base_hash=None) if _landed(t, index, indexed_branch) else t
                          for t in note.about]          # landed: merged, squashed or rebased
        note.orphaned = N.is_orphaned(note, exists)
        if note.orphaned:
            orphaned.append(nid)
        node, edges = notenodes.note_to_records(note, repo or "", encoding=encoding, prev=prev_node.get(nid))
        out_nodes.append(with_written(node, mine) if mine is not None else node)
        out_edges.extend(e for e in edges if exists(e["dst"]))
    return MergeResult(
        nodes=out_nodes, edges=out_edges, merged_record_ids=sorted(set(folded.applied)),
        new_ids=sorted(set(folded.notes) - set(prev)), orphaned=orphaned,
        unknown_retracts=folded.unknown_retracts, pending=pending)


def _landed(t: N.Target, index: CodeLookup, indexed_branch: str) -> bool:
    """Whether T, marked as its branch's version of code the default branch has too, has landed: this
    version has that code as the note's writer saw it (a merge, a squash or a rebase brought it), and
    was not built from that branch. A re-index of the branch itself (the checkout has fz out, a note
    about ``zeta``, which fz changed, another commit on fz and the hook's re-index) has the note's
    hash as a matter of course: the marks were dropped there, and after ``git checkout main`` and its
    re-index the note read "stale: shop/cart.py::zeta changed since" where it had read "written on
    branch fz ..., not merged yet" (a probe). A target of uncommitted work becomes a committed one
    there, with the default branch's hash (``_committed``); one whose code the default branch lacks
    or has in that very version (or when git cannot say) lands on its branch's index, which read that
    work tree."""
    own = bool(indexed_branch) and t.branch == indexed_branch and not t.uncommitted
    return bool(t.branch) and not t.pending and not own and index.hash_of(t.node_id) == t.content_hash


def _own_wip(t: N.Target, index: CodeLookup, indexed_branch: str) -> bool:
    """Whether T is the work tree's uncommitted version of code of INDEXED_BRANCH (the branch this
    version was built from) that this version has as the note's writer saw it."""
    return t.uncommitted and t.branch == indexed_branch and not t.pending and index.hash_of(t.node_id) == t.content_hash


def _committed(t: N.Target, theirs: Callable[[str], dict[str, str]]) -> N.Target:
    """T (``_own_wip``) as its branch's committed version of the code, with the default branch's
    hash of it (``base_hash``), when the default branch has that code in another version; else T,
    which lands (``_landed``). Its ``base_hash`` was the version served when it was written (fz's
    previous index: the reading before the commit compares with it, ``branchnotes.OnDefault.moved``),
    and the mark was dropped at fz's re-index: fz's edit, a note, a commit, the hook's re-index,
    ``git checkout main`` and its re-index, and the note read "stale: ... changed since" where one
    written after the commit read "not merged yet" (a review)."""
    h = theirs(t.path).get(t.node_id)
    return t if h is None or h == t.content_hash else replace(t, uncommitted=False, base_hash=h)


def _outside_history(moves: Renames) -> Callable[[str], bool] | None:
    """Whether a commit is outside the history of the version being built (the mined ``commits``,
    every commit reachable from the indexed one), or None when no history was mined or it lacks a
    commit's parent (a shallow clone, a capped mine: nothing to tell by). A note written at such a commit (on a branch this version does not hold: the checkout
    was on it when the note was written and has left it, or a session on it) is about code of that
    branch: its targets gone here are pending on it, not gone. Orphaned, the note dropped out of
    that branch's own sessions (a probe: a note written in the checkout on fz, then ``git checkout
    main`` and the hook's re-index: ``[orphaned]``, and ``get ... --branch fz`` carried no note)."""
    return (lambda sha: not moves.knows(sha)) if moves.complete() else None


def _written_on(note: N.Note, home: Callable[[str], str] | None) -> str:
    """The branch NOTE's code was read on (``branchnotes.seen_on``, as its readers ask), else, for a
    note recording none, the default branch when it holds the note's commit (``home``): a note
    written from a worktree on main while fz is served records no branch (``NoteScope.recorded``),
    and its code fz deleted read "pending: ... is on commit ff6720755c1f" where it had read "on
    branch main" (a review)."""
    return seen_on(note) or (home(note.commit or "") if home is not None and note.commit else "")


def _on_branch(note: N.Note, exists: Callable[[str], bool], held: Callable[[str, N.Target, str], bool],
               moves: Renames, written: WrittenTargets) -> list[N.Target]:
    """The targets of a note written at a commit of this version's history, judged by the branch
    that wrote it rather than by that history: a target gone here whose branch (the note's) still has
    its code is pending on that branch; a pending target whose branch no longer has the code
    (deleted, or it deleted the code too, or was rewritten without it: ``_left``) is gone, and the
    note orphaned as before. A probe: ``release-1`` behind main, a note about ``zeta`` written with it
    checked out, then main (which had deleted ``zeta``) checked out and indexed: ``[orphaned]``, and
    ``get ...::zeta --branch release-1`` carried no note, though ``release-1`` still had ``zeta``.
    Code that reached this history by the branch's merge has *landed*: an ordinary target from
    then on, orphaned when the default branch deletes it, however long the merged branch is kept
    (``held`` says no of a commit a merge brought in; a target its writer recorded as code only the
    branch had landed by a merge too, a fast-forward one included). A target of uncommitted work,
    or pending on a bare commit, stays as it was (no branch has it)."""
    out = []
    mine: list[N.Target] = []
    for i, t in enumerate(note.about):
        if exists(t.node_id):
            out.append(t)
        elif not t.pending:
            if note.branch and note.commit and not mine:
                mine.extend(written.of(note))
            landed = bool(mine) and mine[i].pending
            out.append(replace(t, branch=note.branch, branch_commit=note.commit, base_hash=None)
                       if note.branch and note.commit and not landed and held(note.branch, t, note.commit) else t)
        elif t.branch and not t.uncommitted and _left(t, held, moves):
            out.append(replace(t, branch="", branch_commit=""))
        else:
            out.append(t)
    return out


def _left(t: N.Target, held: Callable[[str, N.Target, str], bool], moves: Renames) -> bool:
    """Whether pending target T's branch no longer has its code (``_on_branch``): at a commit this
    history holds, as ``held`` says of it; at one it lacks, whether the branch's tip has that code
    now. A branch rewritten (``git commit --amend``, a force-push) leaves the note's commit on no
    ref and in no history: a note about ``bulk``, which the amend dropped, stayed "pending: ... on
    branch feat at a7b9ad174a43" after feat's merge, for ever (a probe); so did one of a branch
    deleted unmerged. Pending on a detached worktree (no branch to ask): as it was."""
    if moves.knows(t.branch_commit):
        return not held(t.branch, t, t.branch_commit)
    return t.branch != "worktree" and not held(t.branch, t, "")


def _rows(x) -> list[Mapping]:
    if x is None:
        return []
    if hasattr(x, "to_pylist"):
        return x.to_pylist()
    return list(x)


__all__ = ["merge", "MergeResult", "renames_of"]
