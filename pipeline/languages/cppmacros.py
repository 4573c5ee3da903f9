"""C++ macros that tree-sitter misreads as names, hidden from it; googletest tests named as gtest does.

C files go through it too (``languages.parse_tree``): a C header's ``LEVELDB_EXPORT
leveldb_options_t* leveldb_options_create(void);`` broke tree-sitter-c the same way (leveldb's
``c.h``: syntax errors from its first declaration, 6 of its 68 functions lost).

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

An export macro before a declaration's type (``LEVELDB_EXPORT Status DestroyDB(...);``,
``XYZ_API Cache* NewCache();``, ``API_EXPORT API_PURE hash_t XXH64(...);``) is read as the type, the
real type an ERROR: the file was flagged ``syntax_error`` though every name was found. Such a word
(ALL_CAPS, then a space and a name: not ``MACRO_TYPE(x) y_``) is blanked where it is the type of a
declaration whose head holds an error (``_macro_types``); one macro a round, the next one then
reads as the type. The declaration then starts at its type: its signature is ``Status
DestroyDB(...)``, its text (from the line's start) keeps the macro. So is the ``*`` of ``new T*[n]`` (an array of pointers), which tree-sitter-cpp
0.23 cannot read (``new T [n]`` it can: ``_new_pointer_arrays``).

``TEST_F(DBTest, Empty) {`` reads as a function named ``TEST_F`` (each file's ``TEST_F#2``,
``#3``...); ``test_name`` names it by the class gtest makes of it, in the fixture's scope:
``DBTest.DBTest_Empty_Test``. A macro's statement with no
type (``FRIEND_TEST(DBTest, Empty);``, ``DISALLOW_COPY_AND_ASSIGN(DB);``) reads as a member
function named after the macro; ``macro_statement`` says it is none.

A conditional group where the grammar cannot hold one (``#if`` inside a constructor's initialiser
list, or opening a brace another group closes) swallows its ``#endif``, and the rest of the file
reads inside the class around it; such a group's directives are blanked too, and where its branches
are alternatives of one construct, all branches but the first (``_Conditionals``).
"""

from __future__ import annotations

import bisect
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
_DECLARATIONS = frozenset({"declaration", "field_declaration"})
_STATEMENT_LISTS = frozenset({"translation_unit", "field_declaration_list", "declaration_list", "compound_statement"})
_MACRO_TYPE = re.compile(rb"[A-Z][A-Z0-9_]{3,}")     # `EXPORT` before a type, read as the type
_DECLARATORS = frozenset({"function_declarator", "identifier", "field_identifier", "qualified_identifier",
                          "destructor_name"})
_GTEST = frozenset({b"TEST", b"TEST_F", b"TEST_P", b"TYPED_TEST", b"TYPED_TEST_P", b"GTEST_TEST"})
_ROUNDS = 8             # a nested class's macro may only show as a misreading once its outer class reads
                        # right; a chain of annotations shows one at a time, from the last; nested
                        # conditional groups are done one level a round, innermost first


def unmask(parser: ts.Parser, src: bytes) -> ts.Tree:
    """The tree of ``src`` with class-name and trailing annotation macros, and the conditional
    groups the grammar cannot hold, blanked (``src`` itself is not changed); one parse when the file
    has none."""
    tree = parser.parse(src)
    found = list(_CANDIDATE.finditer(src))
    if not found and not tree.root_node.has_error:      # a misread annotation always leaves an error
        return tree
    masked = bytearray(src)
    groups = _Conditionals(tree.root_node, src)
    lines: list[int] = []               # where each newline is, once a span is blanked
    for _ in range(_ROUNDS):
        root = tree.root_node
        spans = [s for m in found if (s := _misread(root, m))]
        if root.has_error:
            spans += [s for a in _after_errors(root) if (s := _misread_annotation(root, masked, a))]
            spans += _macro_types(root, masked)
            spans += _new_pointer_arrays(root, masked)
            spans += groups.misread(root, masked)
        if not spans:
            break
        lines = lines or [m.start() for m in re.finditer(b"\n", src)]
        for a, b in spans:          # same length, newlines kept: the edit moves no byte and no line
            masked[a:b] = re.sub(rb"[^\n]", b" ", masked[a:b])
            tree.edit(a, b, b, _point(lines, a), _point(lines, b), _point(lines, b))
        found = [m for m in found if not any(a == m.start(1) for a, _ in spans)]
        tree = parser.parse(bytes(masked), tree)        # incremental: only the edited regions again
    return tree


_HEADS = frozenset({"declaration", "field_declaration", "function_definition"})
_EXPORT_WORD = re.compile(rb"[A-Z][A-Z0-9_]+(?=[ \t]+[A-Za-z_])")     # `LEVELDB_EXPORT Status`, not `MACRO(x) y_`
_NEW_POINTERS = re.compile(rb"(\*+)[ \t]*\[")
# `new T` (maybe `ns::T<U>`), then the `*`s when the ERROR starts at the `[` (`new T*[8]`)
_NEW_TYPE = re.compile(rb"\bnew[ \t]+[A-Za-z_][\w:]*(?:<[^;{}()]*>)?[ \t]*(\**)[ \t]*\Z")


def _broken(root: ts.Node) -> list[ts.Node]:
    """The nodes holding an error, outermost first (only those subtrees are entered)."""
    out: list[ts.Node] = []
    todo = [root]
    while todo:
        n = todo.pop()
        out.append(n)
        todo += [c for c in n.children if c.has_error]
    return out


def _macro_types(root: ts.Node, src: bytearray) -> list[tuple[int, int]]:
    """The export macros read as a declaration's type (``LEVELDB_EXPORT Status DestroyDB(...);``):
    an ALL_CAPS word that is the type (or starts it: ``XYZ_API unsigned int``) of a declaration or
    definition whose head (all before its body) holds an error, and a name follows it."""
    out: list[tuple[int, int]] = []
    for n in _broken(root):
        if n.type not in _HEADS:
            continue
        typ = n.child_by_field_name("type")
        if typ is not None and typ.type == "sized_type_specifier" and typ.named_child_count:
            typ = typ.named_children[0]
        if typ is None or typ.type != "type_identifier":
            continue
        body = n.child_by_field_name("body")
        if not any(c.has_error for c in n.children if body is None or c.start_byte < body.start_byte):
            continue
        m = _EXPORT_WORD.match(src, typ.start_byte)
        if m is not None and m.end() == typ.end_byte:
            out.append((typ.start_byte, typ.end_byte))
    return out


def _new_pointer_arrays(root: ts.Node, src: bytearray) -> list[tuple[int, int]]:
    """The ``*`` of each ``new T*[n]`` the grammar broke on: an ERROR starting ``*[`` right after
    ``new T`` (``new T*[space]``), or at the ``[`` right after ``new T*`` (``new T*[8]``, read as a
    product); ``new T [n]`` reads as a new expression."""
    out: list[tuple[int, int]] = []
    for n in _broken(root):
        if not n.is_error:
            continue
        a = n.start_byte
        before = _NEW_TYPE.search(src, max(0, a - 200), a)
        if before is None:
            continue
        if before.group(1) and src[a:a + 1] == b"[":
            out.append(before.span(1))
        elif not before.group(1) and (m := _NEW_POINTERS.match(src, a)) is not None:
            out.append(m.span(1))
    return out


def _point(lines: list[int], at: int) -> tuple[int, int]:
    """(row, byte column) of a byte offset, as tree-sitter counts them (``lines``: where the
    newlines are)."""
    row = bisect.bisect_left(lines, at)
    return row, at - (lines[row - 1] + 1 if row else 0)


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
                    decl = nxt.child_by_field_name("declarator") if nxt.type in _DECLARATIONS else None
                    if decl is not None and decl.type == "function_declarator":
                        out.append(decl.start_byte)     # `MACRO_TYPE(x) y_ GUARDED_BY(mu_);`
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
    if up is not None and up.is_error and prev.type in _DECLARATORS:
        return a, b
    return (a, b) if _after_macro_type(at, prev) else None


def _after_macro_type(at: ts.Node, prev: ts.Node) -> bool:
    """Whether the annotation ``at`` follows a declarator read as a type because a macro took the
    type's place: ``MACRO_TYPE(x) y_ GUARDED_BY(mu_);`` reads as ``MACRO_TYPE (x)`` lacking its
    ``;``, then a declaration of ``GUARDED_BY(mu_)`` typed ``y_``, on the same line."""
    decl = at.parent
    if decl is None or decl.type not in _DECLARATIONS or prev.type != "type_identifier" \
            or not _is(decl.child_by_field_name("type"), prev):
        return False
    before = decl.prev_sibling
    if before is None or before.child_count < 2 or not before.children[-1].is_missing:
        return False
    return before.children[-2].end_point.row == prev.start_point.row


# a conditional directive with its continuation lines; group 1 from its `#`, group 2 its word
_CONDITIONAL = re.compile(rb"^[ \t]*(#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(?:\\\r?\n|[^\n])*)", re.M)
_GROUP_NODES = frozenset({"preproc_if", "preproc_ifdef"})
# a directive's word and its condition when that is a constant (`#if 0`, `#elif 1`)
_CONDITION = re.compile(rb"#[ \t]*(\w+)(?:[ \t]+([01])\b)?.*", re.S)
_LITERALS = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


class _Conditionals:
    """The conditional groups of a file (``#if``/``#ifdef``/``#ifndef`` ... ``#elif``/``#else`` ...
    ``#endif``), blanked where the grammar cannot hold them.

    tree-sitter-cpp reads a conditional group only where whole statements, members or declarations
    stand; one inside an expression or a constructor's initialiser list (``Limiter(int n) : #if
    !defined(NDEBUG) max_(n), #endif count_(n) {``) or one that opens a brace another closes
    (``#ifdef X extern "C" { #endif``) is an error, and its ``#endif`` is swallowed there, so all
    that follows can read inside it: the class's later members are lost and the file's later
    classes nest in the class. A group is read right when a ``preproc_if``/``preproc_ifdef`` node
    starts at its ``#if`` and ends with its own ``#endif``, its branches holding no ERROR of their
    own. For another, innermost first (the group around it may read right once it is done), the
    preprocessor's work is done as lightly as the text allows: its directive lines are blanked, so
    every branch is read, and nothing is lost when each branch holds whole definitions; when a
    branch leaves a bracket open or closes one it did not open, the branches are alternatives of
    one construct (``void f(HANDLE h) {`` / ``#else`` / ``void f(int fd) {``), read one after
    another they would nest, so only one is kept, as one configuration compiles the file: the
    first (``#if 0`` skipped), so the definition's span holds every alternative."""

    def __init__(self, root: ts.Node, src: bytes):
        self.src = src
        self.groups: list[list[tuple[int, int]]] = []      # each (start of its `#`, end of its text) per directive
        self.done: set[int] = set()
        if not root.has_error:
            return
        open_: list[list[tuple[int, int]]] = []
        for m in _CONDITIONAL.finditer(src):
            at = root.descendant_for_byte_range(m.start(1), m.start(1) + 1)
            if at is not None and (at.type == "comment" or "string" in at.type or "char" in at.type):
                continue                 # in a comment or a string: no directive
            word, d = m.group(2), (m.start(1), m.end(1))
            if word.startswith(b"if"):
                open_.append([d])
            elif open_:
                open_[-1].append(d)
                if word == b"endif":
                    self.groups.append(open_.pop())
        self.groups.sort()               # an unclosed group is no group

    def misread(self, root: ts.Node, src: bytearray) -> list[tuple[int, int]]:
        """The byte spans of ``src`` (as blanked so far) to blank now."""
        wrong = [i for i, g in enumerate(self.groups)
                 if i not in self.done and not _read_right(root, g[0][0], g[-1][0])]
        spans: list[tuple[int, int]] = []
        for i, nxt in zip(wrong, wrong[1:] + [None]):
            g = self.groups[i]
            if nxt is not None and self.groups[nxt][0][0] < g[-1][1]:
                continue                 # a group inside it goes first (groups nest)
            self.done.add(i)
            spans += g
            branches = [(b, c) for (_, b), (c, _) in zip(g, g[1:])]
            if len(branches) > 1 and any(_open_brackets(bytes(src[b:c])) for b, c in branches):
                keep = self._kept(g)
                spans += [(b, c) for k, (b, c) in enumerate(branches) if k != keep and b < c]
        return spans

    def _kept(self, g: list[tuple[int, int]]) -> int | None:
        """The branch of a group kept: the first one a build can take (not ``#if 0``), so the
        definition's span starts where its first alternative does and holds them all."""
        heads = [_CONDITION.fullmatch(self.src[a:b]) for a, b in g[:-1]]
        return next((k for k, m in enumerate(heads) if m is None or m.group(2) != b"0"), None)


def _open_brackets(text: bytes) -> bool:
    """Whether C++ text leaves a bracket (``{``, ``(``, ``[``) open or closes one it did not open,
    comments and literals aside."""
    text = _LITERALS.sub(b" ", text)
    return any(text.count(o) != text.count(c) for o, c in ((b"{", b"}"), (b"(", b")"), (b"[", b"]")))


def _read_right(root: ts.Node, first: int, last: int) -> bool:
    """Whether the tree reads the group whose ``#if`` starts at ``first`` and whose ``#endif``
    starts at ``last`` as one node: a ``preproc_if``/``preproc_ifdef`` from the one to the other
    whose branches hold no ERROR of their own (``#ifdef X }  #endif``: a brace the group does not
    open); an error inside a definition there is that definition's."""
    tok = root.descendant_for_byte_range(first, first + 1)
    node = tok.parent if tok is not None and tok.start_byte == first else None
    if node is None or node.type not in _GROUP_NODES or node.start_byte != first or not node.child_count:
        return False
    end = node.child(node.child_count - 1)
    if end is None or end.type != "#endif" or end.is_missing or end.start_byte != last:
        return False
    return not any(c.is_error for b in _branches(node) for c in b.children)


def _branches(node: ts.Node) -> list[ts.Node]:
    """A ``preproc_if`` and its ``#elif``/``#else`` branches (its ``alternative`` chain)."""
    out = [node]
    while (alt := out[-1].child_by_field_name("alternative")) is not None:
        out.append(alt)
    return out


def test_name(fn: ts.Node, src: bytes) -> str | None:
    """``Suite.Suite_Name_Test`` of a googletest test (``TEST(Suite, Name) {``, ``TEST_F(Fixture, Name)
    {``, ``TEST_P``, ``TYPED_TEST`` ...: tree-sitter reads a function named after the macro whose two
    parameters are types). Its last part is the class the macro defines (``Suite_Name_Test``), so a
    name no other definition can have (its namespace holds that class; gtest's own ``Fixture.Name``
    was also the qualified name of the fixture's method ``Name``: leveldb's ``TEST_F(CacheTest,
    Erase)`` became ``CacheTest.Erase#2``) and the name a native stack prints
    (``leveldb::CacheTest_Erase_Test::TestBody()``); it stays in the suite's scope, as that class
    derives from the fixture, so its body's calls of the fixture's members link to them
    (``pipeline.callscopes`` reads scopes from the qualified name). gtest's ``CacheTest.Erase``
    (``--gtest_filter``, ``[  FAILED  ]``) leads to it through ``stratum.testnames``. None for any other
    definition."""
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
    suite, test = (src[p.start_byte:p.end_byte].decode() for p in parts if p is not None)
    return f"{suite}.{suite}_{test}_Test"


def macro_statement(node: ts.Node, name: str) -> bool:
    """Whether a body-less declaration named ``name`` (ALL_CAPS) is a macro's statement, as
    ``FRIEND_TEST(DBTest, Empty);`` or ``DISALLOW_COPY_AND_ASSIGN(DBTest);`` in a class or
    ``DECLARE_bool(verbose);`` at namespace level: tree-sitter reads a declaration with no type,
    which C++ allows only for a class's own constructor (``class RGB { RGB(); };`` stays)."""
    if node.type not in _DECLARATIONS or node.child_by_field_name("type") is not None \
            or not _WORD.fullmatch(name.encode()):       # `~DB();` is the destructor of `DB`
        return False
    up = node.parent
    while up is not None and up.type not in _SPECIFIERS:
        if up.type in ("translation_unit", "namespace_definition", "function_definition"):
            return True
        up = up.parent
    cls = up.child_by_field_name("name") if up is not None else None
    return cls is None or (cls.text or b"").split(b"<")[0].split(b"::")[-1].decode("utf-8", "replace") != name


def _names_only(params: ts.Node | None) -> bool:
    """Whether a parameter list reads as a macro's arguments (``(mu_)``, ``(a, b)``, ``()``): bare
    names, no parameter of a type with a name (``(int n)``) or of a built-in type (``(int)``)."""
    return params is not None and all(
        c.type == "comment" or (c.type == "parameter_declaration" and c.named_child_count == 1
                                and c.named_children[0].type in ("type_identifier", "qualified_identifier"))
        for c in params.named_children)


def _is(node: ts.Node | None, other: ts.Node) -> bool:
    return node is not None and node.id == other.id


__all__ = ["unmask", "test_name", "macro_statement"]
