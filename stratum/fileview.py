"""Search's file view (``kinds=["file"]``): the memory-steered ranking read as files.

An agent that asks which files to open wants one line a file, ranked the way the whole search ranks
them. Searching the file nodes alone ranked a file by its own summary ("file x.py (python, 1315
lines; 7 classes...)"): werkzeug's fixed file at MRR 0.31 against 0.59 for the same search read as
files, with `py.typed` and `layout.html` on the first page. So a file search ranks everything
(code, notes, mined history, co-change, imports: ``stratum.rank``) and serves each file once, where
its best item stood, as its file node; a file brought in by a symbol says which one in its ``why``.
Notes and mined nodes steer and are not served (their files are what they lifted).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from stratum import tracebacks as TB
from stratum.rankwhy import Ranked

if TYPE_CHECKING:
    from stratum.shard import Shard

FILE_ITEM_KINDS = frozenset({"file", "class", "function", "method"})    # what a file is served for


def is_file_view(kinds: Sequence[str]) -> bool:
    """Whether a search's kinds filter asks for the file view: files and nothing else."""
    return set(kinds) == {"file"}


def as_files(ranked: Sequence[Ranked], shard: "Shard", locate: Callable[[str], "tuple[str, int] | None"],
             hidden: Callable[[int], bool] = lambda row: False) -> list[Ranked]:
    """Each file of ``ranked`` (best first) once, at its best item's place and score, as its file
    node (``locate``: path -> (id, row) in ``shard``; ``hidden``: a row the session does not see).
    Scores stay in the list's order, so lists of several shards still merge by score."""
    kinds, paths, names = shard.col("kind"), shard.col("path"), shard.col("qualname")
    seen: set[str] = set()
    out: list[Ranked] = []
    for r in ranked:
        if r.row < 0 or kinds[r.row] not in FILE_ITEM_KINDS:
            continue                    # an unmerged or mined note, a directory: it steered
        path = paths[r.row]
        if not path or path in seen:
            continue
        seen.add(path)
        if kinds[r.row] == "file":
            out.append(r)
            continue
        at = locate(path)
        if at is None or hidden(at[1]):
            continue
        out.append(Ranked(at[0], at[1], r.score, _via(names[r.row] or "", r), file=r.file, added=r.added))
    return out


def _via(name: str, r: Ranked) -> Callable[[], str]:
    """The why of a file a symbol brought: the symbol first (the agent opens the file at it); a
    traceback frame's why stays first, so the item carries its notes as the frame's would (a probe:
    the file view dropped the note a frame's search showed)."""
    def why() -> str:
        w = r.why
        if not name:
            return w
        return f"{w} (in {name})" if TB.leads(w) else f"{name}: {w}"
    return why


__all__ = ["FILE_ITEM_KINDS", "is_file_view", "as_files"]
