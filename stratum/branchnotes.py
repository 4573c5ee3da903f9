"""Notes written in a session on a branch, commit or worktree, about code that may exist only there.

The shared store holds the default branch; a branch session sees it through an overlay of what
differs (``stratum.branchview``). A note written there resolves its targets through that view
(``NoteScope.resolve``): the overlay's changed and added files first, then the base unless the
branch changed or deleted the file. A target found only on the branch is recorded with the
branch and its commit (``notes.Target.branch``, ``branch_commit``): it is *pending*. The note is
durable in the delta log like any other; a session on that branch shows it on the node, a session
on the default branch does not attach it to base code (there is none) but finds and lists it,
saying where its code is. Ids are stable (``stratum.ids``), so once the branch is merged and the
default branch re-indexed, ``pipeline.merge`` finds the target by its id (path::qualname) and
attaches the note like any other (stale if the code changed since). Core code: no git.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from stratum import notes as N
from stratum.codelookup import CodeLookup

TREE_KINDS = ("repo", "dir")        # the branch adds to directories; it never hides them


@dataclass(frozen=True)
class NoteScope:
    """Where a note is written from: one store as a branch session sees it."""

    branch: str                     # the branch (or worktree's branch); "" for a bare commit
    commit: str                     # the commit the session's code is read from
    code: CodeLookup | None         # the overlay's code (changed and added files), None: none
    hidden: frozenset[str]          # paths the branch changed or deleted: the base's rows there are not its

    def resolver(self, base_code: CodeLookup) -> Callable[[str], "N.Resolved | None"]:
        """A ``notes.validate`` resolver over the branch's code: the overlay first (branch-only code
        comes back marked with the branch), then the base unless the branch changed or deleted it."""
        def resolve(target: str) -> N.Resolved | None:
            r = self.code.resolve(target) if self.code is not None else None
            if r is not None:
                return r if r.node_id in base_code else replace(r, branch=self.branch, branch_commit=self.commit)
            r = base_code.resolve(target)
            if r is not None and r.path in self.hidden and r.kind not in TREE_KINDS:
                return None                 # the branch changed (the overlay had no such node) or deleted it
            return r
        return resolve


def pending(note: N.Note, exists: Callable[[str], bool]) -> list[N.Target]:
    """The note's pending targets absent from the code ``exists`` answers for (the default branch)."""
    return [t for t in note.about if t.pending and not exists(t.node_id)]


def pending_warnings(note: N.Note, exists: Callable[[str], bool]) -> list[str]:
    """What a reader of the default branch is told of a note about branch code."""
    gone = pending(note, exists)
    if not gone:
        return []
    where = " and ".join(sorted({N.written_on(t.branch, t.branch_commit) for t in gone}))
    names = ", ".join(f"{t.path}::{t.qualname}" if t.qualname else t.path for t in gone)
    return [f"pending: its code ({names}) is on {where}, not in the default branch's index yet "
            "(it attaches once merged and re-indexed)"]


__all__ = ["NoteScope", "pending", "pending_warnings"]
