"""A definition's and a file's doc as the source writes them: a definition's leading comments
(a ``/** doc */`` block may stand one blank line above it) and the attributes that extend its span
(Rust ``#[...]``, a TypeScript class member's decorators),
a Python docstring, a file's first comment block that is not a licence. ``pipeline.parse`` reads
them per definition.
"""

from __future__ import annotations

import inspect
import re

import tree_sitter as ts

from pipeline import languages
from pipeline.sourcetext import clean_comment, end_line, text
from stratum import npyio

_LICENSE = re.compile(r"(?i)\b(copyright|spdx-license|licen[sc]ed?\b|all rights reserved)")
_DOC_BLOCK = re.compile(rb"/\*\*(\s|$)")      # ``/** doc */``, not a ``/*** banner ***/``
# TypeScript's grammar puts a class member's decorators beside it in the class body (``@HostListener('k')``
# then ``onKey() {}``); JavaScript's and Python's hold them inside the definition
_SIBLING_DECORATORS = {"typescript": frozenset({"decorator"}), "tsx": frozenset({"decorator"})}


def leading(spec: languages.LanguageSpec, outer: ts.Node) -> tuple[ts.Node, list[ts.Node]]:
    """Attributes that belong to the definition (they extend its span) and its leading comments."""
    attributes = spec.attribute_types | _SIBLING_DECORATORS.get(spec.name, frozenset())
    start = outer
    sib = outer.prev_named_sibling
    while sib is not None and sib.type in attributes and sib.end_point.row >= start.start_point.row - 1:
        start = sib
        sib = sib.prev_named_sibling
    comments: list[ts.Node] = []
    expect = start.start_point.row
    while sib is not None and (sib.type in spec.comment_types or sib.type in attributes):
        gap = expect - end_line(sib)        # blank lines between it and what follows (rows are 0-based)
        # a doc block (``/** ... */``) may stand one blank line above its definition (express's
        # style), unless it opens the file: that is the file's header (a licence, the module's doc)
        header = sib.prev_sibling is None and sib.parent is not None and sib.parent.parent is None
        if gap > 0 and not (gap == 1 and not comments and not header and _DOC_BLOCK.match(sib.text or b"")):
            break
        prev = sib.prev_sibling
        if prev is not None and end_line(prev) - 1 == sib.start_point.row and prev.type not in spec.comment_types:
            break                            # a trailing comment of the previous statement
        if sib.type in spec.comment_types:
            comments.append(sib)
        expect = sib.start_point.row
        sib = sib.prev_named_sibling
    comments.reverse()
    return start, comments


def _string_literal(lit: str) -> str:
    """The cleaned value of a Python string literal used as a docstring ("" if not a str)."""
    for q in ('"""', "'''", '"', "'"):
        if lit.startswith(q) and lit.endswith(q) and len(lit) >= 2 * len(q) and "\\" not in lit:
            return inspect.cleandoc(lit[len(q):-len(q)])
    try:
        val = npyio.literal_eval(lit)    # beside other threads' ASTs: stratum.npyio
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return ""
    return inspect.cleandoc(val) if isinstance(val, str) else ""


def python_docstring(src: bytes, body: ts.Node | None) -> str:
    if body is None:
        return ""
    for child in body.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1:
            s = child.named_children[0]
            if s.type == "string":
                return _string_literal(text(src, s.start_byte, s.end_byte))
        return ""
    return ""


def file_doc(lang: str, src: bytes, root: ts.Node, spec: languages.LanguageSpec) -> str:
    """Module docstring (Python), else the first leading comment block that is not a licence."""
    if lang == "python":
        return python_docstring(src, root)
    blocks: list[list[ts.Node]] = []
    last_line = -2
    for child in root.children:
        if child.type not in spec.comment_types:
            break
        if child.start_point.row > last_line + 1 or not blocks:
            blocks.append([])
        blocks[-1].append(child)
        last_line = end_line(child) - 1
    for block in blocks:
        cleaned = clean_comment("\n".join(text(src, c.start_byte, c.end_byte) for c in block))
        if cleaned and not _LICENSE.search(cleaned):
            return cleaned
    return ""


__all__ = ["leading", "python_docstring", "file_doc"]
