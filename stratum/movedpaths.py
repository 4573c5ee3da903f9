"""Where a file the index does not hold went, by the history the index mined (``file_changes``):
renamed (to the path it has at the indexed commit, renames chained followed: ``current_path``),
deleted, or gone. A fleet's notes about a file renamed since their agents read it were refused
"unknown target" and get said "no node", as for a typo (a probe: 30 writes lost after
``git mv user_agent.py useragent.py``).

Read only on a miss (``notindexed.why`` asks last, once the file is neither indexed nor on disk):
one filtered scan of ``file_changes`` for the path, kept per store version (``SEEN`` answers).
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import TYPE_CHECKING, Sequence

from stratum.limits import echo
from stratum.notetext import LONE_SURROGATE, terminal_safe

if TYPE_CHECKING:
    from stratum.shard import Shard

SEEN = 512          # (store version, path) answers kept; a full table starts again
_COLUMNS = ["sha", "path", "old_path", "current_path", "change_type", "committed_at"]
_seen: dict[tuple[str, int, str], dict | None] = {}
_lock = threading.Lock()


def fate(shards: Sequence["Shard"], target: str) -> str:
    """Why TARGET (a path, or ``path::Symbol``) is not in the index when its file's history says
    where the file went, with the path (or the same symbol there) to ask for; "" when the history
    has no such file, or holds it at the indexed commit (another reason, or none, is said)."""
    path, sep, sym = target.partition("::")
    if not path or "\\" in path or LONE_SURROGATE.search(path):
        return ""               # history spells such names its own way (``\\xNN``): no node has them
    many = len(shards) > 1
    for sh in shards:
        last = _last_change(sh, path)
        if last is None:
            continue
        said = f"'{echo(terminal_safe(path))}' is not in the index: it was"
        when = f"{last['sha'][:12]} ({_day(last['committed_at'])})"
        now = last["current_path"]
        if last["change_type"] == "R" and last["old_path"] == path:
            moved = f"{said} renamed to '{echo(terminal_safe(last['path']))}' in {when}"
            if now is None:
                return f"{moved}, and later deleted"
            if now != last["path"]:
                moved += f", and is now '{echo(terminal_safe(now))}'"
        elif last["change_type"] == "D":
            return f"{said} deleted in {when}"
        elif now is None:           # gone in a change the history did not read (a merge's)
            return f"{said} last changed in {when}, and is not in the repository at the indexed commit"
        elif now == path:
            continue                # the file is at its path: not a move (notindexed says why it is not indexed)
        else:                       # moved in a change the history did not read
            moved = f"{said} last changed in {when}, and is now '{echo(terminal_safe(now))}'"
        repo = f"{sh.manifest.repo_name}:" * many
        if sep and sh.resolve(f"{now}::{sym}") is not None:      # this store's history: this store's code
            return f"{moved}; did you mean {echo(repo + now + '::' + sym)}?"
        if sh.resolve(now) is not None:
            lacks = f" (no node {echo(sym)!r} there)" if sep else ""
            return f"{moved}; did you mean {echo(repo + now)}{lacks}?"
        return f"{moved} (not in the index either)"
    return ""


def _last_change(sh: "Shard", path: str) -> dict | None:
    """The newest change of ``file_changes`` that touched PATH (as the changed file, or as a rename's
    old name), None when none did or the store mined no history; one read per store version and path."""
    snap = sh.snapshot
    if not snap.has("file_changes"):
        return None
    key = (str(sh.store.root), snap.manifest.version, path)
    with _lock:
        if key in _seen:
            return _seen[key]
    lit = "'" + path.replace("'", "''") + "'"         # SQL's quoting (no backslash here: fate refuses one)
    rows = snap.read("file_changes", columns=_COLUMNS, where=f"path = {lit} OR old_path = {lit}").to_pylist()
    # the newest; in one second (commit times are whole seconds), a move or deletion before an
    # add or edit: a file at PATH after them would be in the index, or on disk, and not asked about
    last = max(rows, key=lambda r: (r["committed_at"], _leaves(r, path), r["sha"]), default=None)
    with _lock:
        if len(_seen) >= SEEN:
            _seen.clear()
        _seen[key] = last
    return last


def _leaves(row: dict, path: str) -> bool:
    """Whether the change ROW took the file away from PATH (renamed from it, or deleted)."""
    return row["change_type"] == "D" or (row["change_type"] == "R" and row["old_path"] == path)


def _day(t: datetime | None) -> str:
    """A commit's day as history tables print it (UTC)."""
    return t.strftime("%Y-%m-%d") if t is not None else "an unknown day"


__all__ = ["fate", "SEEN"]
