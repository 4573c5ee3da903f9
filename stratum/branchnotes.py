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
attaches the note like any other (stale if the code changed since). A session on the default
branch reads a note written on an unmerged branch about code that branch changed as about the
branch's version (``OnDefault``), not as stale. Core code: no git.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol

from stratum import notes as N
from stratum.codelookup import CodeLookup
from stratum.errors import InvalidArgument
from stratum.limits import ECHO_CHARS, echo, plain_name

TREE_KINDS = ("repo", "dir")        # the branch adds to directories; it never hides them
_SHA = re.compile(r"[0-9a-f]{7,64}")
_MERGED_KEPT = 4096                 # commits whose answer is kept (a note's commit: few distinct ones)


@dataclass(frozen=True)
class NoteScope:
    """Where a note is written from: one store as a branch session sees it."""

    branch: str                     # the branch (or worktree's branch); "" for a bare commit
    commit: str                     # the commit the session's code is read from
    code: CodeLookup | None         # the overlay's code (changed and added files), None: none
    hidden: frozenset[str]          # paths the branch changed or deleted: the base's rows there are not its
    # a worktree's uncommitted paths: code read there is not in ``commit`` (its HEAD) as read
    dirty: frozenset[str] = field(default=frozenset(), kw_only=True)

    def resolver(self, base_code: CodeLookup) -> Callable[[str], "N.Resolved | None"]:
        """A ``notes.validate`` resolver over the branch's code: the overlay first (branch-only code
        comes back marked with the branch; code read from a file the worktree has uncommitted changes
        in, as such), then the base unless the branch changed or deleted it."""
        def resolve(target: str) -> N.Resolved | None:
            r = self.code.resolve(target) if self.code is not None else None
            if r is not None:
                wip = r.path in self.dirty and r.kind not in TREE_KINDS
                if r.node_id in base_code:      # the branch's version of code the default has too: marked
                    return replace(r, branch=self.branch, uncommitted=wip)
                return replace(r, branch=self.branch, branch_commit=self.commit, uncommitted=wip)
            r = base_code.resolve(target)
            if r is not None and r.path in self.hidden and r.kind not in TREE_KINDS:
                return None                 # the branch changed (the overlay had no such node) or deleted it
            return r
        return resolve

    def explain(self, base_code: CodeLookup) -> Callable[[str], str]:
        """Why ``resolver`` knows no TARGET, as a branch session's `get` says it: the default
        branch's code in a file this branch changed or deleted is not on the branch (remember said
        only "not a node id, path or path::qualname of the indexed code", a probe)."""
        where = f"branch {self.branch!r}" if self.branch else f"commit {self.commit[:12]}"

        def why(target: str) -> str:
            r = base_code.resolve(target)
            if r is None or r.path not in self.hidden or r.kind in TREE_KINDS:
                return ""
            return (f"{echo(target)!r} is in the default branch's index but not on {where} (the branch "
                    "changed or deleted its file); name the code as the branch has it")
        return why


def about_ids(meta: str | None) -> list[str]:
    """The node ids a note record is about, read from its ``meta`` (a merged note row's, or the
    record an unmerged one folds to): the one reading of it, for ``walk NOTE --edge about`` on
    and off a branch (``BranchView.note_targets``)."""
    return [t["node_id"] for t in json.loads(meta or "{}").get("about", []) if t.get("node_id")]


def check_branch(name: str, what: str = "branch") -> str:
    """NAME, when a note may record it as its branch: ``limits.plain_name``'s rule, the one for
    authors, models, sessions and tags (a name shown beside notes and matched exactly is refused,
    never changed). Git allows a zero-width character in a branch name; a session on it read fine,
    then ``remember`` was refused on the CLI (its session id holds the name) while a Tools session
    stored the note as written on another branch (``fe\\u200bat`` as ``feat``). Refused at open,
    naming the character and what to do."""
    for i, ch in enumerate(name):
        try:
            plain_name(what, ch)
        except InvalidArgument:
            import unicodedata

            said = "a byte that is not valid UTF-8" if "\ud800" <= ch <= "\udfff" else \
                f"U+{ord(ch):04X} {unicodedata.name(ch, '(a control character)')}, an invisible character"
            raise InvalidArgument(
                f"{what} {name[:ECHO_CHARS]!r} holds {said} (character {i + 1}): notes written "
                "in a branch session record the branch, and a name there must be plain text (it is shown "
                "and matched exactly); rename the branch (git branch -m) or open the session on its "
                "commit instead") from None
    return name


def pending(note: N.Note, exists: Callable[[str], bool]) -> list[N.Target]:
    """The note's pending targets absent from the code ``exists`` answers for (the default branch)."""
    return [t for t in note.about if t.pending and not exists(t.node_id)]


def pending_warnings(note: N.Note, exists: Callable[[str], bool]) -> list[str]:
    """What a reader of the default branch is told of a note about branch code. Code read from a
    worktree's uncommitted file is said to be so: "on branch fw at <its HEAD>" was untrue of that
    commit, which lacks it (``notes.Target.uncommitted``)."""
    gone = pending(note, exists)
    out = []
    for wip in (False, True):
        some = [t for t in gone if t.uncommitted == wip]
        if not some:
            continue
        names = ", ".join(f"{t.path}::{t.qualname}" if t.qualname else t.path for t in some)
        where = " and ".join(sorted({N.written_on(t.branch, t.branch_commit, wip) for t in some}))
        if wip:
            out.append(f"pending: its code ({names}) was {where} when the note was written, not in the default "
                       "branch's index yet (it attaches once committed, merged and re-indexed)")
        else:
            out.append(f"pending: its code ({names}) is on {where}, not in the default branch's index yet "
                       "(it attaches once merged and re-indexed)")
    return out


class Hashes(Protocol):
    """What a note's code is judged against: a content hash by node id (None: absent)."""

    def hash_of(self, node_id: str) -> str | None: ...

    def __contains__(self, node_id: object) -> bool: ...


class OnDefault:
    """How a session on the default branch judges what a note says of its code. A note written on
    a branch about code the branch changed holds the hash of the branch's version, so on the default
    branch that code differs though nothing changed after the note: a probe's default session read
    "stale: shop/pricing.py::discount changed since this note was written" of a note written a
    minute before on the branch. While the note's commit is not in the default branch's history
    (``merged``: the branch is not merged into the indexed commit), such a target is about that
    branch's version, and is said to be (``warnings``, ``about``), not stale; once merged, a
    difference is a change since, as for any note. A target the default branch lacks is gone, or
    pending when it is branch-only code (``pending_warnings``)."""

    def __init__(self, code: Hashes, merged: Callable[[str], bool], *, here: str = "the default branch's",
                 branch_code: bool = False):
        # ``here``/``branch_code``: a session on another branch judges a note of this one the same way
        # (``branchcode.BranchCode``: "this session's" code, where an absent target is gone)
        self.code, self.merged, self.here, self.branch_code = code, merged, here, branch_code

    def judge(self, note: N.Note) -> tuple[dict | None, list[str]]:
        """(``notes.staleness`` of what changed here, labels of the targets that are a branch's version)."""
        st = N.staleness(note, self.code, branch_code=self.branch_code)
        if st is None or not note.branch or not note.commit or self.merged(note.commit):
            return st, []
        marked = {t.node_id for t in note.about if t.branch}     # read from the branch's files (or only it had)
        theirs = {c["node_id"]: c["path"] for c in st["changes"] if c["reason"] == "changed" and c["node_id"] in marked}
        if not theirs:
            return st, []
        rest = [t for t in note.about if t.node_id not in theirs]
        return (N.staleness(replace(note, about=rest), self.code, branch_code=self.branch_code) if rest else None), \
            list(theirs.values())

    def theirs(self, note: N.Note, labels: list[str]) -> list[str]:
        """The line saying the note is about its branch's version of ``labels`` (none when empty), or
        about the version a worktree had uncommitted (not the one at its HEAD, the note's commit)."""
        if not labels:
            return []
        if not _uncommitted(note, labels):
            return [f"written on {N.written_on(note.branch, note.commit or '')}, about that version of "
                    f"{', '.join(labels)}: {self.here} differs (not merged into the default branch yet)"]
        where = N.written_on(note.branch, note.commit or "", True)
        return [f"written about the version of {', '.join(labels)} {where}: {self.here} differs (not merged into the "
                "default branch yet)"]

    def staleness(self, note: N.Note) -> dict | None:
        return self.judge(note)[0]

    def warnings(self, note: N.Note) -> list[str]:
        """What a note item says of its code on the default branch: stale, a branch's version, pending."""
        st, theirs = self.judge(note)
        return ([st["message"]] if st else []) + self.theirs(note, theirs) + pending_warnings(note, self.code.__contains__)

    def about(self, note: N.Note, label: str) -> str:
        """An attached note's ``about`` (LABEL: the symbol it is about in the item's file, or ""),
        naming the branch when the note is about that branch's version of the code. A note written
        on no branch is judged no further: get asks this of every attached note, after its staleness."""
        labels = self.judge(note)[1] if note.branch and note.commit else []
        if not labels:
            return label
        wip = _uncommitted(note, labels)
        where = N.written_on(note.branch, note.commit or "", wip)
        return f"{label}{' ' if wip else ' on '}{where}" if label else where


def _uncommitted(note: N.Note, labels: list[str]) -> bool:
    """Whether the targets LABELS names (``OnDefault.judge``'s) were read from a worktree's uncommitted file."""
    return any(t.uncommitted and t.branch and t.label() in labels for t in note.about)


def merged_in(shard: Any) -> Callable[[str], bool]:
    """Whether a commit is in the default branch's history (the indexed commit, or a row of the
    store's mined ``commits``, which holds every commit reachable from it), read once per commit.
    No history mined, or a commit beyond a shallow clone's boundary: not merged. Holds the shard's
    snapshot, not the shard (an overlay keeps it: ``NotesOverlay.loosen``)."""
    seen: dict[str, bool] = {}
    snap = shard.snapshot

    def merged(commit: str) -> bool:
        got = seen.get(commit)
        if got is None:
            got = commit == snap.manifest.indexed_commit or (
                bool(_SHA.fullmatch(commit)) and snap.has("commits")
                and snap.read("commits", columns=["sha"], where=f"sha = '{commit}'").num_rows > 0)
            if len(seen) < _MERGED_KEPT:
                seen[commit] = got
        return got
    return merged


__all__ = ["NoteScope", "OnDefault", "about_ids", "check_branch", "merged_in", "pending", "pending_warnings"]
