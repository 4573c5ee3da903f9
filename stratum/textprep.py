"""The text a node is embedded by: what an agent would search for, within the model's input limit.

Code nodes (function, method):  ``path  qualname (split words)`` / signature + docstring (the node's
``api`` level) / the start of the body, with the lines that only repeat the signature or the
docstring dropped, so the model's 256 word pieces go to new information.
Classes and files: the header and their ``api`` level (signature, docstring and their members'
signatures and docstrings: the outline a caller searches by), not the start of the source, which
for a file is mostly imports. Files we do not parse fall back to the start of their text.
Directories and the repo node: their path and listing line.
Tests written as calls (``test_block``: a JS/TS ``describe``/``it``/``test`` block, a test a Rust macro
defines; ``pipeline.testblocks``) get no vector (``pipeline.embed.plan``) and no keyword document
(``searched``).
Notes (rca, failure, insight): the whole note text with its kind, tags and the path it is about;
not the author or time (a re-merge that only changes status must not re-embed it).

Whitespace is collapsed (the model's tokenizer ignores it anyway), so a re-indent does not change
the text hash and does not re-embed; the text is cut at ``max_chars`` (about 6 characters per
word piece, beyond what the model reads), so an edit past what the model sees re-embeds nothing.

This module is pure (no model, no I/O): the pipeline and the serving overlay both use it.
"""

from __future__ import annotations

import hashlib
import re
from typing import Mapping

from stratum.notetext import terminal_safe
from stratum.schema import CODE_KINDS, NOTE_KIND_WORDS, NOTE_KINDS

MAX_TOKENS = 256            # the model's input limit in word pieces (EmbedConfig.max_tokens)
CHARS_PER_TOKEN_CAP = 6     # measured: 2.8 non-space chars per word piece on code (docs/bench/embed.md)
DEFAULT_MAX_CHARS = MAX_TOKENS * CHARS_PER_TOKEN_CAP

# Kinds that get a vector. repo/dir nodes are found by path (keyword search and `tree`); their
# text is a listing, which embeds poorly.
EMBED_KINDS = tuple(k for k in CODE_KINDS if k not in ("repo", "dir")) + NOTE_KINDS
TEST_BLOCKS = frozenset({"suite", "test"})      # the subkinds pipeline.testblocks gives a test written as a call
ACTIVE = "active"


def test_block(node: Mapping) -> bool:
    """A test written as a call (``pipeline.testblocks``: subkind ``suite``/``test``; not a Python
    ``test_`` function, a gtest ``TEST_F`` or a Rust ``#[test]`` fn, which have none). It is a node
    for ``tree``, ``get`` (``path:LINE`` too), ``walk``, notes and traceback frames, but neither
    embedded nor keyword-searched: its title repeats the words of the code it tests ("compile
    template expression prefix identifiers"), so once they were nodes 9 of 15 "where is X" queries
    on vue-core had a test block first, over the function asked for; and a suite's text is its
    whole body (``e2e: Transition``, 26k tokens). Search ranks as before they were nodes (the
    retrieval benchmarks never measured them)."""
    return node.get("kind") == "function" and node.get("subkind") in TEST_BLOCKS


def searched(node: Mapping) -> bool:
    """Whether a node is in the search lists, keyword and vector (``stratum.warm`` and a branch's
    overlay index the same rows): not a withdrawn note (superseded, retracted, orphaned), not the
    repo node, not a test written as a call (``test_block``). A node kept out still has its row,
    so ``get``/``tree``/``walk`` find it."""
    kind = node.get("kind")
    if kind in NOTE_KINDS:
        return (node.get("status") or ACTIVE) == ACTIVE
    return kind != "repo" and not test_block(node)


_WS = re.compile(r"\s+")
_COMMENT_MARK = re.compile(r"^\s*(?:///?|/\*\*?|\*/?|#|--)|\*/\s*$")
_STR_PREFIX = re.compile(r"^(?:r|u|b|f|rb|br)(?=[\"'])", re.I)
_PUNCT = re.compile(r"[\s\"'`:{};]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def embed_text(node: dict, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The text to embed for one node record (``stratum.schema.NODES`` field names)."""
    kind = node.get("kind") or ""
    path = node.get("path") or ""
    if kind in NOTE_KINDS:
        tags = node.get("tags") or []
        head = NOTE_KIND_WORDS.get(kind, kind) + (f" about {path}" if path else "") + \
            (f" (tags: {', '.join(tags)})" if tags else "")
        text = node.get("doc") or node.get("full") or node.get("summary") or ""
        return _cut(_join([head, text]), max_chars)
    if kind in ("repo", "dir"):
        return _cut(_join([path or node.get("name") or "", node.get("summary") or ""]), max_chars)
    qual = node.get("qualname") or ""
    header = _join([path, qual, _split_words(qual)])
    if kind in ("file", "class"):
        api = node.get("api") or ""
        parsed = bool(node.get("language")) and api and api != node.get("summary")
        outline = api if parsed else (node.get("full") or "")
        head_line = f"# {terminal_safe(path)}\n"     # the file outline repeats the path (as the parser spells it)
        if outline.startswith(head_line):
            outline = outline[len(head_line):]
        return _cut(_join([header, outline]), max_chars)
    sig = node.get("signature") or ""
    doc = node.get("doc") or ""
    api = node.get("api") or _join([sig, doc])
    body = _body_after_head(node.get("full") or "", sig + " " + doc)
    return _cut(_join([header, api, body]), max_chars)


def text_hash(model: str, text: str) -> str:
    """Key of the embedding cache: the same text under the same model gives the same vector."""
    h = hashlib.blake2b(digest_size=16)
    h.update(model.encode("utf-8", "surrogatepass"))
    h.update(b"\x1f")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _join(parts: list[str]) -> str:
    """Parts joined by newlines with whitespace collapsed inside each; empty parts dropped."""
    out = []
    for p in parts:
        p = _WS.sub(" ", p).strip()
        if p and p not in out:
            out.append(p)
    return "\n".join(out)


def _cut(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text.rfind(" ", max_chars - 40, max_chars)   # end on a word boundary when one is near
    return text[:cut if cut > 0 else max_chars]


def _split_words(qual: str) -> str:
    """``Flask.add_url_rule`` / ``parseConfigFile`` -> ``flask add url rule`` / ``parse config file``:
    the word-piece tokenizer lower-cases camelCase into one run of pieces; words embed better."""
    words = [w for part in re.split(r"[._:$#/\\-]+", qual) for w in _CAMEL.sub("_", part).split("_") if w]
    spelled = " ".join(w.lower() for w in words)
    return spelled if spelled != qual.lower() else ""


def _core(s: str) -> str:
    """A line's content without comment marks, quotes, ``:{};`` and whitespace, for comparison."""
    return _PUNCT.sub("", _STR_PREFIX.sub("", _COMMENT_MARK.sub("", s).strip()))


def _body_after_head(full: str, head_text: str) -> str:
    """``full`` minus its leading lines that only repeat the signature or the docstring
    (decorators, the def line, docstring lines, blank lines): language-neutral, it compares each
    line with punctuation and comment marks removed against the signature and doc."""
    if not full:
        return ""
    head = _PUNCT.sub("", head_text)
    lines = full.splitlines()
    i = 0
    while i < len(lines):
        core = _core(lines[i])
        if core and core not in head:
            break
        i += 1
    return "\n".join(lines[i:])


__all__ = ["embed_text", "text_hash", "EMBED_KINDS", "TEST_BLOCKS", "test_block", "searched", "MAX_TOKENS",
           "DEFAULT_MAX_CHARS", "CHARS_PER_TOKEN_CAP"]
