"""A compact api for a node whose api text is a wall.

The stored api of a class is its signature and whole docstring, then every member's signature and
whole docstring (``pipeline/parse.py`` ``_api``; a Go type's methods in other files appended by
``pipeline/gopackage.py``): flask's ``Flask`` is 7,321 tokens in one item (its docstring alone ~100
lines), cobra's ``Command`` 7,901 (a struct with 119 methods). An agent that asked for a central
class's api had its context flooded, where every other answer is a small page that says where the
rest is. Over ``API_CAP`` tokens an item at api level (``get``'s default; a prefetch neighbour: both
are built by ``render.code_item``) is instead, built from the index's own nodes and so the same for
every language:

- the node's header: its signature (a file's or folder's first api line: ``# path``, ``path/``);
- the first paragraph of its doc (at most ``DOC_CAP`` tokens of it);
- its members (contains edges, in source order; a Go type's methods in other files after its own
  file's), one line each: the summary line the index stores for them, as many as fit;
- a last line saying how many members are left out and how to read them, and how to read the
  whole text.

The item's ``meta`` says so: ``api_cut`` true, ``members_shown``, ``members_total`` and
``api_tokens`` (what the whole api costs); its tokens are the served text's. A node whose api fits
is served as stored, byte for byte.
"""

from __future__ import annotations

import re

from stratum import schema as S
from stratum import tokens as T
from stratum.notetext import terminal_safe
from stratum.shard import Shard

# 1,500: on flask 6 of its 1,190 files, classes and functions are over it (Flask, App, Scaffold,
# Blueprint, Config and a 1,536-token test file's outline) while its longest ordinary function api
# (helpers.send_file, 1,143 tokens with its docstring) stays whole; about 40 member lines fit, and
# it is under 5% of a default session (32,000 tokens), the size of a search page or two.
API_CAP = 1500
DOC_CAP = API_CAP // 4      # the first paragraph of a doc written as one block stays a paragraph
_MEMBER_KINDS = ("dir", "file", "class", "function", "method")
_SOURCE_KINDS = ("file", "class", "function", "method")     # what --lines reads (``linerange``)
_PARAGRAPH = re.compile(r"\n[ \t]*\n")


def is_cut(kind: str | None, api_tokens: int) -> bool:
    """Whether a node's api is served as its outline (over API_CAP tokens, code): the one rule
    ``compact`` serves by and ``Memory.levels`` plans with."""
    return api_tokens > API_CAP and kind in S.CODE_KINDS


def compact(sh: Shard, row: int, rec: dict) -> tuple[str, dict] | None:
    """The compact api of code row ``row`` of ``sh`` (``rec``: its record) and the meta that says
    so, or None when its stored api fits ``API_CAP`` (served as it is)."""
    whole = int(rec.get("api_tokens") or 0)
    if not is_cut(rec.get("kind"), whole):
        return None
    head = [rec.get("signature") or (rec.get("api") or "").split("\n", 1)[0]]
    para, doc_cut = _first_paragraph(sh.docs([row])[0] or "")
    head += ["    " + line if line.strip() else "" for line in para]
    members = _members(sh, row, rec)
    lines = ["    " + terminal_safe(sh.col("summary")[m] or sh.col("qualname")[m] or sh.col("path")[m])
             for m in members]
    used = T.count("\n".join(head))
    room = API_CAP - used - T.count(_tail(sh, rec, members, 0, doc_cut)) - 8     # the tail, a margin
    shown = 0
    for line in lines:
        used_next = T.count_cached(line) + 1
        if used_next > room:
            break
        room -= used_next
        shown += 1
    while True:         # counted line by line above; the joined text is what the item costs
        text = "\n".join([*head, *lines[:shown], _tail(sh, rec, members, shown, doc_cut)])
        tokens = T.count(text)
        if shown == 0 or tokens <= API_CAP:
            break
        shown -= 1
    return text, {"api_cut": True, "members_shown": shown, "members_total": len(members), "api_tokens": whole,
                  "tokens": tokens}


def _first_paragraph(doc: str) -> tuple[list[str], str]:
    """The lines of a doc's first paragraph, at most DOC_CAP tokens of them, and what of the doc
    they are when some was left out ("" when none was)."""
    doc = doc.strip("\n")
    first = _PARAGRAPH.split(doc, 1)[0].rstrip().split("\n") if doc.strip() else []
    out: list[str] = []
    used = 0
    for line in first:
        used += T.count(line) + 1
        if used > DOC_CAP and out:
            break
        out.append(line)
    if "\n".join(out).strip() == doc.strip():
        return out, ""
    return out, "the first paragraph only" if len(out) == len(first) else f"its first {len(out)} lines only"


def _members(sh: Shard, row: int, rec: dict) -> list[int]:
    """The rows a node contains, in source order: its own file's by line, then other files' (a Go
    type's methods elsewhere in its package) by path and line."""
    kind, path, start = sh.col("kind"), sh.col("path"), sh.col("start_line")
    own = rec.get("path") or ""
    rows = {int(r) for r, _, _, _ in sh.neighbors(row, ("contains",), "out") if kind[r] in _MEMBER_KINDS}
    return sorted(rows, key=lambda r: (path[r] != own if kind[r] not in ("dir", "file") else False,
                                       path[r] or "", start[r] or 0, r))


def _target(sh: Shard, r: int) -> str:
    """How ``get`` names row ``r``: ``path::qualname``, a file or folder by its path."""
    q = sh.col("qualname")[r]
    return terminal_safe(f"{sh.col('path')[r] or '.'}" + (f"::{q}" if q else ""))


def _tail(sh: Shard, rec: dict, members: list[int], shown: int, doc_cut: str) -> str:
    """The last line: what is left out and how to read it."""
    where = terminal_safe((rec.get("path") or ".") + (f"::{rec['qualname']}" if rec.get("qualname") else ""))
    said = []
    if shown < len(members):
        left = len(members) - shown
        said.append(f"{left} more member{'s' if left != 1 else ''} ({shown} of {len(members)} shown): walk {where} "
                    f"--edge contains lists them all; one member: get {_target(sh, members[shown])} --level api")
    elif members:
        said.append(f"all {len(members)} members shown, one line each")
    if doc_cut:
        said.append(f"its doc: {doc_cut}")
    whole = f"the whole text: get {where} --level full"
    if rec.get("kind") in _SOURCE_KINDS and rec.get("start_line"):
        whole += f", or a part of it with --lines {rec['start_line']}-{rec.get('end_line') or rec['start_line']}"
    return "\u2026 api cut to fit " + str(API_CAP) + " tokens: " + "; ".join([*said, whole])


__all__ = ["API_CAP", "DOC_CAP", "compact", "is_cut"]
