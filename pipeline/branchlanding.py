"""Where a branch's code landed when its file was renamed on the branch: asked by the merge
(``pipeline.merge``) of a pending target (code only a branch had, ``stratum.branchnotes``) that this
version lacks at the target's path.

A merge or a rebase brings the branch's commits, and their renames, into the default branch's
history (``notetargets.Renames``). A squash merge does not: its one commit's diff of a file moved
and edited is a delete and an add, so notes written on ``fx`` about ``shop/pricing.py::discount``
before ``fx`` renamed the file to ``shop/prices.py`` stayed pending after the squash, for ever, and
``get shop/prices.py`` carried neither (a probe). The branch's own history records the rename, so:

- while the branch exists, the renames between the note's commit and the branch's tip (one
  ``git diff -M`` per (commit, tip), read only for a pending target whose file this version lacks)
  lead from the target's path; the code there, when this version has it, is where it landed;
- when the branch is gone (deleted after the squash, its commits maybe collected), or git cannot
  say, the code is found by what it is: the one definition of this version with the target's
  qualified name and the content hash the writer saw, in another file. The table of those is built
  once per merge, and only then (a deleted branch's pending note is resolved by its first merge).

A target landed so drops its branch marks and keeps the writer's hash: stale when the code changed.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Iterable, Mapping

from pipeline import gitio
from stratum.codelookup import CodeLookup
from stratum.notes import Target


class BranchLanding:
    """``landing(target, index)``: TARGET (pending, absent from INDEX, this version's code) at the
    code it landed as, or None.

    ``code``: this version's code nodes (``schema.NODES`` records: INDEX is their lookup, the
    merge's); ``tip(branch)``: the commit a branch names now, None when none
    (``branchheld.BranchHeld.tip``)."""

    def __init__(self, repo: str | os.PathLike, code: Iterable[Mapping], tip: Callable[[str], str | None]):
        self._repo = repo
        self._code = code
        self._tip = tip
        self._moves: dict[tuple[str, str], dict[str, str] | None] = {}
        self._same: dict[tuple[str, str, str], list[Mapping]] | None = None

    def __call__(self, t: Target, index: CodeLookup) -> Target | None:
        if not t.pending or t.uncommitted or not t.path or t.kind == "repo" or t.node_id in index:
            return None
        if index.resolve(t.path) is not None:     # its file is here: the code did not move away
            return None
        tip = self._tip(t.branch) if t.branch and t.branch != "worktree" else None
        moves = self._renamed(t.branch_commit, tip) if tip else None
        if moves is None:           # the branch is gone, or git cannot say: the code by what it is
            return self._same_code(t)
        new = moves.get(t.path)
        if new is not None:
            r = index.resolve(f"{new}::{t.qualname}" if t.qualname else new)
            if r is not None and r.node_id in index:
                return _landed(t, r.node_id, r.path, r.qualname or t.qualname)
        return None                 # the branch holds the code where the note says: still pending

    def _renamed(self, commit: str, tip: str) -> dict[str, str] | None:
        """old path -> new path of the files renamed between COMMIT and TIP (git's rename detection,
        an edit beside the move included); None when git cannot say (a commit collected)."""
        key = (commit, tip)
        if key not in self._moves:
            if not commit or not gitio.has_any_commit(self._repo, [commit]):
                self._moves[key] = None
                return None
            out = gitio.run_git(self._repo, "diff", "--no-ext-diff", "--name-status", "-z", "-M",
                                "--diff-filter=R", commit, tip, "--", check=False)
            moves: dict[str, str] = {}
            fields = out.split(b"\0")
            for i in range(0, len(fields) - 2, 3):          # R<score>, old, new
                if fields[i].startswith(b"R"):
                    old, new = _text(fields[i + 1]), _text(fields[i + 2])
                    if old is not None and new is not None:
                        moves[old] = new
            self._moves[key] = moves
        return self._moves[key]

    def _same_code(self, t: Target) -> Target | None:
        """The one definition elsewhere with T's qualified name and the writer's content hash."""
        if not t.qualname or not t.content_hash:
            return None
        if self._same is None:
            self._same = {}
            for n in self._code:
                if n.get("qualname") and n.get("content_hash"):
                    self._same.setdefault((n.get("kind") or "", n["qualname"], n["content_hash"]), []).append(n)
        found = [n for n in self._same.get((t.kind, t.qualname, t.content_hash), ()) if n.get("path") != t.path]
        return _landed(t, found[0]["id"], found[0]["path"], t.qualname) if len(found) == 1 else None


def _landed(t: Target, node_id: str, path: str, qualname: str) -> Target:
    return replace(t, node_id=node_id, path=path, qualname=qualname, branch="", branch_commit="", base_hash=None)


def _text(raw: bytes) -> str | None:
    """A path git wrote as a node names it (None: not UTF-8, no node)."""
    return gitio.structure_path(gitio.path_text(raw))


__all__ = ["BranchLanding"]
