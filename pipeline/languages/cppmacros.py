"""C++ macros that tree-sitter misreads as names, hidden from it; googletest tests named as gtest does.

``class LEVELDB_EXPORT DB : public Base { ... };`` is a class once the preprocessor has run, but
tree-sitter-cpp (0.23) reads ``class LEVELDB_EXPORT`` as an elaborated type and ``DB`` as what is
declared with it: a ``function_definition`` whose body is the class body read as statements, or a
``declaration`` with an ERROR where the base list was, in shapes that change with what follows
(``final``, a base list, ``MACRO(args)``, a template). The class, its members and its bases are
lost. No one tree shape is worth patching; instead each such macro (an ALL_CAPS identifier,
optionally with a parenthesised argument list, as ``LEVELDB_EXPORT``, ``ABSL_MUST_USE_RESULT``,
``EXPORT_API(x)``) is replaced by spaces and the file parsed again (incrementally: tree-sitter
reads the edited regions again and reuses the rest, so inside a region it cannot parse its error
recovery may differ from a fresh parse's). Byte offsets and lines stay as they were, so every span
and text still comes from the real source (a class's signature still shows its macro).

Annotations after a declarator (clang's thread-safety macros: ``int x_ GUARDED_BY(mu_);``, ``void
f() EXCLUSIVE_LOCKS_REQUIRED(mu_);``, ``~MutexLock() UNLOCK_FUNCTION() {``; ``void f() OVERRIDE;``)
are read as the declared name, ``f()`` becoming an ERROR: the member was named after the macro
(leveldb had 76 such), lost, or cut to its first line. They are blanked the same way.

A macro is only blanked where the tree shows the misreading. Before a class name: the ALL_CAPS
word is the name of a body-less class specifier that is not used validly, as in ``struct POINT
p{1, 2};`` (a variable of type ``struct POINT``) or ``for (struct POINT p : pts)``. An empty brace
pair stays ambiguous (``struct POINT p{};`` reads as an empty exported struct ``p``), as it is
without the macro's definition. After a declarator: the word starts a node right after a
broken one (``_after_errors``) and is read as a declarator's or a call's name, its arguments bare
names (``_misread_annotation``); ``Foo BAR(1);`` and ``return FOO(x);`` parse without error and
stay, ``EXPORT Status NYI();`` (a macro before the type) keeps its ``NYI``. ``__declspec(...)``,
``__attribute__((...))`` and ``[[...]]`` parse natively.

``TEST_F(DBTest, Empty) {`` reads as a function named ``TEST_F`` (each file's ``TEST_F#2``,
``#3``...); ``test_name`` gives it gtest's own name, ``DBTest.Empty``.
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
# an annotation (`GUARDED_BY(mu_)`, `OVERRIDE`), then what may follow a declarator: `;`, a body, an
# initialiser, a constructor's initialiser list, a comma
_ANNOTATION = re.compile(rb"(([A-Z_][A-Z0-9_]*)(?:[ \t]*\((?:[^()]|\([^()]*\))*\))?)(?=\s*(?:[;{=,]|:(?!:)))")
_AFTER_DECLARATOR = re.compile(rb"[\w)\]]\s+\Z")      # a name, `)` or `]`, then space: `f() GUARDED_BY(mu)`
_STATEMENT_LISTS = frozenset({"translation_unit", "field_declaration_list", "declaration_list", "compound_statement"})
_MACRO_TYPE = re.compile(rb"[A-Z][A-Z0-9_]{3,}")     # `EXPORT` before a type, read as the type
_DECLARATORS = frozenset({"function_declarator", "identifier", "field_identifier", "qualified_identifier",
                          "destructor_name"})
_GTEST = frozenset({b"TEST", b"TEST_F", b"TEST_P", b"TYPED_TEST", b"TYPED_TEST_P", b"GTEST_TEST"})
_ROUNDS = 4             # a nested class's macro may only show as a misreading once its outer class reads
                        # right; a chain of annotations shows one at a time, from the last


def unmask(parser: ts.Parser, src: bytes) -> ts.Tree:
    """The tree of ``src`` with class-name and trailing annotation macros blanked (``src`` itself
    is not changed); one parse when the file has neither."""
    tree = parser.parse(src)
    found = list(_CANDIDATE.finditer(src))
    if not found and not tree.root_node.has_error:      # a misread annotation always leaves an error
        return tree
    masked = bytearray(src)
    for _ in range(_ROUNDS):
        root = tree.root_node
        spans = [s for m in found if (s := _misread(root, m))]
        if root.has_error:
            spans += [s for a in _after_errors(root) if (s := _misread_annotation(root, masked, a))]
        if not spans:
            break
        for a, b in spans:          # same length, newlines kept: the edit moves no byte and no line
            masked[a:b] = re.sub(rb"[^\n]", b" ", masked[a:b])
            tree.edit(a, b, b, _point(masked, a), _point(masked, b), _point(masked, b))
        found = [m for m in found if not any(a == m.start(1) for a, _ in spans)]
        tree = parser.parse(bytes(masked), tree)        # incremental: only the edited regions again
    return tree


def _point(src: bytearray, at: int) -> tuple[int, int]:
    """(row, byte column) of a byte offset, as tree-sitter counts them."""
    return src.count(b"\n", 0, at), at - (src.rfind(b"\n", 0, at) + 1)


def _after_errors(root: ts.Node) -> list[int]:
    """Where a node starts right after a broken one: an ERROR, a statement that lacks its last
    token (``;``), a declarator inside an ERROR. Only the subtrees that hold an error are entered,
    so a file's cost is its errors', not its size."""
    out: list[int] = []
    todo = [root]
    while todo:
        n = todo.pop()
        kids = n.children
        for c, nxt in zip(kids, kids[1:]):
            if c.has_error:
                last = c.child(c.child_count - 1) if c.child_count else None
                if c.is_error or (last is not None and last.is_missing):
                    out.append(nxt.start_byte)
            elif n.is_error and c.type in _DECLARATORS:     # `K() LOCK_FUNCTION(mu) {}` in a class
                out.append(nxt.start_byte)
        todo += [c for c in kids if c.has_error]
    return out


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


def _misread_annotation(root: ts.Node, src: bytearray, a: int) -> tuple[int, int] | None:
    """The byte span of the trailing annotation at ``a`` (where a node follows a broken one,
    ``_after_errors``) if the tree misreads it as the declared name, else None. The misreading shows
    as the macro read as a declarator's (or a call's) name right after the real declarator, broken:
    the node that starts at the macro follows an ERROR (``int x_ GUARDED_BY(mu_);``: ``x_`` is an
    ERROR, ``GUARDED_BY`` the declared function), or a statement left without its ``;`` (``void f()
    LOCKS_EXCLUDED(mu);`` at namespace level), or the real declarator inside an ERROR (``K()
    LOCK_FUNCTION(mu) {}`` in a class). An error further back (a macro before the type) is no
    evidence: ``EXPORT Status NYI();`` keeps its name, as do ``Foo BAR(1);`` and ``return FOO(x);``,
    which parse without error."""
    m = _ANNOTATION.match(src, a)
    if m is None or not _AFTER_DECLARATOR.search(src, max(0, a - 80), a) or m.group(2) in _GTEST:
        return None
    b = m.end(1)
    word = root.named_descendant_for_byte_range(a, m.end(2))
    if word is None or word.type not in ("identifier", "field_identifier") or word.parent is None:
        return None
    holder = word.parent
    if not _is(holder.child_by_field_name("declarator"), word) and not (
            holder.type == "call_expression" and _is(holder.child_by_field_name("function"), word)):
        return None
    if holder.type == "function_declarator" and not _names_only(holder.child_by_field_name("parameters")):
        return None                                          # `NYI(const std::string& msg)`: a function's own
    at = holder if holder.start_byte == a else word          # the outermost node that starts at the macro
    while at.parent is not None and at.parent.start_byte == a and at.parent.type not in _STATEMENT_LISTS:
        at = at.parent
    prev = at.prev_sibling
    if prev is None:
        return None
    typ = at.parent.child_by_field_name("type") if at.parent is not None else None
    if typ is not None and _MACRO_TYPE.fullmatch(typ.text or b""):
        return None                 # `EXPORT Status NYI();`: the macro before the type explains the error
    if prev.is_error or (prev.child_count > 0 and prev.children[-1].is_missing):
        return a, b
    up = at.parent
    return (a, b) if up is not None and up.is_error and prev.type in _DECLARATORS else None


def test_name(fn: ts.Node, src: bytes) -> str | None:
    """``Suite.Name`` of a googletest test (``TEST(Suite, Name) {``, ``TEST_F(Fixture, Name) {``,
    ``TEST_P``, ``TYPED_TEST`` ...: tree-sitter reads a function named after the macro whose two
    parameters are types), as gtest itself names the test (``--gtest_filter=Suite.Name``); None for
    any other definition."""
    decl = fn.child_by_field_name("declarator")
    if fn.type != "function_definition" or fn.child_by_field_name("type") is not None or decl is None \
            or decl.type != "function_declarator":
        return None
    name, params = decl.child_by_field_name("declarator"), decl.child_by_field_name("parameters")
    if name is None or params is None or src[name.start_byte:name.end_byte] not in _GTEST:
        return None
    parts = [p.child_by_field_name("type") if p.type == "parameter_declaration" and p.named_child_count == 1 else None
             for p in params.named_children]
    if len(parts) != 2 or any(p is None or p.type != "type_identifier" for p in parts):
        return None
    return ".".join(src[p.start_byte:p.end_byte].decode() for p in parts if p is not None)


def _names_only(params: ts.Node | None) -> bool:
    """Whether a parameter list reads as a macro's arguments (``(mu_)``, ``(a, b)``, ``()``): bare
    names, no parameter of a type with a name (``(int n)``) or of a built-in type (``(int)``)."""
    return params is not None and all(
        c.type == "comment" or (c.type == "parameter_declaration" and c.named_child_count == 1
                                and c.named_children[0].type in ("type_identifier", "qualified_identifier"))
        for c in params.named_children)


def _is(node: ts.Node | None, other: ts.Node) -> bool:
    return node is not None and node.id == other.id


__all__ = ["unmask", "test_name"]
