"""Kotlin: the semicolons tree-sitter-kotlin 1.1.0 needs before a ``}`` that closes a body on the
line of its last member.

The grammar reads a class body's last member only when a newline or ``;`` ends it: ``class A {
fun f() {} }`` followed by another declaration, ``class A { companion object { fun e() = 1 } }``,
``fun interface X { fun f(): Int }`` after a ``sealed interface`` each turn into one flat ERROR
node, and every definition in it (often the rest of the file) is lost. ``;`` before a ``}`` is
valid Kotlin in every body (class, block, lambda, ``when``, enum entries), so a file the first parse
finds broken is parsed again with the blank right before each such ``}`` (outside strings and
comments) made a ``;``: one byte for one, so no offset, line or column moves and every text is
still read from the file itself. The second tree is taken only when it is less broken.
``{fun f() = 1}`` (no blank to use) stays as the grammar reads it.
"""

from __future__ import annotations

import tree_sitter as ts

_OPAQUE = frozenset({"string_literal", "multiline_string_literal", "line_comment", "block_comment",
                     "character_literal"})


def parse(parser: ts.Parser, src: bytes) -> ts.Tree:
    """The tree of ``src``; a broken one parsed again with the semicolons above when that helps."""
    tree = parser.parse(src)
    if not tree.root_node.has_error:
        return tree
    at = _closers(tree.root_node, src)
    if not at:
        return tree
    mended = bytearray(src)
    for i in at:
        mended[i - 1] = ord(";")
    again = parser.parse(bytes(mended))
    return again if _broken(again.root_node) < _broken(tree.root_node) else tree


def _closers(root: ts.Node, src: bytes) -> list[int]:
    """Where a ``}`` follows a blank and, on its own line, something other than ``{`` or ``;``."""
    skip = _opaque_spans(root)
    out: list[int] = []
    k = 0
    i = src.find(b"}")
    while i >= 0:                  # a ``}`` at byte 0 has no blank before it, yet the scan goes on
        while k < len(skip) and skip[k][1] <= i:
            k += 1
        inside = k < len(skip) and skip[k][0] <= i
        if not inside and i > 0 and src[i - 1] in b" \t":
            j = i - 1
            while j >= 0 and src[j] in b" \t":
                j -= 1
            if j >= 0 and src[j] not in b"\r\n{;":
                out.append(i)
        i = src.find(b"}", i + 1)
    return out


def _opaque_spans(root: ts.Node) -> list[tuple[int, int]]:
    """The byte spans of the file's strings and comments, in order."""
    out: list[tuple[int, int]] = []
    cur = root.walk()
    while True:
        node = cur.node
        if node is not None and node.type in _OPAQUE:
            out.append((node.start_byte, node.end_byte))
        elif cur.goto_first_child():
            continue
        while not cur.goto_next_sibling():
            if not cur.goto_parent():
                return out


def _broken(root: ts.Node) -> int:
    """How broken a tree is: the bytes its ERROR nodes cover, plus one per missing token."""
    total = 0
    todo = [root]
    while todo:
        n = todo.pop()
        if n.is_error:
            total += n.end_byte - n.start_byte
        elif n.is_missing:
            total += 1
        elif n.has_error:
            todo.extend(n.children)
    return total


__all__ = ["parse"]
