"""Why a path of the repository is not in the index, for the refusal of a target no store holds
(``Memory.unindexed``: get, walk, pin, prefetch, tree and remember say it).

The reasons: the one the last index gave (its report keeps a few paths a reason), the vendored rule
applied to the path itself (``stratum.vendored``; a file or a folder: the report's samples named
only the first few of a vendored folder's files, and the rest read "new since the indexed commit,
or skipped", a probe), a name that is not UTF-8, else that the file exists but is new or was
skipped (a typo's "no node" read as untrue: a probe); last, where the history says the file went
(renamed or deleted since: ``stratum.movedpaths``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from stratum import movedpaths
from stratum.codelookup import target_path
from stratum.config import VENDORED_RULE
from stratum.limits import echo
from stratum.notetext import LONE_SURROGATE, terminal_safe
from stratum.vendored import folder_of

if TYPE_CHECKING:
    from stratum.shard import Shard


def why(shards: Sequence["Shard"], target: str) -> str:
    """Why the file (or folder) TARGET names is not in the index of these stores; "" when it cannot
    say (it is in the index, or nowhere in the repository). A name that is not UTF-8 is spelled as
    history spells it (``caf\\xe9``; it read ``caf?``)."""
    given = target.partition("::")[0].strip()
    if given.startswith("/") or ".." in given.split("/") or "\\" in given:
        return ""                   # never a look outside the repository (a client could probe the disk)
    path = target_path(given)       # as the resolver reads it: shop/./util.py is shop/util.py
    if not path:
        return ""
    if any(sh.resolve(path) is not None for sh in shards):
        return ""                   # an indexed file: a name it lacks is a plain "no node"
    said = f"'{echo(terminal_safe(path))}'"     # no backslash in the path (above): \xe9 is one byte
    for sh in shards:
        m = sh.manifest
        report = m.report or {}
        keep = (m.settings or {}).get("keep_dirs") or ()
        for reason, paths in (report.get("skipped_samples") or {}).items():
            if path in paths:
                if reason == "vendored":
                    return _vendored(said, folder_of(path, keep, m.repo_path))
                return (f"{said} is not in the index: the index skipped it ({reason.replace('_', ' ')}; "
                        "`stratum index --json` lists what it skips)")
        kind = on_disk(m.repo_path, path)
        if not kind:
            continue
        vendored = folder_of(path, keep, m.repo_path, folder=kind == "dir")
        if vendored is not None:
            return _vendored(said, vendored)
        if kind == "dir":
            continue
        if LONE_SURROGATE.search(path):     # never indexed (Arrow text is UTF-8); history keeps it
            return f"{said} is not in the index: the index skips a name that is not UTF-8 (undecodable path)"
        skipped = report.get("skipped") or {}
        # not vendored (the rule says so of this path): no reason of this file's
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(skipped.items())
                           if k not in ("gitignored", "vendored"))
        return (f"{said} is in the repository but not in the index: new since the indexed commit "
                f"{(m.indexed_commit or '')[:12]}, or skipped by the index"
                + (f" (it skipped: {counts})" if counts else "")
                + "; `stratum index` takes it in if it is new")
    _, sep, symbol = target.partition("::")
    return movedpaths.fate(shards, path + sep + symbol)     # renamed or deleted since: where it went


def _vendored(said: str, folder: str | None) -> str:
    """A vendored file's or folder's line: the rule, the folder that makes it vendored and the way back."""
    rule = VENDORED_RULE if folder is None else VENDORED_RULE.replace(
        "`stratum index --keep-dir FOLDER` indexes it", f"here {folder}/; `stratum index --keep-dir {folder}` indexes it")
    return f"{said} is not in the index: the index skipped it ({rule})"


def on_disk(repo: str | None, path: str) -> str:
    """"file" or "dir" when the checkout at REPO has one at PATH inside it once links are followed (a
    link out: a review), else "": never for an absolute path or one with ``..`` (a client could probe
    the disk). ``why`` and ``pathtails.recorded`` ask it."""
    if not repo or path.startswith("/") or ".." in path.replace("\\", "/").split("/"):
        return ""
    try:
        real = (Path(repo) / path).resolve()
        if not real.is_relative_to(Path(repo).resolve()):
            return ""
        return "file" if real.is_file() else "dir" if real.is_dir() else ""
    except (OSError, ValueError, RuntimeError):      # too long, a NUL, a link loop: no file
        return ""


__all__ = ["why", "on_disk"]
