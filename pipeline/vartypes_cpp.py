"""C++ variables' types as the syntax writes them, for ``pipeline.vartypes`` (its ``TYPES["cpp"]``
records; ``pipeline.calls`` resolves ``x.m()`` / ``x->m()`` through them).

A C++ variable's static type is its declaration's: ``Foo x;``, ``Foo* p = ...``, ``const Foo&
other`` (a parameter of a function with a body, a ``catch``), ``for (Foo* f : files)``; ``auto``
takes it from the value (``new Foo(...)``, ``std::make_unique<Foo>()``, ``Foo(...)``, another
call's callee, whose declared return type ``pipeline.calls`` reads, ``auto& y = x``: what ``x``
holds). A class body's member (``VersionSet* const versions_;``, in a header) is the class's
``self.versions_``, which its methods, out-of-line ones in a .cc too, read by its bare name.
``std::unique_ptr<Foo>``, ``shared_ptr``, ``optional`` hold a ``Foo``; a pointer to a pointer, an
array, a template parameter (``T x``), a builtin or ``auto`` of an unknown value types the name as
unknown (it hides a member of that name). Only syntax is read here.
"""

from __future__ import annotations

import tree_sitter as ts

from pipeline.exprnames import split, text

TYPES = "(declaration) @vartype (field_declaration) @vartype (parameter_declaration) @vartype " \
        "(optional_parameter_declaration) @vartype (for_range_loop) @vartype"
_HOLDERS = frozenset({"unique_ptr", "shared_ptr", "optional"})      # std::unique_ptr<Foo>: a Foo
_MAKERS = frozenset({"make_unique", "make_shared"})                 # std::make_unique<Foo>(): a Foo
_CLASSES = ("class_specifier", "struct_specifier", "union_specifier")
_PROTOTYPES = frozenset({"declaration", "field_declaration"})       # a function declared, no body


def cpp_type(src: bytes, n: ts.Node | None) -> str | None:
    """The class a C++ type names, dotted (``ns::Foo<int>``: ``ns.Foo``; ``std::unique_ptr<Foo>``:
    ``Foo``; ``struct Foo``: ``Foo``), or None (a builtin, ``auto``, a template parameter)."""
    if n is None:
        return None
    t = n.type
    if t == "type_identifier":
        name = text(src, n)
        return None if name in _template_params(src, n) else name
    if t in _CLASSES:
        name_node = n.child_by_field_name("name")
        return cpp_type(src, name_node) if name_node is not None else None
    if t == "template_type":
        name_node = n.child_by_field_name("name")
        if name_node is None:
            return None
        if text(src, name_node) in _HOLDERS:
            return _first_argument(src, n)
        return cpp_type(src, name_node)
    if t == "qualified_identifier":
        scope, name_node = n.child_by_field_name("scope"), n.child_by_field_name("name")
        if name_node is not None and name_node.type == "template_type" and scope is not None \
                and text(src, scope) == "std" and (held := cpp_type(src, name_node)) is not None:
            got = name_node.child_by_field_name("name")
            if got is not None and text(src, got) in _HOLDERS:
                return held         # std::unique_ptr<Foo>: a Foo
        last = cpp_type(src, name_node) if name_node is not None else None
        if last is None:
            return None
        if scope is None:
            return last             # ::Foo
        head = cpp_type(src, scope) if scope.type != "namespace_identifier" else text(src, scope)
        return f"{head}.{last}" if head else None
    return None


def _first_argument(src: bytes, n: ts.Node) -> str | None:
    """The class a template's first argument names (``unique_ptr<Foo>``, ``make_unique<Foo>``)."""
    args = n.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_child_count else None
    if first is None or first.type != "type_descriptor":
        return None
    return _pointed(src, first.child_by_field_name("type"), first.child_by_field_name("declarator"))


def _pointed(src: bytes, ty: ts.Node | None, declarator: ts.Node | None) -> str | None:
    """``Foo`` of ``Foo`` or ``Foo*`` (an abstract declarator); None past one pointer."""
    stars = 0
    while declarator is not None:
        stars += declarator.type == "abstract_pointer_declarator"
        declarator = declarator.named_children[-1] if declarator.named_child_count else None
    return cpp_type(src, ty) if stars <= 1 else None


def _template_params(src: bytes, n: ts.Node) -> set[str]:
    """The template parameters' names in scope at ``n`` (``template <typename T>``)."""
    out: set[str] = set()
    p = n.parent
    while p is not None:
        if p.type == "template_declaration":
            params = p.child_by_field_name("parameters")
            for c in params.named_children if params is not None else ():
                out.update(text(src, k) for k in c.named_children if k.type == "type_identifier")
        p = p.parent
    return out


def _made(src: bytes, value: ts.Node | None) -> str | None:
    """What an ``auto`` variable's value makes: ``new Foo``, ``std::make_unique<Foo>()``, a
    call's callee (``Foo(2)``, ``ns::Make()``, ``db->NewIterator()``), ``=x`` for another
    variable; else None."""
    if value is None:
        return None
    t = value.type
    if t == "new_expression":
        return cpp_type(src, value.child_by_field_name("type"))
    if t == "identifier":
        return "=" + text(src, value)
    if t != "call_expression":
        return None
    fn = value.child_by_field_name("function")
    inner = fn.child_by_field_name("name") if fn is not None and fn.type == "qualified_identifier" else fn
    if inner is not None and inner.type == "template_function":
        name_node = inner.child_by_field_name("name")
        if name_node is not None and text(src, name_node) in _MAKERS:
            return _first_argument(src, inner)
    name, recv = split(src, fn) if fn is not None else ("", "")
    if not name or recv == ".":
        return None
    return f"{recv}.{name}" if recv else name


def _declared(src: bytes, declarator: ts.Node | None) -> tuple[ts.Node | None, int, ts.Node | None]:
    """(the name a declarator declares, its pointer depth, its value) of ``*p = new Foo``, ``&r``,
    ``x(1)``; (None, 0, None) for a function, an array, a structured binding."""
    stars, value = 0, None
    for _ in range(8):
        if declarator is None:
            break
        t = declarator.type
        if t in ("identifier", "field_identifier"):
            return declarator, stars, value
        if t == "init_declarator":
            value = declarator.child_by_field_name("value")
            declarator = declarator.child_by_field_name("declarator")
        elif t == "pointer_declarator":
            stars += 1
            declarator = declarator.child_by_field_name("declarator")
        elif t == "reference_declarator":
            declarator = next((c for c in declarator.named_children if c.type != "type_qualifier"), None)
        else:
            break
    return None, 0, None


def _prototype(param: ts.Node) -> bool:
    """Whether a parameter belongs to a function with no body (a header's declaration, a
    function pointer's type): its types type no code."""
    p = param.parent.parent if param.parent is not None else None      # parameter_list -> function_declarator
    while p is not None and p.type in ("function_declarator", "pointer_declarator", "reference_declarator",
                                       "parenthesized_declarator", "init_declarator"):
        p = p.parent
    return p is not None and p.type in _PROTOTYPES


def cpp_pairs(src: bytes, node: ts.Node) -> list[tuple[str, str | None]]:
    """(variable, its class dotted, ``=x``, or None: unknown) of a C++ ``@vartype`` capture."""
    t = node.type
    if t in ("parameter_declaration", "optional_parameter_declaration") and _prototype(node):
        return []
    declarators = node.children_by_field_name("declarator")
    ty = node.child_by_field_name("type")
    auto = ty is None or ty.type in ("placeholder_type_specifier", "auto", "decltype")
    declared = None if auto else cpp_type(src, ty)
    member = t == "field_declaration" and node.parent is not None and node.parent.parent is not None \
        and node.parent.parent.type in _CLASSES
    out: list[tuple[str, str | None]] = []
    for d in declarators:
        name, stars, value = _declared(src, d)
        if name is None:
            if d.type in ("array_declarator", "structured_binding_declarator"):     # known to be no Foo
                out += [(text(src, c), None) for c in d.named_children if c.type == "identifier"]
            continue
        got = _made(src, value) if auto else declared
        if stars > 1 or (got is not None and got.startswith("=") and stars):
            got = None                      # Foo** p, auto* p = q: no Foo of its own
        var = text(src, name)
        out.append((f"self.{var}" if member else var, got))
    return out


__all__ = ["TYPES", "cpp_type", "cpp_pairs"]
