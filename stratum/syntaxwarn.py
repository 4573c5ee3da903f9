"""The one warning ``get`` adds for code of a file that did not parse cleanly.

The parse keeps a file's warnings and the line its first syntax error starts at in the file node's
``meta`` (``pipeline.parse``). A probe's `get broken.py` served an outline ending in a cut
``def bad(`` with no word of it. Code nodes' ``meta`` is not kept in RAM (``stratum.shard``), so it
is read from the version (a one-row take, ~1 ms) only when that version's run report counts a
syntax error at all: other answers pay nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from stratum.memory import file_id

if TYPE_CHECKING:
    from stratum.envelope import Item
    from stratum.memory import Target
    from stratum.shard import Shard


def flag(it: "Item", t: "Target") -> "Item":
    """``it`` (``get``'s item for target ``t``) with a warning when its file has syntax errors: always
    for the file, for a symbol when its lines hold the first error."""
    sh, row = t.shard, t.row
    if row is None or it.kind not in ("file", "class", "function", "method"):
        return it
    line = error_line(sh, row)
    if not line:
        return it
    if it.kind == "file":
        it.warnings.append(f"this file has syntax errors from line {line}: its outline may be incomplete")
    elif sh.col("start_line")[row] <= line <= sh.col("end_line")[row]:
        it.warnings.append(f"this file has syntax errors from line {line}, within this {it.kind}: "
                           "its span may be cut short")
    return it


def error_line(sh: "Shard", row: int) -> int:
    """The line the first syntax error of row ROW's file starts at, 0 when it parsed cleanly (or is not
    there). The version's report is asked first: a get pays nothing more when no file had one."""
    if not ((sh.manifest.report or {}).get("warnings") or {}).get("syntax_error"):
        return 0
    fid = file_id(sh, row)
    at = sh.row_of.get(fid)
    if at is None:
        return 0
    rec = sh.snapshot.take("nodes", [int(at)], ["id", "meta"]).to_pylist()[0]
    if rec["id"] != fid or not rec["meta"]:
        return 0
    return int(json.loads(rec["meta"]).get("syntax_error_line") or 0)


__all__ = ["flag", "error_line"]
