"""What a session's names resolve to: the branch view it answers from, and targets through that view.

Every tool turns a name (node id, path, ``path::symbol``, ``path:LINE``, ``repo:path``) into a row
the session sees: through its branch, commit or worktree view when it has one (the overlays built
once per store, then shared), else through the shared memory. Pins are names too: a pin whose node
the served version lacks is marked gone here. These were ``Tools`` methods; they need only the
memory and the session's view, so they live apart from the tools that call them.
"""

from __future__ import annotations

import os
from typing import Callable

from stratum import linerange as L
from stratum import whichstore as W
from stratum.branchview import BranchView, OverlayCache
from stratum.errors import InvalidArgument, NotFound
from stratum.limits import echo
from stratum.memory import Memory, Target
from stratum.sessions import Session
from stratum.toolspec import check_arg


def branch_view(memory: Memory, builder: Callable[[str, str, str], dict] | None, cache: OverlayCache,
                branch: str, commit: str, worktree: str = "", at: dict | None = None) -> BranchView | None:
    """The view of a branch, commit or worktree over every store (overlays built once, then shared); ``at``: root -> commit to build instead.
    A worktree is one repository's checkout: with several stores served it is refused (``_one_repository``)."""
    branch, commit, worktree = (check_arg(name, v).strip() for name, v in      # resume_session's too
                                (("branch", branch), ("commit", commit), ("worktree", worktree)))
    if sum(map(bool, (branch, commit, worktree))) > 1:
        raise InvalidArgument("give one of branch, commit or worktree")
    if not (rev := branch or commit or worktree):
        return None
    if builder is None:
        raise InvalidArgument("this server cannot build branch overlays (no repository access)")
    if worktree and at is None and len(list(memory)) > 1:
        raise _one_repository(memory, builder, worktree)
    view = BranchView(rev, args=(branch, commit, worktree))
    for sh in (sh for sh in memory if at is None or str(sh.store.root) in at):
        info = builder(str(sh.store.root), at[str(sh.store.root)], worktree) if at else \
            builder(str(sh.store.root), branch or commit, worktree, **({"branch": True} if branch else {}))
        view.name = view.name or info.get("branch", "")       # a worktree's branch, for notes written there
        view.overlays[str(sh.store.root)] = cache.get(str(sh.store.root), info, memory.embedder)
    return view


def _one_repository(memory: Memory, builder: Callable[..., dict], worktree: str) -> InvalidArgument:
    """The refusal of a worktree session where several stores are served: a worktree is one
    repository's checkout, and a view reads every store through it (the other stores have no such
    checkout). It names the store whose repository the worktree is (the one whose overlay builds)
    and how to serve that store alone; it said the worktree was "not a worktree of the indexed
    repository 'requests'", the first store to refuse, of a flask checkout (a probe)."""
    shards = list(memory)
    names = ", ".join(sh.manifest.repo_name for sh in shards)
    refused, ours = [], []
    for sh in shards:
        try:
            builder(str(sh.store.root), "", worktree)       # its overlay, kept for a session where it is served alone
            ours.append(sh)
        except InvalidArgument as e:
            refused.append(e.message)
    if not ours:
        return InvalidArgument(f"no store served here ({names}) can open a session on the worktree "
                               f"{echo(worktree)!r}: {'; '.join(refused)}")
    name, root = ours[0].manifest.repo_name, echo(os.path.abspath(ours[0].store.root))     # as given to the server: maybe relative
    return InvalidArgument(f"{echo(worktree)!r} is a checkout of the repository of {name}, and a worktree session "
                           f"reads one repository's checkout while {len(shards)} stores are served here "
                           f"({names}): open it where the store of {name} is served alone (stratum serve --store "
                           f"{root}; stratum mcp or a query with --store {root} --worktree {echo(worktree)})")


def target(memory: Memory, view: BranchView | None, name: str) -> Target:
    """A target through the session's branch view (if any), else through the shared memory;
    ``path:LINE`` names the innermost definition around that line (``stratum.linerange``). The
    delta logs and the notes policy are read first: a row resolved before them could be a merged
    note that policy now hides (one call served it after quarantine was switched on)."""
    memory.refresh_notes()
    try:
        return node(memory, view, name)
    except NotFound:
        at = L.at_line(name)
        if at is None:
            raise
        return L.enclosing(node(memory, view, at[0], asked=name), at[1], name)


def node(memory: Memory, view: BranchView | None, name: str, asked: str = "") -> Target:
    """``asked``: the target as written (a path:LINE), for a refusal's ``repo:`` spellings (whichstore)."""
    if view is not None:      # each store through the branch's view (``repo:`` too), else the base's
        shards, rest = memory.in_repo(name)
        hit = W.through_view(shards, view, rest, asked or name, memory.hidden)
        if hit is not None:
            return Target(hit[0], hit[1], None)
    return memory.resolve(name, asked)


def gone_pins(memory: Memory, s: Session, every: bool = False) -> list[dict]:
    """Mark the session's pins the version served (through its branch view) lacks; the newly gone (or ``every``)."""
    def present(nid: str) -> bool:
        try:
            return node(memory, s.view, nid) is not None
        except NotFound:
            return False
    return s.controller.mark_gone(present, every=every)


__all__ = ["branch_view", "target", "node", "gone_pins"]
