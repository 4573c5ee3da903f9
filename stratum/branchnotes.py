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
branch's version (``OnDefault``), not as stale. A note written in the checkout about code it had
edited and not committed (``checkoutnotes``: its targets hashed against the work tree) is read the
same way until an index reads that work tree (one of the checkout on the note's branch; a linked
worktree's note is not read by an index of the main checkout): about the work tree's version, not
indexed yet (``IndexedHistory.unindexed``). Core code: no git.
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
    # the branch the note records (``Note.branch``) when not ``branch``: "" for the default branch,
    # whose notes record none (``served_branch``); its targets still say where their code was read
    records: str | None = field(default=None, kw_only=True)

    @property
    def recorded(self) -> str:
        """The note's ``branch``: a session on the default branch (a worktree that has it out, while
        the main checkout's feature branch is indexed; the checkout's own edits) records none (it
        recorded "main", a probe), as a note written on the indexed default branch does."""
        return self.branch if self.records is None else self.records

    def resolver(self, base_code: CodeLookup) -> Callable[[str], "N.Resolved | None"]:
        """A ``notes.validate`` resolver over the branch's code: the overlay first (branch-only code
        comes back marked with the branch; code read from a file the worktree has uncommitted changes
        in, as such), then the base unless the branch changed or deleted it."""
        def resolve(target: str) -> N.Resolved | None:
            r = self.code.resolve(target) if self.code is not None else None
            if r is not None:
                wip = r.path in self.dirty and r.kind not in TREE_KINDS
                if r.node_id in base_code:      # the branch's version of code the default has too: marked,
                    return replace(r, branch=self.branch, uncommitted=wip,   # with the default's hash of it
                                   base_hash=base_code.hash_of(r.node_id))
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


def served_branch(manifest: Any) -> str:
    """The branch a note written in a session on the indexed version records (``Note.branch``): the
    one the version was indexed from (the run report's ``branch``), when the run also read which is
    the repository's default branch (``default_branch``, ``pipeline.gitio.default_branch``) and it
    is another. An agent in the checkout with a feature branch out (the hooks and `watch` index it)
    writes about that branch's code: once the default branch is indexed again, the note's code is
    pending "on branch fz at ...", not "on commit ..." (a probe), and the branch's sessions read it
    as theirs. "" for the default branch (whose notes record none), a detached HEAD, a repository
    git names no default branch of, a name notes may not hold (``check_branch``), and a version
    indexed before these were recorded: as before."""
    rep = manifest.report or {}
    branch, default = rep.get("branch"), rep.get("default_branch")
    if not (isinstance(branch, str) and isinstance(default, str) and branch and default and branch != default):
        return ""
    try:
        return check_branch(branch)
    except InvalidArgument:
        return ""


def served_of(manifest: Any) -> tuple[str, str]:
    """(``served_branch(manifest)``, the default branch's name) when the version was indexed from a
    feature branch, else ("", ""): ``OnDefault(served=)``."""
    branch = served_branch(manifest)
    return (branch, (manifest.report or {}).get("default_branch") or "") if branch else ("", "")


def seen_on(note: N.Note) -> str:
    """The branch NOTE's code was read on: its own ``branch``, else the one its marked targets name. A
    note written on the default branch records none (``NoteScope.recorded``), while a target read
    from code its session saw apart from the indexed version keeps the branch (the checkout's
    uncommitted edit on main: "uncommitted at HEAD ... of branch main"); every judge of a branch's
    or a work tree's version asks this, not ``Note.branch``."""
    return note.branch or next((t.branch for t in note.about if t.branch), "")


def pending(note: N.Note, exists: Callable[[str], bool]) -> list[N.Target]:
    """The note's pending targets absent from the code ``exists`` answers for (the default branch)."""
    return [t for t in note.about if t.pending and not exists(t.node_id)]


def pending_warnings(note: N.Note, exists: Callable[[str], bool],
                     merged: Callable[[str], bool] | None = None, served: str = "", default: str = "") -> list[str]:
    """What a reader of the default branch is told of a note about branch code. Code read from a
    worktree's uncommitted file is said to be so: "on branch fw at <its HEAD>" was untrue of that
    commit, which lacks it (``notes.Target.uncommitted``). ``merged``: whether a commit is in the
    default branch's history (``IndexedHistory``): code pending at such a commit is on a branch
    *behind* the default one, which no longer has it (``pipeline.branchheld``): merging that branch
    brings nothing back, so no attachment is promised (it said "it attaches once merged and
    re-indexed" of it too, a review). ``served``: the branch the version read was indexed from when
    it is not the default branch (``served_branch``; DEFAULT names that one): the hooks index the
    checkout's branch, and a note of main about code fz lacks read "not in the default branch's
    index yet" of code main has (a session-30 leftover)."""
    gone = pending(note, exists)
    out = []
    for wip, behind in ((False, False), (False, True), (True, False)):
        some = [t for t in gone if t.uncommitted == wip
                and behind == (not wip and merged is not None and bool(t.branch_commit) and merged(t.branch_commit))]
        if not some:
            continue
        names = ", ".join(f"{t.path}::{t.qualname}" if t.qualname else t.path for t in some)
        where = " and ".join(sorted({N.written_on(t.branch, t.branch_commit, wip) for t in some}))
        index = f"this index of branch {served}" if served else "the default branch's index"
        if wip:
            out.append(f"pending: its code ({names}) was {where} when the note was written, not in {index} "
                       "yet (it attaches once committed, merged and re-indexed)")
        elif behind:
            out.append(f"pending: its code ({names}) is on {where}; "
                       f"{f'branch {served}' if served else 'the default branch'} no longer has it")
        elif served and default and {t.branch for t in some} == {default}:
            out.append(f"pending: its code ({names}) is on {where}, the default branch, not in {index} "
                       f"(it attaches once {default} is indexed again, or {served} has it)")
        else:
            out.append(f"pending: its code ({names}) is on {where}, not in {index} yet "
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
    difference is a change since, as for any note. A squash merge or a rebase never puts the note's
    commit in that history: the default branch's code at the target no longer being the version it
    had when the note was written (``moved``) says the same. A target the default branch lacks is
    gone, or pending when it is branch-only code (``pending_warnings``).

    The same holds of a note written against the work tree's uncommitted version of code (the
    documented flow: edit, remember, commit, re-index; ``checkoutnotes``): its commit is the
    indexed one, so it is "merged", yet the index holds the version from before the edit. While
    ``merged.unindexed`` says no index has taken that version in (``IndexedHistory``), its
    uncommitted targets are about the work tree's version, not indexed yet (a probe read "stale:
    ... changed since this note was written" and counted it x0.5 in search, the edit having come
    before the note); after that a difference is a change since (the edit was changed again or
    thrown away)."""

    def __init__(self, code: Hashes, merged: Callable[[str], bool], *, here: str = "the default branch's",
                 branch_code: bool = False, default: Hashes | None = None, served: tuple[str, str] = ("", "")):
        # ``here``/``branch_code``: a session on another branch judges a note of this one the same way
        # (``branchcode.BranchCode``: "this session's" code, where an absent target is gone)
        self.code, self.merged, self.here, self.branch_code = code, merged, here, branch_code
        # the default branch's code (``moved``): CODE in a session on it; DEFAULT, a branch session's
        # base shard's (``BranchCode`` passes it)
        self.default: Hashes = default if default is not None else code
        # a note -> whether the index has not taken its work tree's version in (``IndexedHistory``;
        # another ``merged``: never, judged as before)
        self._unindexed: Callable[[N.Note], bool] = getattr(merged, "unindexed", _never)
        # (the branch the version judged here was indexed from, the default branch's name) when that
        # is a feature branch (``served_of``): what pending code is said not to be in, and whose
        # version a branch's differs from ("the default branch's differs" of fz's index: a review)
        self.served = served
        if served[0] and here == "the default branch's":
            self.here = f"branch {served[0]}'s"
        self.into = f"branch {served[0]}" if served[0] else "the default branch"

    def judge(self, note: N.Note) -> tuple[dict | None, list[str]]:
        """(``notes.staleness`` of what changed here, labels of the targets that are a branch's
        version, or the work tree's version not indexed yet: ``theirs`` says which)."""
        st = N.staleness(note, self.code, branch_code=self.branch_code)
        if st is None or not seen_on(note) or not note.commit:
            return st, []
        if not self.merged(note.commit):
            # read from the branch's files (or only it had), while the default branch's code there is as it was
            marked = {t.node_id for t in note.about if t.branch and not self.moved(t)}
        elif self._unindexed(note):
            marked = {t.node_id for t in note.about if t.uncommitted and not self.moved(t)}   # the work tree's, not indexed yet
        else:
            return st, []
        theirs = {c["node_id"]: c["path"] for c in st["changes"] if c["reason"] == "changed" and c["node_id"] in marked}
        if not theirs:
            return st, []
        rest = [t for t in note.about if t.node_id not in theirs]
        return (N.staleness(replace(note, about=rest), self.code, branch_code=self.branch_code) if rest else None), \
            list(theirs.values())

    def moved(self, t: N.Target) -> bool:
        """Whether the default branch's code at T differs from its version when the note was written
        (``Target.base_hash``): then the branch's version is no longer what sets the note apart. A
        squash merge or a rebase leaves the note's commit out of the default branch's history, so
        ``merged`` never said so and such a note read "not merged into the default branch yet"
        forever, also once the branch was deleted (a probe); the default branch changing that code
        itself is a change since the note too. Read of the default branch's code also in a session
        on another branch (whether the note's branch landed is the default branch's fact)."""
        return t.base_hash is not None and self.default.hash_of(t.node_id) != t.base_hash

    def theirs(self, note: N.Note, labels: list[str]) -> list[str]:
        """The line saying the note is about its branch's version of ``labels`` (none when empty), or
        about the version a worktree had uncommitted (not the one at its HEAD, the note's commit), or
        about the work tree's version the index has not taken in yet (its commit is merged: ``judge``)."""
        if not labels:
            return []
        if note.commit and self.merged(note.commit):
            now = "the indexed version" if not self.branch_code else f"{self.here} version"
            return [f"written about the work tree's version of {', '.join(labels)}, {_at_head(note)}: {now} "
                    "differs (not committed and indexed yet)"]
        if not _uncommitted(note, labels):
            return [f"written on {N.written_on(seen_on(note), note.commit or '')}, about that version of "
                    f"{', '.join(labels)}: {self.here} differs (not merged into {self.into} yet)"]
        where = N.written_on(seen_on(note), note.commit or "", True)
        return [f"written about the version of {', '.join(labels)} {where}: {self.here} differs (not merged into "
                f"{self.into} yet)"]

    def staleness(self, note: N.Note) -> dict | None:
        return self.judge(note)[0]

    def warnings(self, note: N.Note) -> list[str]:
        """What a note item says of its code on the default branch: stale, a branch's version, pending."""
        st, theirs = self.judge(note)
        return ([st["message"]] if st else []) + self.theirs(note, theirs) + pending_warnings(
            note, self.code.__contains__, None if self.branch_code else self.merged, *self.served)

    def about(self, note: N.Note, label: str) -> str:
        """An attached note's ``about`` (LABEL: the symbol it is about in the item's file, or ""),
        naming the branch when the note is about that branch's version of the code, or saying it is
        about the work tree's version, not indexed yet. A note written on no branch is judged no
        further: get asks this of every attached note, after its staleness."""
        labels = self.judge(note)[1] if seen_on(note) and note.commit else []
        if not labels:
            return label
        if self.merged(note.commit or ""):      # the checkout's uncommitted version (``judge``)
            return f"the work tree's version{f' of {label}' if label else ''} ({_at_head(note)}, not indexed yet)"
        wip = _uncommitted(note, labels)
        where = N.written_on(seen_on(note), note.commit or "", wip)
        return f"{label}{' ' if wip else ' on '}{where}" if label else where


def _never(note: N.Note) -> bool:
    return False


def _at_head(note: N.Note) -> str:
    """Where a note's work tree's version was: "uncommitted at HEAD 1a2b3c4d5e6f of branch main"
    (no branch for a detached checkout, which a session records as "worktree")."""
    branch = seen_on(note)
    of = "" if branch in ("", "worktree") else f" of branch {branch}"
    return f"uncommitted at HEAD {(note.commit or '')[:12]}{of}"


def _uncommitted(note: N.Note, labels: list[str]) -> bool:
    """Whether the targets LABELS names (``OnDefault.judge``'s) were read from a worktree's uncommitted file."""
    return any(t.uncommitted and t.branch and t.label() in labels for t in note.about)


class IndexedHistory:
    """What the default branch's index holds, as ``OnDefault`` asks it: whether a commit is in its
    history (calling it: ``merged_in``), and whether it has taken in the work tree's version a note
    was written against (``unindexed``). Holds a version's snapshot, not its shard (an overlay keeps
    it: ``NotesOverlay.loosen``)."""

    def __init__(self, snap: Any):
        self._snap = snap
        self._seen: dict[str, bool] = {}

    def __call__(self, commit: str) -> bool:
        """Whether COMMIT is in the default branch's history (the indexed commit, or a row of the
        store's mined ``commits``, which holds every commit reachable from it), read once per commit.
        No history mined, or a commit beyond a shallow clone's boundary: not merged."""
        got = self._seen.get(commit)
        if got is None:
            snap = self._snap
            got = commit == snap.manifest.indexed_commit or (
                bool(_SHA.fullmatch(commit)) and snap.has("commits")
                and snap.read("commits", columns=["sha"], where=f"sha = '{commit}'").num_rows > 0)
            if len(self._seen) < _MERGED_KEPT:
                self._seen[commit] = got
        return got

    def unindexed(self, note: N.Note) -> bool:
        """Whether the version served cannot hold the work tree's version NOTE's uncommitted targets
        were hashed against, so that a different hash there is "not indexed yet", not "changed since":

        - the note's commit (HEAD when it was written) is the indexed commit: the index has not moved
          past it (an index at a later commit read the code after that commit: judged as any note);
        - the version was published before the note was written, or by a run that read another work
          tree: an index run after the note read the work tree then (a run with a note the log holds
          unmerged always publishes: ``pipeline.storestate.up_to_date``), so if it holds another
          version the edit was changed again or thrown away since, a change since as for any note.
          That holds of the checkout the index reads, not of a linked worktree's note (branch fw at
          the indexed commit): any index of the main checkout turned such a note "stale: changed
          since", though it never read fw's work tree (a review). A run reads the work tree of the
          branch it records (the run report's ``branch``; a detached HEAD is "worktree", as a
          session records it; a branch is out in one work tree at a time), so only a run of the
          note's branch counts. A version that records none (indexed before it was recorded): none
          counts while the note's commit is the indexed one.

        The hashes alone cannot tell: the note holds the work tree's, the index the one before the
        edit in both cases. A repair republishing an older version dates it anew, and a note written
        while an index ran may be dated before its publish: such notes are judged as any (stale), the
        way they read before. A checkout note whose branch the checkout left (``git switch -c``
        keeps the work tree) stays "not indexed yet" until an index at a later commit."""
        m = self._snap.manifest
        if not note.commit or note.commit != m.indexed_commit:
            return False
        read = (m.report or {}).get("branch")       # the branch whose work tree the run read
        if not isinstance(read, str) or seen_on(note) != (read or "worktree"):
            return True
        return note.created_at.timestamp() > float(m.published_at or 0)


def merged_in(shard: Any) -> IndexedHistory:
    """Whether a commit is in the default branch's history (``IndexedHistory``) of SHARD's version,
    read once per commit."""
    return IndexedHistory(shard.snapshot)


__all__ = ["IndexedHistory", "NoteScope", "OnDefault", "about_ids", "check_branch", "merged_in", "pending", "pending_warnings",
           "seen_on", "served_branch"]
