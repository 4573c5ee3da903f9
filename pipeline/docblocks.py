"""A definition's and a file's doc as the source writes them: a definition's leading comments
(a ``/** doc */`` block may stand one blank line above it) and the attributes that extend its span
(Rust ``#[...]``, a TypeScript class member's decorators, a top-level Kotlin annotation the grammar
reads as an expression), a definition's last line (``tail``), a Python docstring, a file's first
comment block that is not a licence. ``pipeline.parse`` reads them per definition.

A definition ends at its last token. tree-sitter-scala ends a ``def f =`` whose body stands on the
next lines where the next definition starts, so the blank lines and the next definition's Scaladoc
fall inside it (36 of 71 Scaladocs in scopt were lost, and a line of the next def found this one):
the comments at the end of a definition that stand no deeper than its first line are not its own
(``tail``) but lead what follows it. A comment indented as its body stays in it (Python's grammar
keeps such a comment in the block it is indented for, and so does this rule).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

import tree_sitter as ts

from pipeline import languages
from pipeline.sourcetext import clean_comment, end_line, text
from stratum import npyio

_LICENSE = re.compile(r"(?i)\b(copyright|spdx-license|licen[sc]ed?\b|all rights reserved)")
_DOC_BLOCK = re.compile(rb"/\*\*(\s|$)")      # ``/** doc */``, not a ``/*** banner ***/``
# TypeScript's grammar puts a class member's decorators beside it in the class body (``@HostListener('k')``
# then ``onKey() {}``); JavaScript's and Python's hold them inside the definition
_SIBLING_DECORATORS = {"typescript": frozenset({"decorator"}), "tsx": frozenset({"decorator"})}


def tail(spec: languages.LanguageSpec, node: ts.Node) -> tuple[ts.Node, list[ts.Node]]:
    """The node a definition ends with (its last token, or a comment indented deeper than its first
    line) and the comments after it, in source order: those stand no deeper than the definition and
    lead what follows it (a grammar that ends a definition where the next begins holds them)."""
    col = node.start_point.column
    after: list[ts.Node] = []
    end = node
    while end.child_count:
        c: ts.Node | None = end.child(end.child_count - 1)     # from the last child back (no list of a body's statements)
        while c is not None:
            if c.type in spec.comment_types and c.start_point.column <= col:
                after.append(c)
            elif c.end_byte > c.start_byte:      # not a zero-width (missing) token
                break
            c = c.prev_sibling
        if c is None:
            break
        end = c
        if end.type in spec.comment_types:
            break
    after.reverse()
    return end, after


def _attribute(spec: languages.LanguageSpec, attributes: frozenset[str], node: ts.Node) -> bool:
    """Whether a sibling above a definition is its attribute: one of the language's attribute types,
    or a top-level Kotlin ``@OptIn(X::class)`` above ``public fun``, which tree-sitter-kotlin reads
    as an annotated expression (an annotation and the parenthesised arguments)."""
    if node.type in attributes:
        return True
    if spec.name != "kotlin" or node.type != "annotated_expression":
        return False
    kids = node.named_children
    return bool(kids) and kids[0].type == "annotation" and all(
        k.type == "parenthesized_expression" for k in kids[1:2]) and len(kids) <= 2


def _preceding(spec: languages.LanguageSpec, attributes: frozenset[str], node: ts.Node) -> Iterator[ts.Node]:
    """The named siblings above ``node``, nearest first, each other node preceded by the comments
    at its end that are not its own (``tail``): what may lead ``node``."""
    sib = node.prev_named_sibling
    while sib is not None:
        if sib.type not in spec.comment_types and not _attribute(spec, attributes, sib):
            yield from reversed(tail(spec, sib)[1])
        yield sib
        sib = sib.prev_named_sibling


def leading(spec: languages.LanguageSpec, outer: ts.Node) -> tuple[ts.Node, list[ts.Node]]:
    """Attributes that belong to the definition (they extend its span) and its leading comments."""
    attributes = spec.attribute_types | _SIBLING_DECORATORS.get(spec.name, frozenset())
    start = outer
    above = _preceding(spec, attributes, outer)
    sib = next(above, None)
    while sib is not None and _attribute(spec, attributes, sib) and sib.end_point.row >= start.start_point.row - 1:
        start = sib
        sib = next(above, None)
    comments: list[ts.Node] = []
    expect = start.start_point.row
    while sib is not None and (sib.type in spec.comment_types or _attribute(spec, attributes, sib)):
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
        sib = next(above, None)
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


__all__ = ["leading", "tail", "python_docstring", "file_doc"]
