"""Where a tool needs code and is named something else, what it says: a note's or mined node's id
(prefetch's focus, remember's about, get's lines: ``not_code``), or a symbol the index does not hold
yet in a file the checkout has changed (``edited_symbol``).

Both were answered by accident before (a probe): prefetch refused an unmerged note's id, took a
merged one's file silently and called a repository-wide one's file "no such file"; remember said "not
a node id" of ids get serves; a symbol the agent had just added read a bare "no node", though
``remember`` took it and a new file's refusal explains itself.
"""

from __future__ import annotations

import re
from typing import Callable

from stratum import schema as S
from stratum.errors import InvalidArgument, NotFound
from stratum.freshness import repo_at
from stratum.limits import echo
from stratum.memory import Memory, Target
from stratum.noteitems import mined_from
from stratum.notetrust import not_code as _said


def not_code(t: Target, use: str) -> str:
    """"" when ``t`` is code, else the refusal of the note or mined node it names
    (``notetrust.not_code``; ``use``: what to give instead)."""
    if t.row is None:
        rec = t.note or {}
    elif t.shard.col("kind")[t.row] in S.NOTE_KINDS:
        rec = t.shard.row(t.row)
    else:
        return ""
    kind = str(rec.get("kind") or "note")
    sha = mined_from(rec.get("meta"))[1] if kind in S.MINED_NOTE_KINDS else ""
    return _said(str(rec.get("id") or t.id), kind, use, sha)


_ID = re.compile(r"n?[0-9a-f]{7,20}")      # a node's or note's id, or a note's short id


def note_named(resolve: Callable[[str], Target], target: str, use: str) -> str:
    """``not_code`` of what TARGET names when it is an id (a note's short id too) that RESOLVE reads
    as a note or mined node; "" for anything else, which the caller reads as it does."""
    if not isinstance(target, str) or not _ID.fullmatch(target.strip()):
        return ""
    try:
        return not_code(resolve(target.strip()), use)
    except (NotFound, InvalidArgument):
        return ""


def edited_symbol(memory: Memory, target: str) -> str:
    """Why ``path::symbol`` is not in the index when its file is (by its path or its tail) and the
    checkout holds that file in another version (uncommitted, or committed since): the symbol may
    be new there. "" otherwise. The freshness view's cached look (a probe of the repository and a
    stat of the file), no git run per miss."""
    f = memory.freshness
    if f is None or "::" not in target:
        return ""
    try:
        shards, rest = memory.in_repo(target)
    except (NotFound, InvalidArgument):
        return ""           # the caller's own refusal stands (no store named so)
    path, _, qual = rest.partition("::")
    for sh in shards:
        r = sh.resolve(path)
        if r is None and ("/" in path or "\\" in path):
            r = memory.by_tail(sh, path)
        m = sh.manifest
        if r is None or sh.col("kind")[r] != "file" or not m.repo_path:
            continue
        p, repo, root = sh.col("path")[r] or "", repo_at(str(sh.store.root), m.repo_path), str(sh.store.root)
        if not f.uncommitted(repo, m.indexed_commit, [p], store_root=root,
                             indexed_dirty=(m.report or {}).get("dirty_paths") or ()):
            continue
        v = f.last(repo, m.indexed_commit)
        how = "has uncommitted changes" if v is not None and p in v.dirty else "changed in a commit"
        return (f"no node {echo(target)!r} in the index: {p} {how} since the indexed commit "
                f"{(m.indexed_commit or '')[:12]}, and {echo(qual.strip())!r} may be new there: "
                "`stratum index` takes it in")
    return ""


__all__ = ["not_code", "note_named", "edited_symbol"]
