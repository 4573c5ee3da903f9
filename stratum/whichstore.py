"""Which store a target names when a server serves several stores together.

Two repositories both hold ``README.md``, ``setup.py``, ``src/app/__init__.py``. A target written
``repo:path`` names that store's node; a plain target more than one store holds is refused (an
``InvalidArgument``) naming each store's spelling, so the agent asks again: it was the first
store's node, with no sign another existed (a probe). Node and note ids are never ambiguous: they
are made from the repository's name, and two stores of one name are not served together
(``ShardSet``). A short id (an id's first characters, as a why prints one) can be: the start of
ids in two stores (or two in one) is refused naming each (``by_prefix``). One place for the rule:
``Memory.resolve`` (get, walk, pin, prefetch), a branch session's targets (``through_view``) and a
note's ``about`` (``note_store``) all use it.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Callable, Sequence, TypeVar

from stratum.errors import InvalidArgument, NotFound
from stratum.limits import echo

if TYPE_CHECKING:
    from stratum.branchview import BranchView
    from stratum.memory import Target
    from stratum.shard import Shard

T = TypeVar("T")


def in_repo(shards: list["Shard"], target: str, prefix: bool = False) -> tuple[list["Shard"], str]:
    """The shards to look in and the target: ``repo:target`` (an item's ``repo``; one store too) names
    one store's node, e.g. ``werkzeug:CHANGES.rst`` (``werkzeug:`` its repository); else every shard.
    ``prefix`` (a path filter): a name no store has, alone with its ``:``, is refused too.
    A name before the ``:`` that no served store has is refused (``NotFound`` listing the stores
    served) when the target reads as ``repo:path`` (``_names_a_store``) and no store holds it whole
    (a file may be named ``a:b.py``): it was looked up in every store, "no node 'nope:src/app.py'"
    with no word that no store nope is served (a probe)."""
    name, sep, rest = target.partition(":")
    if sep and not rest.startswith(":"):      # path::symbol is no repository
        named = [sh for sh in shards if sh.manifest.repo_name == name]
        if named:       # ``flask:`` alone is that store's repository, as ``flask:.`` (it was "no node 'flask:'")
            return named, rest
        if (rest or prefix) and _names_a_store(name, rest) and not any(sh.resolve(target) is not None for sh in shards):
            served = ", ".join(sh.manifest.repo_name for sh in shards)
            raise NotFound(f"no store named {echo(name)!r} is served here: {echo(target)!r} reads as "
                           f"repo:path, and the stores served are {served}")
    return shards, target


_REPO_NAME = re.compile(r"[^\s/\\:]{2,}")       # no slash, colon or space; two characters or more (C:\ is a drive)
_LINE = re.compile(r"-?\d{1,9}(?::\d{1,9})?")       # path:LINE (and :COL), as ``linerange.at_line`` reads it


def _names_a_store(name: str, rest: str) -> bool:
    """Whether ``name:rest`` reads as a ``repo:path`` whose repository no store has, rather than a
    path that holds a colon: ``README:5`` and ``app.py:5:3`` are a file's line, ``C:\\src\\app.py``
    and ``C:/src`` a drive (one letter), ``/srv/x:y`` and ``src/a:b`` a path (a slash before the colon),
    ``a:/x`` no repo-relative path. Today's rule for a name a store has is kept: that store's."""
    return bool(_REPO_NAME.fullmatch(name)) and not _LINE.fullmatch(rest) and not rest.startswith(("/", "\\"))


def ambiguous(stores: Sequence["Shard"], asked: str) -> InvalidArgument:
    """The refusal of a plain target that several stores hold, with each store's spelling of it
    (``.`` for the repository itself: ``repo:`` alone is no target)."""
    names = [sh.manifest.repo_name for sh in stores]
    said = ", ".join(echo(f"{n}:{asked.strip() or '.'}") for n in names)
    return InvalidArgument(f"{echo(asked)!r} is in {len(names)} of the stores served here ({', '.join(names)}): "
                           f"name one as repo:target, e.g. {said}")


def one(hits: Sequence[tuple["Shard", T]], asked: str) -> T:
    """The one hit's value; several (one per store holding the target): refused (``ambiguous``)."""
    if len(hits) > 1:
        raise ambiguous([sh for sh, _ in hits], asked)
    return hits[0][1]


def by_prefix(hits: Sequence["Target"], prefix: str) -> "Target | None":
    """The one node or note whose id starts with ``prefix`` (a short id, as a why prints one); None
    when none does. Several (in one store or in several) are refused, naming each one's whole id,
    what it is and its store, so the agent asks again with one of them: it was "no node", as if the
    id were wrong (a probe, on two stores served together)."""
    if len(hits) < 2:
        return hits[0] if hits else None
    said = " and ".join(f"{t.id} ({_what(t)}) in {t.shard.manifest.repo_name}" for t in hits[:4])
    more = " and more" if len(hits) > 4 else ""
    raise InvalidArgument(f"{echo(prefix)!r} is ambiguous: it matches {said}{more}; give the whole id")


def _what(t: "Target") -> str:
    """A node's ``path::qualname`` (a note's kind) for a refusal's list."""
    if t.row is None:
        return f"{(t.note or {}).get('kind') or 'note'} note"
    sh, row = t.shard, t.row
    kind, path, qual = sh.col("kind")[row], sh.col("path")[row] or ".", sh.col("qualname")[row]
    return echo(f"{kind} {path}::{qual}" if qual else f"{kind} {path}")


def through_view(shards: list["Shard"], view: "BranchView", target: str, asked: str,
                 hidden: Callable[["Shard", int], bool]) -> tuple["Shard", int] | None:
    """(shard, row) a branch session's code target names, looked up in each store through the
    view (its overlay first), else as a traceback printed it; None when no store has it there. A
    store whose file the branch deleted does not hold it; if none does, that is the answer
    (``BranchView.tree_rows``' NotFound). ``hidden``: quarantined merged notes the caller may not see."""
    from stratum.pathtails import crossing
    from stratum.tracebacks import printed_in_view      # it imports memory, which imports this

    # a hierarchy 0 levels deep is the node in each store that has it on the branch (the one lookup
    # ``tree`` makes); none, and a store whose branch deleted it: that NotFound ("not on 'feature'")
    hits = [(view.base_of(sh, shards), (sh, r)) for sh, r, _ in view.tree_rows(shards, target, 0, None)
            if not hidden(sh, r)]
    if not hits and (cross := crossing(shards, target, asked, view)) is not None:
        raise cross         # a path into a folder the branch has, by another file's tail (``pathtails``)
    if not hits:
        hits = [(sh, got) for sh in shards if (got := printed_in_view([sh], view, target)) is not None]
    path, sep, symbol = target.partition("::")
    if not hits and sep and path.strip():
        hits = _symbol_by_tail(shards, view, path, symbol, hidden)
    if not hits:
        _refuse_tail_off_branch(shards, view, target, asked)
    return one(hits, asked) if hits else None


def _symbol_by_tail(shards: list["Shard"], view: "BranchView", path: str, symbol: str,
                    hidden: Callable[["Shard", int], bool]) -> list[tuple["Shard", tuple["Shard", int]]]:
    """``path::symbol`` whose PATH names a file by its tail (``x/shop/pricing.py::discount``), as the
    branch has that file's SYMBOL: the symbol of the file the branch has at the tail's path, looked
    up through the view. It fell back to ``Memory.resolve``, which read the default branch's code (a
    branch session's get served main's ``discount``, and "no node" for a symbol only the branch has).
    A symbol the branch removed from a file it changed: the view's NotFound ("not on 'feature'")."""
    from stratum.tracebacks import printed_in_view      # it imports memory, which imports this

    hits = []
    for sh in shards:
        got = printed_in_view([sh], view, path)
        if got is not None:
            named = f"{got[0].col('path')[got[1]]}::{symbol}"
            hits += [(sh, (s, r)) for s, r, _ in view.tree_rows([sh], named, 0, None) if not hidden(s, r)]
    return hits


def _refuse_tail_off_branch(shards: list["Shard"], view: "BranchView", target: str, asked: str) -> None:
    """Refuse a path read by its tail (``x/shop/pricing.py``, its ``::symbol`` too) that names no
    one file as the branch has its files: several the branch has (a tie, each named), or none where
    the default branch's files name one (the branch deleted or renamed it: the view's "not on 'fb'",
    as for that exact path). Either fell back to ``Memory.resolve``, which serves the default
    branch's file: a session on a branch that ran ``git rm shop/pricing.py`` got main's ``discount``
    under "answers reflect 'fb'" (a review). Anything else is left to ``Memory.resolve``."""
    from stratum.pathtails import SHOWN, named_file, named_files

    path, sep, symbol = target.partition("::")
    if ("/" not in path and "\\" not in path) or any(sh.resolve(path) is not None for sh in shards):
        return          # no path read by its tail: an exact path is the view's to judge (``tree_rows``)
    several = len(shards) > 1
    tied = [f"{sh.manifest.repo_name}:{p}" if several else p for sh in shards
            for p in _tied_on_branch(named_files(sh, path, view.of(sh)))]
    if tied:
        more = f" and {len(tied) - SHOWN} more" if len(tied) > SHOWN else ""
        raise InvalidArgument(f"{echo(asked)!r} names {len(tied)} files by its tail on {echo(view.rev)!r}: "
                              f"{', '.join(echo(p) for p in tied[:SHOWN])}{more}; give more of the path "
                              "(the repository path names one)")
    for sh in shards:
        base = named_file(sh, path)         # the default branch's reading of the tail, no overlay
        if base is None:
            continue
        named = base[0].col("path")[base[1]]
        for looked in ([f"{named}::{symbol}"] if sep else []) + [named]:
            try:
                view.tree_rows([sh], looked, 0, None)
            except NotFound as e:
                raise NotFound(f"{echo(asked)!r} names {echo(named)!r} by its tail: {e}") from None


def _tied_on_branch(groups: list[list[tuple["Shard", int]]]) -> list[str]:
    """The paths of ``pathtails.named_files``' first group when it ties two files or more, sorted."""
    found = sorted(src.col("path")[r] or "" for src, r in groups[0]) if groups else []
    return found if len(found) > 1 else []


def note_store(shards: list["Shard"], about: list[str], view: "BranchView | None" = None
               ) -> tuple["Shard", list[str]]:
    """The store a note about these targets belongs to, and the targets without their ``repo:``:
    the one a ``repo:`` names, else the one holding the most of them (through a branch session's
    ``view``, code only the branch has too). Stores tied on the same target: refused with each
    one's spelling. A target the chosen store lacks and another holds (a node id, a path only it
    has) puts the note in two stores: refused, naming both (an id beside ``beta:src/app.py`` was
    looked up in beta only: "unknown target", though get found it). No store holding any: the
    first (the note layer then says which are unknown). No targets at all is the whole repository,
    as ``.`` is: refused alike with several stores (it went to the first store without a word, a probe)."""
    named = [in_repo(shards, t) for t in about]
    plain = [t for _, t in named]
    if len(shards) < 2:
        return shards[0], plain
    if not about:
        raise InvalidArgument("a note with no targets is about the whole repository: "
                              + ambiguous(shards, ".").message)
    stores = {id(s[0]): s[0] for s, _ in named if len(s) == 1}
    if len(stores) > 1:
        raise InvalidArgument("a note belongs to one store: its targets name "
                              + " and ".join(sorted(sh.manifest.repo_name for sh in stores.values())))

    def holds(sh: "Shard", t: str) -> bool:
        o = view.of(sh) if view is not None else None
        return sh.resolve(t) is not None or (o is not None and o.shard is not None and o.shard.resolve(t) is not None)

    if stores:
        chosen = next(iter(stores.values()))
        for (looked, t) in named:       # a plain target the named store lacks: another store's?
            if len(looked) > 1 and not holds(chosen, t):
                elsewhere = [sh for sh in shards if sh is not chosen and holds(sh, t)]
                if elsewhere:
                    raise InvalidArgument("a note belongs to one store: its targets are in "
                                          + " and ".join(sh.manifest.repo_name for sh in shards
                                                         if sh is chosen or sh is elsewhere[0]))
        return chosen, plain

    held = {id(sh): [t for t in plain if holds(sh, t)] for sh in shards}
    most = max(len(h) for h in held.values())
    best = [sh for sh in shards if most and len(held[id(sh)]) == most]
    if not best:
        return shards[0], plain
    for t in plain if len(best) > 1 else ():
        tied = [sh for sh in best if t in held[id(sh)]]
        if len(tied) > 1:
            raise ambiguous(tied, t)
    if len(best) > 1:       # as many targets each, none shared: two stores' code in one note
        raise InvalidArgument("a note belongs to one store: its targets are in "
                              + " and ".join(sh.manifest.repo_name for sh in best))
    return best[0], plain


def superseded_id(memory, given: str) -> str:
    """The note a superseded id names: a short id, as a why prints it ("insight note n5126351"), read
    as retract and confirm read it (``Memory.note_holder``; remember took only a whole id: a docs
    probe); an id no note has is left to the note rules ("no such note")."""
    from stratum.errors import NotFound
    from stratum.notetrust import SHORT_ID

    if not SHORT_ID.fullmatch(given) or memory.note_store(given) is not None:
        return given
    memory.refresh_notes()
    try:
        return memory.note_holder(given, "supersede")[1]
    except NotFound:
        return given


def once_each(stores: Sequence[str]) -> list[str]:
    """The stores given, each once, in the order given, by the folder each path names (its first
    spelling kept): `--store A --store A/` (or ./A, or a symlink to A) is one store. Two were opened,
    and every node's id collided with itself ("the stores A and A/ both hold a repository named
    'A'"): each command refused the same store given twice (a probe). The CLI and ``ShardSet`` read it."""
    seen: dict[str, str] = {}
    for store in stores:
        seen.setdefault(os.path.realpath(store), store)
    return list(seen.values())


__all__ = ["in_repo", "ambiguous", "one", "by_prefix", "through_view", "note_store", "superseded_id", "once_each"]
