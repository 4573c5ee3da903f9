"""Line numbers in requests: ``get``'s line range, and a ``path:LINE`` target (as tracebacks print it).

An agent holding a traceback needs lines 1200-1260 of a 3,094-line file, not its 25,000 tokens.
``get(target, lines="1200-1260")`` serves those lines of the stored source (the indexed version:
the text ``get --level full`` serves, so nothing is read from disk and no path can lead out of the
repository), as an item that says which lines it holds (``start_line``/``end_line``, ``meta.lines``)
and how many the file has (``meta.lines_total``). Line numbers are the file's, also when the target
is a symbol (the range is then clipped to the symbol's lines, and the item says so).

``path:LINE`` (``path:LINE:COL`` too) names the innermost class or function whose own lines hold that
line of the file (a C++ member defined after its class, a Go method: that member, not the file),
or the file itself when no definition holds it (module-level code).

In the session's context a line range is its own entry (``context_key``: ``<node id>#L<a>-<b>``),
so its cost is counted as served and never mistaken for the whole node at full level.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

from stratum import tokens as T
from stratum.envelope import Item
from stratum.errors import BudgetExceeded, InvalidArgument
from stratum.limits import check_len, echo
from stratum.memory import Target
from stratum.notetrust import not_code
from stratum.schema import MINED_NOTE_KINDS, NOTE_KINDS, RANGE_MARK
from stratum.toolspec import MAX_LINES_CHARS      # the tools' bound of every argument is in one table

_RANGE = re.compile(r"(\d{1,9})(?:\s*-\s*(\d{0,9}))?")
_AT_LINE = re.compile(r"(.+?):(-?\d{1,9})(?::\d{1,9})?")     # -3: refused as 0 is (``enclosing``)
_SOURCE_KINDS = ("file", "class", "function", "method")


def parse(lines: str) -> tuple[int, int | None] | None:
    """(start, end or None for "to the end") of a LINES argument; None when it is empty."""
    text = check_len("lines", lines, MAX_LINES_CHARS).strip()
    if not text:
        return None
    m = _RANGE.fullmatch(text)
    if m is None:
        raise InvalidArgument(f"lines must be START-END (file line numbers, 1-based, inclusive, e.g. "
                              f"\"1200-1260\"), START alone or START- (to the end); got {echo(text)!r}")
    start = int(m.group(1))
    end = None if m.group(2) == "" else int(m.group(2) or start)
    if start < 1:
        raise InvalidArgument(f"lines {echo(text)!r}: line numbers start at 1")
    if end is not None and end < start:
        raise InvalidArgument(f"lines {echo(text)!r}: the end comes before the start")
    return start, end


def at_line(target: str) -> tuple[str, int] | None:
    """(path, line) of a ``path:LINE`` or ``path:LINE:COL`` target; None when it is not one."""
    m = _AT_LINE.fullmatch(target.strip()) if isinstance(target, str) else None
    return (m.group(1), int(m.group(2))) if m else None


def enclosing(t: Target, line: int, asked: str) -> Target:
    """The innermost definition of file ``t`` whose own lines hold ``line`` (the file itself if
    none): down the contains edges, a few rows per level. A member defined outside its class's
    lines (C++ ``void K::m() {}`` after ``class K {...};``, a Go method, a Rust ``impl`` beside its
    struct) is the class's child but not within it: when no child holds the line, the classes'
    members are looked at too, down the classes only (a function holds no out-of-line member)."""
    sh, row = t.shard, t.row
    if row is None or sh.col("kind")[row] != "file":
        what = "a note" if row is None else f"a {sh.col('kind')[row]}"
        raise InvalidArgument(f"{echo(asked)!r}: path:LINE needs a file, and this is {what}")
    total = int(sh.col("end_line")[row] or 0)
    if line < 1:                # `x.py:0` was told "x.py has 701 lines" (a probe), as --lines 0-5 is not
        raise InvalidArgument(f"{echo(asked)!r}: line numbers start at 1")
    if line > total:
        raise InvalidArgument(f"{echo(asked)!r}: {sh.col('path')[row]} has {total} lines")
    kind, first, last, path = sh.col("kind"), sh.col("start_line"), sh.col("end_line"), sh.col("path")
    here = path[row]            # a Go type's methods in other files of its package are its children too
    while True:
        level = [n for n, _, _, _ in sh.neighbors(row, ("contains",), "out")
                 if kind[n] in _SOURCE_KINDS and path[n] == here]
        seen = {row}
        while level:
            hit = next((n for n in level if (first[n] or 0) <= line <= (last[n] or 0)), None)
            if hit is not None:
                row = hit
                break
            seen.update(level)
            level = [m for n in level if kind[n] == "class"
                     for m, _, _, _ in sh.neighbors(n, ("contains",), "out")
                     if kind[m] in _SOURCE_KINDS and m not in seen and path[m] == here]
        else:
            return Target(sh, row, None)


def cut(it: Item, span: tuple[int, int | None], lines_total: int) -> Item:
    """The item (a file or symbol at full level) cut to the file lines ``span``, clipped to the
    node's own lines (a warning says so); its tokens are what it now holds, attached notes too."""
    if it.kind in NOTE_KINDS:       # named by its id: "shop/pricing.py is a note" read as if the file were one
        sha = str((it.provenance or {}).get("commit") or "") if it.kind in MINED_NOTE_KINDS else ""
        raise InvalidArgument("lines read source: " + not_code(it.id, it.kind, "give a file or a symbol", sha))
    if it.kind not in _SOURCE_KINDS:
        raise InvalidArgument(f"lines read source: {it.path or it.id} is a {it.kind}; give a file or a symbol")
    first, last = (1, lines_total) if it.kind == "file" else (it.start_line, it.end_line)
    lo, hi = span[0], last if span[1] is None else span[1]
    where = f"{it.path}::{it.qualname}" if it.kind != "file" else it.path
    if lo > last or hi < first:
        raise InvalidArgument(f"lines {lo}-{hi} are outside {where}, which "
                              + (f"has {lines_total} lines" if it.kind == "file" else
                                 f"spans lines {first}-{last} of {lines_total}"))
    a, b = max(lo, first), min(hi, last)
    if a != lo or (b != hi and span[1] is not None):
        it.warnings.append(f"lines {lo}-{hi} asked; {where} spans lines {first}-{last}: served {a}-{b}")
    text = "\n".join(it.text.split("\n")[a - first:b - first + 1])
    if text.endswith("\r"):        # a CRLF file's last line served: its line end is not part of it (a probe)
        text = text[:-1]
    notes = sum(int(n.get("tokens", 0)) for n in it.notes)
    it.text, it.level, it.start_line, it.end_line = text, "full", a, b
    it.tokens = T.count(text) + notes
    it.meta.update(lines=f"{a}-{b}", lines_total=lines_total)
    if it.kind != "file":
        it.meta["node_lines"] = f"{first}-{last}"
    return it


def file_lines(t: Target) -> int:
    """Lines of the file a code row is in (its file row's end line)."""
    sh, row = t.shard, t.row
    if row is None:
        return 0
    frow = row if sh.col("kind")[row] == "file" else sh.resolve(sh.col("path")[row] or "")
    return int(sh.col("end_line")[frow] or 0) if frow is not None else 0


def context_key(it: Item) -> str:
    """The session context entry an item fills: its node, or ``<node id>#L<a>-<b>`` for a range."""
    return f"{it.id}{RANGE_MARK}{it.meta['lines']}" if "lines" in it.meta and it.level == "full" else it.id


def split_key(key: str) -> tuple[str, str]:
    """(node id, "a-b" or "") of a context entry key."""
    node, _, span = key.partition(RANGE_MARK)
    return node, span


@contextmanager
def part_hint(t: Target, whole: bool) -> Iterator[None]:
    """A budget refusal of a whole file or symbol at full level (``whole``) says how to read a part."""
    try:
        yield
    except BudgetExceeded as err:
        n = file_lines(t) if whole else 0
        if not n:
            raise
        raise BudgetExceeded(err.message + f"; or read only the lines you need: lines=\"START-END\" "
                             f"(--lines START-END on the command line; the file has {n} lines)") from None


__all__ = ["parse", "at_line", "enclosing", "cut", "file_lines", "context_key", "split_key", "part_hint",
           "MAX_LINES_CHARS"]
