"""C++ macros between ``class``/``struct``/``union`` and the class name, hidden from tree-sitter.

``class LEVELDB_EXPORT DB : public Base { ... };`` is a class once the preprocessor has run, but
tree-sitter-cpp (0.23) reads ``class LEVELDB_EXPORT`` as an elaborated type and ``DB`` as what is
declared with it: a ``function_definition`` whose body is the class body read as statements, or a
``declaration`` with an ERROR where the base list was, in shapes that change with what follows
(``final``, a base list, ``MACRO(args)``, a template). The class, its members and its bases are
lost. No one tree shape is worth patching; instead each such macro (an ALL_CAPS identifier,
optionally with a parenthesised argument list, as ``LEVELDB_EXPORT``, ``ABSL_MUST_USE_RESULT``,
``EXPORT_API(x)``) is replaced by spaces and the file parsed again. Byte offsets and lines stay as
they were, so every span and text still comes from the real source (a class's signature still
shows its macro).

A macro is only blanked where the tree shows the misreading: the ALL_CAPS word is the name of a
body-less class specifier that is not used validly, as in ``struct POINT p{1, 2};`` (a variable
of type ``struct POINT``) or ``for (struct POINT p : pts)``. An empty brace pair stays ambiguous
(``struct POINT p{};`` reads as an empty exported struct ``p``), as it is without the macro's
definition. ``__declspec(...)``, ``__attribute__((...))`` and ``[[...]]`` parse natively.
"""

from __future__ import annotations

import re

import tree_sitter as ts

_MACRO = rb"[A-Z_][A-Z0-9_]*(?:\s*\((?:[^()]|\([^()]*\))*\))?"
# keyword, the macros, then the (maybe qualified) class name, then `final`, a base list or a body
_CANDIDATE = re.compile(rb"\b(?:class|struct|union)\s+((?:" + _MACRO + rb"\s+)+)"
                        rb"(?!final\b)(?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*\s*(?:final\s*)?[:{]")
_WORD = re.compile(rb"[A-Z_][A-Z0-9_]*")
_SPECIFIERS = frozenset({"class_specifier", "struct_specifier", "union_specifier", "enum_specifier"})
_ROUNDS = 3             # a nested class's macro may only show as a misreading once its outer class reads right


def unmask(parser: ts.Parser, src: bytes) -> ts.Tree:
    """The tree of ``src`` with class-name macros blanked (``src`` itself is not changed); one
    parse when the file has none."""
    tree = parser.parse(src)
    found = list(_CANDIDATE.finditer(src))
    if not found:
        return tree
    masked = bytearray(src)
    for _ in range(_ROUNDS):
        spans = [s for m in found if (s := _misread(tree.root_node, m))]
        if not spans:
            break
        for a, b in spans:
            masked[a:b] = re.sub(rb"[^\n]", b" ", masked[a:b])
        found = [m for m in found if not any(a == m.start(1) for a, _ in spans)]
        tree = parser.parse(bytes(masked))
    return tree


def _misread(root: ts.Node, m: re.Match[bytes]) -> tuple[int, int] | None:
    """The byte span of the macros of one candidate if the tree misreads it, else None."""
    start = m.start(1)
    first = _WORD.match(m.group(1))
    if first is None:
        return None
    word = root.named_descendant_for_byte_range(start, start + first.end())
    if word is None or word.type != "type_identifier":
        return None                          # in a comment or a string, or already read right
    spec = word.parent
    if spec is None or spec.type not in _SPECIFIERS or spec.child_by_field_name("body") is not None:
        return None
    if _valid_use(spec.parent):
        return None
    return start, m.end(1)


def _valid_use(use: ts.Node | None) -> bool:
    """Whether a body-less ``struct X`` is used as C++ allows: a range-for variable, or a variable
    brace-initialised with values (``struct POINT p{1, 2};``), parsed without error."""
    if use is None or use.has_error:
        return False
    if use.type == "for_range_loop":
        return True
    if use.type not in ("declaration", "field_declaration"):
        return False
    decl = use.child_by_field_name("declarator")
    value = decl.child_by_field_name("value") if decl is not None and decl.type == "init_declarator" else None
    return value is not None and value.type == "initializer_list" and value.named_child_count > 0


__all__ = ["unmask"]
