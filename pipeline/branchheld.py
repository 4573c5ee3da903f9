"""Whether a branch still holds a note's code: asked by the merge (``pipeline.merge``) of a note
whose code is gone from the version being built, written on a branch that version was not indexed
from.

A branch behind the default one (``release-1``, its commit in main's history) keeps code main has
deleted since. A note written on it (the checkout on ``release-1``, or a session on it) is about code
that exists, on its branch: the merge keeps such a target pending on that branch, as it keeps a
target of a branch ahead of main, while the branch exists and its tip has that code; a deleted
branch, or one whose tip lost it too, says nothing any more, and the note is orphaned as before.

A branch's name is read as a session reads it (``--branch NAME``: ``pipeline.overlaybuilder``'s
``branch_ref``, then git's own order): the local branch ``refs/heads/NAME`` first, else what git
names so, a tag (``v1.0``) or a remote-tracking branch (``origin/release-1``) included. Only the
local branch was looked up once, so a note written in a session on ``origin/release-1`` lost its
pending mark on the next index of main (a review).

What it costs, per merge, whatever the notes: one ``git for-each-ref`` (every ref's commit, read at
the first question: a deleted branch is a missing key, and the notes of deleted branches, orphaned
run after run, cost nothing more); one ``git rev-list --first-parent HEAD`` (HEAD's first-parent
line, read when a note of an existing branch needs it); one ``git cat-file --batch`` reading the
files asked of at the tips, once per (tip, path) (``close`` ends it). Asking each note's commit of
git (a ``rev-list`` walk per commit, and that before the branch was looked up) took 8.5 s of a
0.8 s re-index with 40 notes of deleted branches and 20,000 commits (a review). Whether a commit off
that line is in HEAD's history at all is the mined history's answer (``history``), else git's, once
per commit.

A target is held when the tip has its file (a file or folder target: the path; a definition: a
definition of that qualname in the file, by ``parse.definition_spans``). The branch the version was
indexed from is never asked (its tip may differ from the work tree the run read: the version is
the answer there), nor a name that is no branch (``""``: the default branch or a bare commit;
``worktree``: a detached worktree).
"""

from __future__ import annotations

import os
import re
from typing import Protocol, Sequence

from pipeline import gitio
from pipeline.parse import definition_spans
from stratum.notes import Target

_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# a name no ref spells but git may still resolve (``HEAD``, ``feature~1``, ``main@{1}``): asked of git
_REVISION = re.compile(r"[~^:@{]|\.\.|^[A-Z_]*HEAD$")


class History(Protocol):
    """A mined history (``pipeline.notetargets.Renames``): its commits, and whether it holds them all."""

    def knows(self, sha: str | None) -> bool: ...

    def complete(self) -> bool: ...


class BranchHeld:
    """``held(branch, target, commit)``: does BRANCH exist and its tip hold TARGET's code, seen at
    COMMIT on a line the indexed one left behind rather than merged?

    ``indexed_branch``: the branch the version was indexed from (never asked). ``default_branch``:
    the repository's default one (``default_at``). ``history``: the history mined for the version
    being built (``notetargets.Renames``): when complete, it says whether a commit is HEAD's; None,
    or incomplete (a shallow clone, a capped mine): git says."""

    def __init__(self, repo: str | os.PathLike, indexed_branch: str | None = None, *,
                 default_branch: str | None = None, history: History | None = None, only: Sequence[str] = ()):
        # ``only``: the names that will be asked (``moved``): the refs read are those they may name
        # (every ref with its object type took 2 s at 100,000 refs, a run at an unchanged HEAD: a review)
        self._only = tuple(only)
        self._repo = repo
        self._indexed = indexed_branch or ""
        self._default = default_branch or ""
        self._history = history
        self._whole: bool | None = None                 # history.complete(), asked when first needed
        self._refs: dict[str, str] | None = None        # refname -> its commit ("" : none read yet)
        self._tips: dict[str, str | None] = {}
        self._line: set[str] | None = None              # HEAD's first-parent line
        self._reach: dict[tuple[str, str], bool] = {}   # (commit, tip) -> an ancestor of it
        self._files: dict[tuple[str, str, bool], set[str] | None] = {}
        self._blobs: gitio.BlobReader | None = None

    def __call__(self, branch: str, target: Target, commit: str = "") -> bool:
        """``commit``: the one the target was seen at; code a merge brought in (``merged_in``) has
        landed on the indexed line, and is no branch's own any more. The branch is looked up first:
        a deleted one answers from the refs read once."""
        if not branch or branch == "worktree" or branch == self._indexed:
            return False
        tip = self.tip(branch)
        if tip is None:
            return False
        if commit and self.merged_in(commit):
            return False
        if target.kind == "repo":
            return True
        quals = self._defined(tip, target.path, folder=not target.qualname and target.kind != "file")
        return quals is not None and (not target.qualname or target.qualname in quals)

    def merged_in(self, commit: str) -> bool:
        """Is COMMIT in HEAD's history only through a merge (not on its first-parent line)? A branch
        cut from the indexed line and left behind (``release-1``) is on it; a branch merged into it
        (``git merge --no-ff fz``), or a history of its own root merged in (``--allow-unrelated-
        histories``), is not: its code landed there, and the line deleting it since orphans its
        notes, however long the merged branch is kept. A fast-forward merge leaves no trace to tell
        it from the first kind. A commit outside HEAD's history, or no full sha: False."""
        if not _FULL_SHA.fullmatch(commit or "") or commit in self._first_parents():
            return False
        h = self._history
        if h is not None and self._whole is None:
            self._whole = h.complete()
        return h.knows(commit) if h is not None and self._whole else self._reaches(commit, "HEAD")

    def tip(self, branch: str) -> str | None:
        """The commit BRANCH names now, as a session on it reads the name: the local branch first,
        else git's order (``refs/NAME``, a tag, a local branch, a remote-tracking branch, its
        ``HEAD``); None when no ref is so named (a deleted branch)."""
        if branch not in self._tips:
            self._tips[branch] = self._resolve(branch)
        return self._tips[branch]

    def asked(self) -> dict[str, str | None]:
        """Each branch name asked so far and the commit it named (None: none): what the merge's
        answers read of the refs (``RunReport.branch_tips``)."""
        return dict(self._tips)

    def moved(self, tips: dict[str, str | None]) -> bool:
        """Whether any of ``tips`` (an earlier ``asked``) names another commit now, or none (made with
        ``only=tips``, it reads only the refs those names may be)."""
        return any(self.tip(name) != was for name, was in tips.items())

    def default_at(self, commit: str) -> str:
        """The default branch's name when its tip has COMMIT in its history, else "": where a note
        recording no branch was written (a note of the default branch records none,
        ``stratum.branchnotes.NoteScope.recorded``; a bare commit's session records none either)."""
        tip = self._default_tip() if self._default else None
        return self._default if tip is not None and _FULL_SHA.fullmatch(commit or "") \
            and (commit == tip or self._reaches(commit, tip)) else ""

    def _default_tip(self) -> str | None:
        """The default branch's commit: the local branch, else the remote-tracking one a remote's HEAD
        names (``defaultcode.default_commit``, as a checkout note reads it; a clone whose local main was
        deleted: its notes read "on commit", not "on branch main")."""
        from pipeline.defaultcode import default_commit

        return self.tip(self._default) or default_commit(str(self._repo), self._default) or None

    # ---- git, read once ---------------------------------------------------------------------
    def _resolve(self, name: str) -> str | None:
        if not name or name.startswith("-") or any(c in name for c in "\n\0 "):
            return None
        refs = self._all_refs()
        for ref in _candidates(name):
            if ref in refs:
                return refs[ref] or self._rev_parse(ref)
        return self._rev_parse(name) if _REVISION.search(name) else None

    def _all_refs(self) -> dict[str, str]:
        """Every ref's commit (an annotated tag's, peeled; "" where a tag names a tag: read when asked)."""
        if self._refs is None:
            patterns = [ref for name in self._only for ref in _candidates(name)]
            out = gitio.decode(gitio.run_git(self._repo, "for-each-ref", "--format=%(refname)%00%(objectname)"
                                             "%00%(objecttype)%00%(*objectname)%00%(*objecttype)", "--", *patterns,
                                             check=False))
            self._refs = {}
            for line in out.splitlines():
                f = line.split("\0")
                if len(f) == 5:
                    self._refs[f[0]] = f[1] if f[2] == "commit" else f[3] if f[4] == "commit" else ""
        return self._refs

    def _rev_parse(self, rev: str) -> str | None:
        out = gitio.run_git(self._repo, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
        return gitio.decode(out).strip() or None

    def _first_parents(self) -> set[str]:
        if self._line is None:
            out = gitio.run_git(self._repo, "rev-list", "--first-parent", "HEAD", check=False)
            self._line = set(gitio.decode(out).split())
        return self._line

    def _reaches(self, commit: str, tip: str) -> bool:
        """Whether COMMIT is an ancestor of TIP (git, once per pair)."""
        key = (commit, tip)
        if key not in self._reach:
            try:
                gitio.run_git(self._repo, "merge-base", "--is-ancestor", commit, tip)
                self._reach[key] = True
            except gitio.GitError:      # not an ancestor (or no such commit)
                self._reach[key] = False
        return self._reach[key]

    def _defined(self, tip: str, path: str, folder: bool) -> set[str] | None:
        """The qualnames defined in PATH at TIP (none for a folder, FOLDER: the target may be one);
        None when TIP has no such path. Files are read by one ``git cat-file --batch`` for the merge
        (``close``); a folder's existence is asked alone (a folder target is rare)."""
        key = (tip, path, folder)
        if key not in self._files:
            self._files[key] = None
            if path and "\n" not in path and "\0" not in path:
                spec = f"{tip}:{path}"
                if self._blobs is None:
                    self._blobs = gitio.BlobReader(self._repo)
                data = self._blobs.read(spec)
                if data is not None:
                    self._files[key] = {qual for _, _, qual, _ in definition_spans(path, data)}
                elif folder and gitio.decode(gitio.run_git(self._repo, "cat-file", "-t", spec, check=False)).strip():
                    self._files[key] = set()
        return self._files[key]

    def close(self) -> None:
        """End the ``git cat-file --batch`` process, if one was started."""
        if self._blobs is not None:
            self._blobs.close()
            self._blobs = None


def _candidates(name: str) -> tuple[str, ...]:
    """The refs a branch name may be, in the order they are tried: the session's branch first, then
    git's (``git help revisions``)."""
    return (f"refs/heads/{name}", name, f"refs/{name}", f"refs/tags/{name}", f"refs/remotes/{name}",
            f"refs/remotes/{name}/HEAD")


__all__ = ["BranchHeld"]
