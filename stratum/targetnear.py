"""What a ``path::name`` target that names no one node may have meant, said the same by every
reader of a target (``Memory.resolve``: get, walk, pin, prefetch, tree; ``Memory.unindexed``:
remember's refusal, which gave no "did you mean" where get gave one, a probe).

- ``several``: a C++/Rust spelling that names more than one node of its file
  (``CodeLookup.spelled``: ``x.cc::Get`` with a namespace left out), refused listing them;
- ``near``: the "did you mean" names, the named file's nodes first (``version_set.cc::Version::Get``
  was offered ``DBImpl.Get`` of two other files, not the ``leveldb.Version.Get`` the file holds),
  the more of the qualified name as typed a node ends with, the sooner (case as typed before
  case-folded: ``Command.Execute`` before ``Command.execute`` for ``Command.Execute``), and the
  file's nodes a mistyped name is close to (``command.go::Command.Exec``: none were offered).
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Callable, Sequence

from stratum import pathtails as PT
from stratum.codelookup import target_path
from stratum.errors import InvalidArgument
from stratum.limits import echo
from stratum.schema import NOTE_KINDS

if TYPE_CHECKING:
    from stratum.shard import Shard

SHOWN = 3              # names a suggestion or an ambiguity lists
NAMED_ROWS = 5000      # rows of one name ranked for a suggestion (a common name: "Get", "new")


def several(shards: Sequence["Shard"], target: str, asked: str,
            hidden: Callable[["Shard", int], bool]) -> InvalidArgument | None:
    """The refusal of a ``path::name`` its language's spelling reads as several nodes of the file
    (each listed, ``repo:`` first with several stores), None when it names no more than one."""
    if "::" not in target:
        return None
    many = len(shards) > 1
    found = [f"{sh.manifest.repo_name}:" * many + label(sh, r)
             for sh in shards for r in _spelled(sh, target) if not hidden(sh, r)]
    if len(found) < 2:
        return None
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return InvalidArgument(f"{echo(asked)!r} names {len(found)} nodes: {', '.join(echo(f) for f in found[:SHOWN])}"
                           f"{more}; give more of the qualified name")


def _spelled(sh: "Shard", target: str) -> list[int]:
    """``CodeLookup.spelled``, the path read by its tail too (``x/db/db_impl.cc::Get``, as get reads it)."""
    got = sh.code.spelled(target)
    path, _, name = target.partition("::")
    if got or ("/" not in path and "\\" not in path):
        return got
    file = PT.named_file(sh, path)
    return sh.code.spelled(f"{sh.col('path')[file[1]]}::{name}") if file is not None and file[0] is sh else []


def near(shards: Sequence["Shard"], target: str) -> list[str]:
    """Up to ``SHOWN`` ``path::qualname`` of nodes named like the target's last part
    (``get_netrc_auth``, ``utils.py::get_netrc_auth``, ``requests.utils.get_netrc_auth``) or, in the
    file it names, close to its name; ranked as the module docstring says."""
    if target.endswith(".py"):
        return []
    path, sep, _ = target.partition("::")
    typed = [p for p in re.split(r"::|[./\\]", target) if p]
    if not typed:
        return []
    name, want = typed[-1], target_path(path) if sep else ""
    ranked: list[tuple[tuple, str]] = []
    for sh in shards:
        rows: dict[int, float] = {}      # row -> 0 named as typed (any case), else minus its closeness
        kw = sh.warm.searcher.keywords
        if kw is not None:
            rows.update((r, 0) for r in kw.name_rows(name).tolist()[:NAMED_ROWS])
        file = _file(sh, path) if sep and path.strip() else None
        if file is not None:
            rows.update((r, -ratio) for r, ratio in _close(sh, file, target.partition("::")[2]) if r not in rows)
        for r, how in rows.items():
            q, p = sh.col("qualname")[r], sh.col("path")[r]
            if not q or not p or sh.col("kind")[r] in NOTE_KINDS:
                continue
            parts = q.split(".")
            in_file = bool(want) and (p == want or p.endswith("/" + want) or (file is not None and p == file))
            ranked.append(((not in_file, how != 0, -_tail(parts, typed, str), -_tail(parts, typed, str.lower),
                            how, parts[-1] != name, p, q), f"{p}::{q}"))
    return list(dict.fromkeys(s for _, s in sorted(ranked)))[:SHOWN]


def _file(sh: "Shard", path: str) -> str | None:
    """The path of the file ``path`` names in ``sh`` (as written, else by its tail), None if none."""
    r = sh.resolve(path)
    if r is None and ("/" in path or "\\" in path):
        got = PT.named_file(sh, path)
        r = got[1] if got is not None and got[0] is sh else None
    return sh.col("path")[r] if r is not None and sh.col("kind")[r] == "file" else None


def _close(sh: "Shard", path: str, name: str) -> list[tuple[int, float]]:
    """Rows of file ``path`` (each with its closeness: 0-1, +1 if it starts as typed) whose qualified name ends with one the typed NAME (``::`` read as
    ``.``) starts, or is close to (``difflib``, 0.75), part for part: a mistyped or cut-short name
    (``Command.Exec``, ``Version::Gett`` for ``leveldb.Version.Get``)."""
    import numpy as np
    import pyarrow.compute as pc

    typed = [p for p in re.split(r"::|\.", name.strip()) if p]
    if not typed:
        return []
    rows = np.flatnonzero(np.asarray(pc.equal(sh.col("path").array, path).fill_null(False)
                                     .to_numpy(zero_copy_only=False), bool)).tolist()
    out: list[tuple[int, float]] = []
    mine = ".".join(typed)
    for r, q in zip(rows, sh.col("qualname").take(rows)):
        tail = ".".join(q.split(".")[-len(typed):]) if q else ""
        ratio = difflib.SequenceMatcher(None, mine.lower(), tail.lower()).ratio() if tail else 0.0
        if tail.lower().startswith(mine.lower()) or ratio >= 0.75:
            out.append((r, ratio + tail.startswith(mine)))      # cut short in its case: first
    return out


def _tail(parts: list[str], typed: list[str], fold: Callable[[str], str]) -> int:
    """How many last parts a qualified name shares with the typed target, compared after ``fold``."""
    k = 0
    while k < min(len(parts), len(typed)) and fold(parts[-1 - k]) == fold(typed[-1 - k]):
        k += 1
    return k


def label(sh: "Shard", row: int) -> str:
    """``path::qualname`` of a row."""
    return f"{sh.col('path')[row]}::{sh.col('qualname')[row]}"


def said(shards: Sequence["Shard"], target: str, hidden: Callable[["Shard", int], bool]) -> str:
    """What a refusal of an unknown ``path::name`` TARGET adds: its several nodes, else "did you
    mean ...?", else "". A target without ``::`` gets neither: a path's refusal says which path
    (tree's, remember's file), and a file's name is no symbol's (``go.mod`` is no ``mod``)."""
    if "::" not in target:
        return ""
    refused = several(shards, target, target, hidden)
    if refused is not None:
        return refused.message
    names = near(shards, target)
    return f"did you mean {', '.join(names)}?" if names else ""


__all__ = ["near", "said", "several", "label", "SHOWN"]
