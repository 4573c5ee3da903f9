"""Whether a branch still holds a note's code: asked by the merge (``pipeline.merge``) of a note
whose code is gone from the version being built, written on a branch that version was not indexed
from.

A branch behind the default one (``release-1``, its commit in main's history) keeps code main has
deleted since. A note written on it (the checkout on ``release-1``, or a session on it) is about code
that exists, on its branch: the merge keeps such a target pending on that branch, as it keeps a
target of a branch ahead of main, while the branch exists and its tip has that code; a deleted
branch, or one whose tip lost it too, says nothing any more, and the note is orphaned as before.

Read with git (``gitio``) at the branch's tip now, once per branch and once per (tip, path): a
target is held when the tip has its file (a file or folder target: the path; a definition: a
definition of that qualname in the file, by ``parse.definition_spans``). The branch the version was
indexed from is never asked (its tip may differ from the work tree the run read: the version is
the answer there), nor a name that is no branch (``""``: the default branch or a bare commit;
``worktree``: a detached worktree).
"""

from __future__ import annotations

import os

from pipeline import gitio
from pipeline.parse import definition_spans
from stratum.notes import Target


class BranchHeld:
    """``held(branch, target, commit)``: does BRANCH exist and its tip hold TARGET's code, seen at
    COMMIT on a line the indexed one left behind rather than merged?"""

    def __init__(self, repo: str | os.PathLike, indexed_branch: str | None = None):
        self._repo = repo
        self._indexed = indexed_branch or ""
        self._tips: dict[str, str | None] = {}
        self._files: dict[tuple[str, str], set[str] | None] = {}
        self._merged: dict[str, bool] = {}

    def __call__(self, branch: str, target: Target, commit: str = "") -> bool:
        """``commit``: the one the target was seen at; code a merge brought in (``merged_in``) has
        landed on the indexed line, and is no branch's own any more."""
        if not branch or branch == "worktree" or branch == self._indexed:
            return False
        if commit and self.merged_in(commit):
            return False
        tip = self.tip(branch)
        if tip is None:
            return False
        if target.kind == "repo":
            return True
        quals = self._defined(tip, target.path)
        return quals is not None and (not target.qualname or target.qualname in quals)

    def merged_in(self, commit: str) -> bool:
        """Is COMMIT in HEAD's history only through a merge (not on its first-parent line)? A branch
        cut from the indexed line and left behind (``release-1``) is on it; a branch merged into it
        (``git merge --no-ff fz``) is not: its code landed there, and the line deleting it since
        orphans its notes, however long the merged branch is kept. A fast-forward merge leaves no
        trace to tell it from the first kind."""
        if commit not in self._merged:
            ok = all(c in "0123456789abcdef" for c in commit) and bool(commit)
            out = gitio.run_git(self._repo, "rev-list", "--first-parent", "--parents", "HEAD", "--not", commit,
                                check=False) if ok else b""
            last = gitio.decode(out).strip().rsplit("\n", 1)[-1].split()    # the walk's last commit, its parents
            # the first-parent walk stops at COMMIT's ancestors: on the line, its last step's first
            # parent is COMMIT; none at all: the walk reached the root, COMMIT is not in the history
            self._merged[commit] = len(last) > 1 and last[1] != commit
        return self._merged[commit]

    def tip(self, branch: str) -> str | None:
        """The commit BRANCH names now (a local branch, never a tag), None when there is no such branch."""
        if branch not in self._tips:
            ok = not branch.startswith("-") and not any(c in branch for c in "\n\0")
            out = gitio.run_git(self._repo, "rev-parse", "--verify", "-q", f"refs/heads/{branch}^{{commit}}",
                                check=False) if ok else b""
            self._tips[branch] = gitio.decode(out).strip() or None
        return self._tips[branch]

    def _defined(self, tip: str, path: str) -> set[str] | None:
        """The qualnames defined in PATH at TIP (none for a folder); None when TIP has no such path."""
        key = (tip, path)
        if key not in self._files:
            self._files[key] = None
            if path and "\n" not in path and "\0" not in path:
                spec = f"{tip}:{path}"
                kind = gitio.decode(gitio.run_git(self._repo, "cat-file", "-t", spec, check=False)).strip()
                if kind == "blob":
                    data = gitio.run_git(self._repo, "cat-file", "blob", spec)
                    self._files[key] = {qual for _, _, qual, _ in definition_spans(path, data)}
                elif kind:
                    self._files[key] = set()
        return self._files[key]


__all__ = ["BranchHeld"]
