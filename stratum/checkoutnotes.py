"""Notes written about code the checkout holds uncommitted (or unindexed) edits of.

The normal agent flow is: edit a function, ``remember`` what was found, commit, re-index. A note
hashed against the indexed version of that function then read "stale: changed since this note was
written" after the re-index, though the change came before the note (a steering probe). So
``remember`` in a session on the indexed version (no branch, commit or worktree) asks the
repository's freshness view whether a file the note is about differs in the checkout (uncommitted,
or committed after the indexed commit); if one does, the note is written as a ``--worktree``
session would write it: its targets hashed against the work tree's version, which is what the
agent was looking at, so it is fresh once that version is committed and indexed; until then a
session on the indexed version reads it as about the work tree's version, not indexed yet, rather
than "changed since" (``branchnotes.OnDefault``, ``IndexedHistory.unindexed``). A clean file
costs a probe of the repository and a ``stat`` (``Freshness.uncommitted``), nothing more. A file
``stratum index`` read with its uncommitted edits, which the disk still holds (committed since or
not: the run report's ``dirty_paths``), is the indexed version: a note about it is written as about
any indexed code (it was said to be "against the work tree's version (it differs from the indexed
commit)" and marked uncommitted work on the checkout's branch).

A file the checkout renamed or deleted (committed or not) keeps serving its indexed version until
the next index, so a note may name it there: such a target is tied to the indexed version (a note
about nothing else records the indexed commit, so the next index follows a rename committed since;
one written beside edited files is read at the renamed file's new path when the content is
unchanged). A name neither version has is refused saying what the checkout did to its file; a name
only the checkout has (a file it added) is read through the work tree.

Without a way to read the work tree (no overlay builder: a server without repository access; or
building fails) the note stays tied to the indexed version and the answer says so, naming
``--worktree``.

The version served may be a feature branch's (the checkout has fz out, and the hooks index it): a
note written then records fz (``branchnotes.served_branch``), and its code is fz's. Where the
default branch has that code in another version, the note is written as a ``--branch fz`` session
writes it (``note_scope``): the target marked as the branch's version, with the default branch's
hash of it (``Target.base_hash``), read from the default branch's blob of the target's file (only
the note's files that differ there are read: ``DefaultCode``). Else, once the default branch was
checked out and indexed, the note read "stale: ... changed since this note was written" where the
session's note read "written on branch fz ..., about that version ...: not merged yet" (a probe);
and once fz is merged and indexed both are current.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Protocol, Sequence, runtime_checkable

from stratum import notes as N
from stratum.branchnotes import TREE_KINDS, NoteScope, served_branch
from stratum.branchview import BranchView, OverlayCache, StoreOverlay
from stratum.codelookup import CodeLookup, target_path
from stratum.errors import InvalidArgument, NoteRejected
from stratum.freshness import repo_at
from stratum.limits import echo
from stratum.shard import Shard


def edited_view(memory, sh: Shard, about: list[str], builder: Callable[..., dict] | None,
                loaded: OverlayCache) -> tuple[BranchView | None, list[str]]:
    """(the view to write a note about ``about`` of store ``sh`` through, what to tell the writer).
    (None, []) when no file it names differs in the checkout: the indexed version is the one seen.
    ``loaded``: the overlays the sessions' views hold (the tools', shared). A target in a file the
    checkout renamed or deleted, or one only the checkout has, is refused here when neither version
    has it, saying what the checkout did to the file (NoteRejected)."""
    f, m = memory.freshness, sh.manifest
    if f is None or not m.repo_path:
        return None, []
    paths = sorted({p for t in about if (p := _path_of(sh, t))})
    repo = repo_at(str(sh.store.root), m.repo_path)
    read = (m.report or {}).get("dirty_paths") or ()     # files indexed with uncommitted edits: as the disk has them?
    edited = f.uncommitted(repo, m.indexed_commit, paths, store_root=str(sh.store.root), indexed_dirty=read) if paths else []
    if not edited:
        return None, []
    info = None
    if builder is not None:
        try:
            info = builder(str(sh.store.root), "", repo)
        except (InvalidArgument, OSError):     # no work tree to read: tied to the indexed version
            info = None
    if info is None:
        indexed = [p for p in edited if sh.resolve(p) is not None]      # a new file: validate says it is not indexed
        if not indexed:
            return None, []
        return None, [f"{_names(indexed)} differs in the checkout from the indexed commit {_short(m)}, and "
                      "this server cannot read the work tree: the note is tied to the indexed version, so it will read "
                      "stale once the edit is committed and indexed; write it in a session opened with --worktree PATH "
                      "(open_session(worktree=)) on a machine that has the checkout"]
    o = loaded.get(str(sh.store.root), info, memory.embedder)
    gone = sorted(p for p in edited if p in o.deleted)
    here = [p for p in edited if p not in o.deleted]
    moved = {p: new for p in gone if (new := _renamed_to(sh, o, p))}
    view = _CheckoutView(repo, args=("", "", repo), name=info.get("branch", ""), indexed_only=frozenset(gone),
                         renamed=tuple(sorted(moved.items())) if here else ())
    view.overlays[str(sh.store.root)] = o
    _check_known(sh, o, about, gone, view, m)
    said = [f"written against the work tree's version of {_names(here)} (it differs from the indexed "
            "commit): the note stays fresh once that version is committed and indexed"] if here else []
    for p in gone:
        fate = f"{echo(p)!r} is gone from the checkout ({_fate(sh, o, p)} since the indexed commit {_short(m)})"
        if not here:        # the note records the indexed commit: a re-index follows renames committed after it
            said.append(f"{fate}: the note is about its indexed version, which `get` serves until the next index; "
                        "a committed rename is followed then (the note moves to the new name), a deleted file's "
                        "note is orphaned")
        elif p in moved:
            said.append(f"{fate}: written about its code there, as the work tree has it")
        else:               # the note records the checkout's commit: no rename after it to follow
            said.append(f"{fate}: tied to its indexed version, so the next index finds that code gone even if the "
                        "file was renamed; to have a rename followed, write a separate note about it")
    return (view if here else None), said


class _CheckoutView(BranchView):
    """The work tree's view for one note: targets in files the checkout deleted or renamed
    (``indexed_only``) resolve to the indexed version (the one `get` serves), not to nothing;
    those in a file it renamed unchanged (``renamed``: (indexed path, its path now)) to its code
    there, as the work tree has it, so the next index attaches them by their new ids."""

    def __init__(self, *a, indexed_only: frozenset[str] = frozenset(), renamed: tuple = (), **kw):
        super().__init__(*a, **kw)
        self.indexed_only, self.renamed = indexed_only, renamed

    def note_scope(self, sh: Shard) -> NoteScope | None:
        scope = super().note_scope(sh)
        if scope is None:
            return None
        return _CheckoutScope(scope.branch, scope.commit, scope.code, scope.hidden - self.indexed_only, self.renamed,
                              dirty=scope.dirty, records=scope.records)


@dataclass(frozen=True)
class _CheckoutScope(NoteScope):
    """``NoteScope`` that reads a target in a file renamed unchanged at its new path first."""

    renamed: tuple = ()

    def resolver(self, base_code: CodeLookup) -> Callable[[str], "N.Resolved | None"]:
        inner, moved = super().resolver(base_code), dict(self.renamed)

        def resolve(target: str) -> N.Resolved | None:
            r = base_code.resolve(target) if moved else None
            if r is not None and r.path in moved:
                got = inner(moved[r.path] + (f"::{r.qualname}" if r.qualname else ""))
                if got is not None:
                    return got
            return inner(target)
        return resolve


@runtime_checkable
class DefaultCode(Protocol):
    """What the overlay callback answers beside overlays (``pipeline.defaultcode.OverlayCallback``)."""

    def default_hashes(self, store_root: str, default: str, paths: Sequence[str]) -> dict[str, str]:
        """Node id -> the default branch DEFAULT's content hash of its code in each of PATHS whose file
        it has in another version than the store's indexed commit ({}: none; InvalidArgument: git failed)."""
        ...


def note_scope(memory, sh: Shard, view: BranchView | None, session_view: BranchView | None,
               builder: Callable[..., dict] | None, about: list[str]) -> NoteScope | None:
    """Where ``remember`` writes a note about ABOUT of store ``sh`` from: the session's view
    (SESSION_VIEW: a branch, commit or worktree session), else VIEW (``edited_view``'s, or None: the
    indexed version). On the indexed version of a branch that is not the default one
    (``served_branch``), a target whose code the default branch has in another version is marked as
    the branch's version of that code, with the default branch's hash of it, as a session on the
    branch marks it (``_ServedScope``). Only the targets' own files are asked of git (``DefaultCode``,
    the builder's): one diff, then the default branch's blob of each file that differs (an overlay
    of the default branch read every file the two differ in, 6.6 s a note: a review). No builder
    that can say, or no such branch here: the note is written as before. A session on the branch
    served (``--branch fz`` while fz is served, its view the same or ahead of it) is marked the same
    way: its note read "stale" once the default branch was indexed (a helper's finding). A target the
    view marked as the branch's committed version (its overlay's code: fz committed past its index)
    gets the default branch's hash in place of the served index's (``_served_mark``; a review: it
    read "stale" on the default branch); an uncommitted one gets it from the merge, once its
    branch's index has it (``pipeline.merge._committed``)."""
    scope = view.note_scope(sh) if view is not None else None
    served, default = served_branch(sh.manifest), (sh.manifest.report or {}).get("default_branch")
    if session_view is not None and not _on_served(scope, served):     # its view's own marks
        return scope
    if not served or not isinstance(default, str) or not default or not isinstance(builder, DefaultCode):
        return scope
    inner = scope if scope is not None else NoteScope(served, sh.manifest.indexed_commit or "", None, frozenset())
    resolve = inner.resolver(memory.overlay(sh).code)
    read = [r for a in about if isinstance(a, str) and (r := resolve(a.strip())) is not None
            and (_as_read(r) or _served_mark(r, served))]
    if not read:
        return scope
    try:
        hashes = builder.default_hashes(str(sh.store.root), default, sorted({r.path for r in read}))
    except (InvalidArgument, OSError):
        return scope
    theirs = tuple((r.node_id, h) for r in read if (h := hashes.get(r.node_id)) is not None
                   and h != (r.base_hash if _served_mark(r, served) else r.content_hash))
    if not theirs:
        return scope
    return _ServedScope(inner.branch, inner.commit, inner.code, inner.hidden, dirty=inner.dirty, records=inner.records,
                        inner=inner, served=served, theirs=theirs)


def _on_served(scope: NoteScope | None, served: str) -> bool:
    """Whether a session's SCOPE is on the branch served (SERVED): none, or one on that branch, with
    code of its own or not (fz committed past its index, a worktree of fz with edits). Its view's
    marks take the version served as the default branch's (``NoteScope.resolver``'s ``base_hash``),
    and the code it did not change was read unmarked: both read "stale" on the default branch once
    fz was one commit ahead of its index (a review); ``_ServedScope`` gives them the default
    branch's hash."""
    return scope is None or (bool(served) and scope.branch == served)


def _as_read(r: N.Resolved) -> bool:
    """Whether target R is code as read from the served index (not marked already, no folder)."""
    return not (r.branch or r.branch_commit or r.kind in TREE_KINDS)


def _served_mark(r: N.Resolved, served: str) -> bool:
    """Whether target R is marked as branch SERVED's committed version of code the served index has
    too (the view's overlay changed it: fz committed past its index), its ``base_hash`` the served
    index's hash, not the default branch's: after ``git checkout main`` and the re-index the note
    read "stale" (a review). An uncommitted one keeps the served index's hash: sessions on the
    version served judge the work tree's version by it until the commit is indexed
    (``branchnotes.OnDefault.moved``: the default branch's hash read "stale" there), and that
    re-index gives it the default branch's (``pipeline.merge._committed``)."""
    return bool(served) and r.branch == served and not r.branch_commit and not r.uncommitted \
        and r.base_hash is not None and r.kind not in TREE_KINDS


@dataclass(frozen=True)
class _ServedScope(NoteScope):
    """``NoteScope`` (INNER's) that marks code read from the served branch's index which the default
    branch has in another version (THEIRS: (node id, the default branch's hash of it)) as SERVED's
    version, with that hash (``Target.base_hash``); a target INNER marked as SERVED's version gets
    that hash in place of the served index's (``_served_mark``). Code the default branch lacks is left as read:
    the next index of the default branch marks it pending on the note's branch (``pipeline.merge``),
    as before."""

    inner: NoteScope | None = field(default=None, kw_only=True)
    served: str = field(default="", kw_only=True)
    theirs: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)

    def resolver(self, base_code: CodeLookup) -> Callable[[str], "N.Resolved | None"]:
        inner = self.inner.resolver(base_code) if self.inner is not None else base_code.resolve
        hashes = dict(self.theirs)

        def resolve(target: str) -> N.Resolved | None:
            r = inner(target)
            if r is None or (theirs := hashes.get(r.node_id)) is None:
                return r
            if _served_mark(r, self.served):        # the view's mark: the default branch's hash, not the index's
                return replace(r, base_hash=theirs)
            if not _as_read(r) or theirs == r.content_hash:
                return r
            return replace(r, branch=self.served, base_hash=theirs)
        return resolve


def _check_known(sh: Shard, o: StoreOverlay, about: list[str], gone: list[str], view: BranchView, m) -> None:
    """Refuse the targets neither version has whose file the checkout deleted, renamed or added,
    saying which (the plain "not ... of the indexed code" read as untrue: a probe). Other unknown
    targets are ``notes.validate``'s to name."""
    scope = view.note_scope(sh)
    resolve = scope.resolver(sh.code) if scope is not None else sh.code.resolve
    why: dict[str, str] = {}
    for t in about:
        p = _path_of(sh, t)
        if not p or resolve(t) is not None:
            continue
        if p in gone:
            why[t] = f"{echo(p)!r} was {_fate(sh, o, p)} since the indexed commit {_short(m)}, and its indexed version has no such node"
        elif sh.resolve(p) is None and p in o.changed:
            why[t] = (f"{echo(p)!r} is new in the checkout since the indexed commit {_short(m)} and its work tree's "
                      "version has no such node")
        elif sh.resolve(p) is None:
            why[t] = f"{echo(p)!r} is in neither the index nor the checkout"
    if why:
        unknown = [t for t in about if t in why]
        raise NoteRejected(f"unknown target{'s' if len(unknown) > 1 else ''}: "
                           f"{', '.join(repr(echo(u)) for u in unknown[:5])}: " + "; ".join(
                               dict.fromkeys(why[u] for u in unknown[:5])))


def _renamed_to(sh: Shard, o: StoreOverlay, path: str) -> str:
    """The file the checkout added that holds indexed file PATH's content unchanged (git's exact
    rename test), or ""."""
    base = sh.code.resolve(path)
    if o.shard is not None and base is not None and base.content_hash:
        for p in sorted(o.changed):
            r = o.shard.code.resolve(p)
            if r is not None and r.kind == "file" and r.content_hash == base.content_hash and sh.resolve(p) is None:
                return p
    return ""


def _fate(sh: Shard, o: StoreOverlay, path: str) -> str:
    """What the checkout did to indexed file PATH (a rename with edits reads as a deletion: a
    re-index follows it all the same)."""
    new = _renamed_to(sh, o, path)
    return f"renamed to {echo(new)!r} in the checkout" if new else "deleted in the checkout (or renamed with edits)"


def _path_of(sh: Shard, target: str) -> str:
    """The file a note target lies in: the indexed one, else the path it names (a file the checkout
    may have added; "" for the whole repository or a name that is no path in the repository)."""
    row = sh.resolve(target)
    if row is None:
        row = sh.resolve(target.partition("::")[0])
    if row is not None:
        return sh.col("path")[row] or ""
    path = target_path(target.partition("::")[0].strip())
    if not path or path.startswith("/") or ".." in path.split("/"):
        return ""
    return path


def _names(paths: list[str]) -> str:
    return ", ".join(echo(p) for p in paths)


def _short(m) -> str:
    return (m.indexed_commit or "")[:12]


__all__ = ["DefaultCode", "edited_view", "note_scope"]
