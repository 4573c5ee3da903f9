"""What a node is keyword-searched by, and how text becomes tokens: one tokenizer that understands
code identifiers, shared by the warm BM25 index (stratum.keywordindex), the unmerged notes' index
(stratum.noteindex) and the benchmarks that compare engines on the same tokens.

A compound such as ``src/flask/app.py``, ``Flask.route`` or ``std::vec::Vec`` is kept whole, then
split at separators into identifiers; each identifier is kept whole and split into its snake_case /
camelCase / PascalCase words (``HTTPServerError`` -> ``http``, ``server``, ``error``;
``base64Encode`` -> ``base64``, ``encode``). Everything is lowercased; one-character tokens and a
short list of English stop words are dropped.
"""

from __future__ import annotations

import functools
import re
from typing import Mapping

from stratum import schema as S

MAX_TOKEN = 64           # longer tokens (hashes, base64 blobs) are dropped
BODY_CHARS = 1500        # how much of a code node's source is indexed after its signature and doc

STOP_WORDS = frozenset("""
a an and are as at be but by for from has have if in into is it its of on or that the their then
there these this to was were which will with
""".split())

# A compound: identifiers joined by path / member separators (., /, \, ::, -).
COMPOUND = re.compile(r"[A-Za-z0-9_]+(?:(?:::|[./\\-])[A-Za-z0-9_]+)*")
_SEP = re.compile(r"::|[./\\-]")
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")


@functools.lru_cache(maxsize=1 << 18)
def expand(compound: str) -> tuple[str, ...]:
    """The tokens of one compound, in order (cached: code repeats its identifiers a lot)."""
    out: list[str] = []
    parts = _SEP.split(compound)
    if len(parts) > 1:
        out.append(compound.lower())
    for ident in parts:
        if not ident:
            continue
        low = ident.lower()
        out.append(low)
        words = [w.lower() for chunk in ident.split("_") for w in _WORDS.findall(chunk)]
        if len(words) > 1 or (words and words[0] != low):
            out.extend(words)
    return tuple(t for t in out if 1 < len(t) <= MAX_TOKEN and t not in STOP_WORDS)


def tokenize(text: str) -> list[str]:
    """Lowercased tokens of ``text``: whole compounds, their identifiers, and identifier words."""
    out: list[str] = []
    for m in COMPOUND.findall(text):
        out.extend(expand(m))
    return out


_IDENT_MARK = re.compile(r"[_./:\\0-9]|[a-z][A-Z]")


def looks_like_identifier(word: str) -> bool:
    return _IDENT_MARK.search(word) is not None


# one capitalised word, as a class is named (``Session``, ``Flask``): no mark above, yet code, not
# prose (a probe: `search Session` had requests' class at rank 35, under the function ``session``)
_CLASS_WORD = re.compile(r"[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*")


def is_identifier(query: str) -> bool:
    """A whole query that is one token reading as code (``IntegerConverter``, ``app.run``,
    ``utils.py``, ``Session``), not prose: ``rankplace.exact_first`` puts its exact matches first."""
    q = query.strip()
    return bool(q) and not any(ch.isspace() for ch in q) and (looks_like_identifier(q) or bool(_CLASS_WORD.fullmatch(q)))


# a query written as a definition's head: `def simplify`, `def simplify(expr`, `class Flask`,
# `func (c *Command) Find`, `fn main`, `async def send`
_DECLARED = re.compile(r"(?:async\s+)?(?P<kw>def|class|function|func|fn|struct|interface|trait|enum|type|impl)\s+"
                       r"(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_$][\w$]*)\s*(?P<rest>[(<:\[{].*)?")
_CODE_ONLY = frozenset({"def", "func", "fn"})       # never an English word before a name


def declared_name(query: str) -> str | None:
    """The name a query written as a definition's head defines (``def simplify(expr`` -> ``simplify``,
    ``class Flask`` -> ``Flask``), or None: an agent types what it saw, and a plain word such as
    ``simplify`` reads as prose on its own, so ``def simplify`` lost the function (a scale probe on
    sympy: not on the page; ``class Flask``: not in flask's first three)."""
    m = _DECLARED.fullmatch(query.strip())
    if m is None:
        return None
    name = m.group("name")
    # `class hierarchy`, `type hints`, `enum values` are prose: an English keyword counts when the
    # name reads as code (`class Flask`, `type user_id`) or a bracket follows it (`class Config(dict)`)
    if m.group("kw") in _CODE_ONLY or m.group("rest") or is_identifier(name):
        return name
    return None


# ---- what a node is found by ---------------------------------------------------------------------
def node_text(rec: Mapping) -> str:
    """The text a node is keyword-searched by.

    Code: path, qualified name, signature, docstring, and the first BODY_CHARS of its source
    (functions, methods, classes; a file's source is its children's, so files add only their path
    and docstring; a file no grammar parses, its first BODY_CHARS when they are text). An agent's note: its path, title, text and tags, before a re-index merges it
    (``notedocs.index_text`` calls this) and after: its level texts' header (author, session id,
    dates, node ids, content hashes) put hex pieces in BM25 that a query holding a sha or an id
    matched. Mined notes (fix, change): summary, full text and tags.
    """
    kind = rec.get("kind") or ""
    parts = [rec.get("path") or "", rec.get("qualname") or rec.get("name") or "",
             rec.get("signature") or "", rec.get("doc") or ""]
    if kind in S.AGENT_NOTE_KINDS:
        parts.append(" ".join(rec.get("tags") or ()))
    elif kind in S.NOTE_KINDS:
        parts += [rec.get("summary") or "", rec.get("full") or "", " ".join(rec.get("tags") or ())]
    elif kind in ("function", "method", "class"):
        parts.append((rec.get("full") or "")[:BODY_CHARS])
    elif kind == "file" and not rec.get("language"):
        # a file no grammar parses (a runbook, a shell script, a Makefile): its first words, else
        # `search "restart the orders API"` missed docs/runbook.md (a probe). A binary never gets
        # here: discovery skips a file with a NUL in its first 8,000 bytes (binary_probe_bytes),
        # past the BODY_CHARS read here; one Latin-1 byte in a runbook keeps it searchable
        parts.append((rec.get("full") or "")[:BODY_CHARS])
    return "\n".join(p for p in parts if p)


def node_names(rec: Mapping) -> list[str]:
    """Exact keys a node is found first by: its name and qualified name; a file's or dir's path."""
    names = [rec.get("name") or "", rec.get("qualname") or ""]
    if rec.get("kind") in ("file", "dir"):
        names.append(rec.get("path") or "")
    return sorted({n.lower() for n in names if n})


__all__ = ["tokenize", "expand", "looks_like_identifier", "is_identifier", "declared_name", "COMPOUND", "node_text", "node_names", "STOP_WORDS", "MAX_TOKEN", "BODY_CHARS"]
