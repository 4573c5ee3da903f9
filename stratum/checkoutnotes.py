"""Notes written about code the checkout holds uncommitted (or unindexed) edits of.

The normal agent flow is: edit a function, ``remember`` what was found, commit, re-index. A note
hashed against the indexed version of that function then read "stale: changed since this note was
written" after the re-index, though the change came before the note (a steering probe). So
``remember`` in a session on the indexed version (no branch, commit or worktree) asks the
repository's freshness view whether a file the note is about differs in the checkout (uncommitted,
or committed after the indexed commit); if one does, the note is written as a ``--worktree``
session would write it: its targets hashed against the work tree's version, which is what the
agent was looking at, so it is fresh once that version is committed and indexed. A clean file
costs a probe of the repository and a ``stat`` (``Freshness.uncommitted``), nothing more.

Without a way to read the work tree (no overlay builder: a server without repository access; or
building fails) the note stays tied to the indexed version and the answer says so, naming
``--worktree``.
"""

from __future__ import annotations

from typing import Callable

from stratum.branchview import BranchView, OverlayCache
from stratum.errors import InvalidArgument
from stratum.freshness import repo_at
from stratum.limits import echo
from stratum.shard import Shard


def edited_view(memory, sh: Shard, about: list[str], builder: Callable[..., dict] | None,
                loaded: OverlayCache) -> tuple[BranchView | None, list[str]]:
    """(the view to write a note about ``about`` of store ``sh`` through, what to tell the writer).
    (None, []) when no file it names differs in the checkout: the indexed version is the one seen.
    ``loaded``: the overlays the sessions' views hold (the tools'), shared."""
    f, m = memory.freshness, sh.manifest
    if f is None or not m.repo_path:
        return None, []
    paths = sorted({p for t in about if (p := _path_of(sh, t))})
    repo = repo_at(str(sh.store.root), m.repo_path)
    edited = f.uncommitted(repo, m.indexed_commit, paths, store_root=str(sh.store.root)) if paths else []
    if not edited:
        return None, []
    names = ", ".join(echo(p) for p in edited)
    if builder is not None:
        try:
            info = builder(str(sh.store.root), "", repo)
        except (InvalidArgument, OSError):     # no work tree to read: tied to the indexed version
            info = None
        if info is not None:
            view = BranchView(repo, args=("", "", repo), name=info.get("branch", ""))
            view.overlays[str(sh.store.root)] = loaded.get(str(sh.store.root), info, memory.embedder)
            return view, [f"written against the work tree's version of {names} (it differs from the indexed "
                          "commit): the note stays fresh once that version is committed and indexed"]
    return None, [f"{names} differs in the checkout from the indexed commit {(m.indexed_commit or '')[:12]}, and "
                  "this server cannot read the work tree: the note is tied to the indexed version, so it will read "
                  "stale once the edit is committed and indexed; write it in a session opened with --worktree PATH "
                  "(open_session(worktree=)) on a machine that has the checkout"]


def _path_of(sh: Shard, target: str) -> str:
    """The file a note target lies in ("" for the whole repository or a target the index lacks)."""
    row = sh.resolve(target)
    if row is None:
        row = sh.resolve(target.partition("::")[0])
    return sh.col("path")[row] or "" if row is not None else ""


__all__ = ["edited_view"]
