"""Call sites and base classes as written, per definition: the raw input of ``calls`` and
``inherits`` edges (``pipeline.calls`` resolves them to nodes once every file is known).

A call is recorded as (name, receiver, line): ``h()`` -> ("h", ""), ``self.g()`` / ``this.g()`` ->
("g", "self"), ``mod.k()`` / ``Mod::k()`` / ``ns::k()`` -> ("k", "mod"), ``a.b.c()`` -> ("c", "a.b"),
``super().m()`` -> ("m", "super"), anything else before the name (a call's result, an index) ->
("m", "."); ``new Foo()`` and
``Foo()`` are calls of ``Foo``. A base class (``class A(B, m.C)``, ``extends``, ``implements``,
C++ base clauses, a Go struct's embedded type, a Rust ``impl Trait for Type``) is (name, receiver)
the same way. A call belongs to the innermost emitted
definition around it (a closure's calls are its function's, as its text is); calls outside every
definition are the file's. Go: a method's receiver variable is ``self``.

A variable's type, where the syntax says it, is recorded too (``types``: [variable, name,
receiver, line]): Python ``x = Foo(...)`` (any call: the nearest assignment above a call
decides, and one whose callee is no class types nothing) and annotated parameters (``a: Foo``,
``Optional[Foo]``, ``Foo | None``, ``"Foo"``) and variables (``x: Foo = ...``), ``self.x =
Foo()`` as variable ``self.x`` (``self.x = app`` as ``=app``: what ``app`` holds there), a class
body's ``x: Foo`` as the class's ``x``;
JS/TS ``const x = new Foo()`` and TS parameters ``a: Foo``; Java locals and parameters
(``Foo x``); Go parameters, ``var x Foo``, ``x := &Foo{}`` and ``x, err := f()``; Rust
parameters, ``let x: Foo``, ``Foo { .. }`` and ``Foo::new()``. ``pipeline.calls`` resolves
``x.m()`` through them, and a definition's declared return type (``returns``: [name, receiver];
Python, TS, Go's first result, Rust, Java), so ``c = app.test_client()`` types ``c`` as what
``test_client`` says it returns.

Only syntax is read here (query patterns per language, run with the tags query); nothing is resolved.
"""

from __future__ import annotations

import bisect
import json

import tree_sitter as ts

from pipeline import languages


MAX_CALLS = 256          # distinct (name, receiver) pairs kept per definition: a generated table's
                         # thousands of calls add nothing a walk could page through usefully
MAX_BASES = 16
MAX_RECV = 80            # a longer receiver text is "." (not a name an import could bind)
MAX_TYPES = 64           # typed variables kept per definition

_JS_CALLS = "(call_expression function: (_) @call) (new_expression constructor: (_) @call)"
_CALLS = {
    "python": "(call function: (_) @call)",
    "javascript": _JS_CALLS, "typescript": _JS_CALLS, "tsx": _JS_CALLS,
    "go": "(call_expression function: (_) @call)",
    "java": "(method_invocation) @call (object_creation_expression type: (_) @call)",
    "rust": "(call_expression function: (_) @call)",
    "c": "(call_expression function: (_) @call)",
    "cpp": "(call_expression function: (_) @call) (new_expression type: (_) @call)",
}
_TS_BASES = "(extends_clause value: (_) @base) (implements_clause (_) @base) " \
            "(extends_type_clause type: (_) @base)"
_BASES = {
    "python": "(class_definition superclasses: (argument_list (_) @base))",
    "javascript": "(class_heritage (_) @base)",
    "typescript": _TS_BASES, "tsx": _TS_BASES,
    "java": "(superclass (_) @base) (super_interfaces (type_list (_) @base)) "
            "(extends_interfaces (type_list (_) @base))",
    "cpp": "(base_class_clause (_) @base)",
    "go": "(field_declaration_list (field_declaration !name type: (_) @base))",    # an embedded type
    "rust": "(impl_item trait: (_) @base)",                                        # impl Trait for Type
}

_JS_THIS = "(assignment_expression left: (member_expression object: (this)) right: [(new_expression) (identifier)]) @vartype "
_TS_TYPES = "(variable_declarator value: (new_expression)) @vartype (required_parameter type: (_)) @vartype " \
            "(optional_parameter type: (_)) @vartype (public_field_definition type: (_)) @vartype " \
            "(public_field_definition value: (new_expression)) @vartype " + _JS_THIS
_TYPES = {
    "python": "(assignment left: [(identifier) (attribute)] right: (call)) @vartype "
              "(assignment left: (attribute) right: (identifier)) @vartype "
              "(assignment left: [(identifier) (attribute)] type: (_)) @vartype "
              "(typed_parameter) @vartype (typed_default_parameter) @vartype",
    "javascript": "(variable_declarator value: (new_expression)) @vartype "
                  "(field_definition value: (new_expression)) @vartype " + _JS_THIS,
    "typescript": _TS_TYPES, "tsx": _TS_TYPES,
    "java": "(local_variable_declaration) @vartype (formal_parameter) @vartype",
    "go": "(parameter_declaration type: (_)) @vartype (var_spec type: (_)) @vartype "
          "(short_var_declaration right: (expression_list . [(composite_literal) (unary_expression) (call_expression)])) @vartype",
    "rust": "(parameter pattern: (identifier) type: (_)) @vartype (let_declaration pattern: (identifier)) @vartype",
}
_RETURNS = {"python": "return_type", "typescript": "return_type", "tsx": "return_type", "rust": "return_type",
            "go": "result", "java": "type"}     # the field of a definition's node holding its return type
_WRAPPER_TYPES = frozenset({"Optional", "Final", "Annotated", "ClassVar",        # Optional[Foo] is a Foo
                            "Option", "Result", "Box", "Rc", "Arc", "Promise"})     # so are Box<Foo>, Promise<Foo>
_PLAIN_TYPES = frozenset({"int", "str", "float", "bool", "bytes", "dict", "list", "set", "tuple", "object",
                          "Any", "string", "number", "boolean", "any", "unknown", "String", "Object", "Integer",
                          "Long", "Boolean"})        # no class of the repository: not kept

# the callee's name and what stands before it, by node type: (receiver field, name field); Java's
# a.b.C (scoped_type_identifier) is read apart
_PAIRS: dict[str, tuple[str, str]] = {
    "attribute": ("object", "attribute"),              # python a.b
    "member_expression": ("object", "property"),       # js/ts a.b
    "selector_expression": ("operand", "field"),       # go a.b
    "scoped_identifier": ("path", "name"),             # rust a::b
    "qualified_identifier": ("scope", "name"),         # c++ a::b
    "method_invocation": ("object", "name"),           # java a.b()
    "nested_type_identifier": ("module", "name"),      # ts a.B in a type
    "qualified_type": ("package", "name"),             # go pkg.T in a type
}
_FIELD = {"field_expression": ("value", "argument")}   # rust/c a.b, a->b: the receiver field differs
_WRAPPED = {"generic_function": "function", "template_function": "name", "generic_type": None,
            "template_type": "name", "parenthesized_expression": None, "type_arguments": None,
            "instantiation_expression": "function"}
_NAMES = frozenset({"identifier", "property_identifier", "field_identifier", "type_identifier",
                    "namespace_identifier", "package_identifier", "shorthand_property_identifier",
                    "constant", "primitive_type"})
_SELF = frozenset({"self", "this", "cls", "Self"})
_RECV_PARTS = frozenset({"identifier", "this", "self", "super", "type_identifier", "namespace_identifier",
                         "package_identifier", "field_identifier", "property_identifier", "crate"})


def query_with_refs(lang: str) -> ts.Query:
    """The language's tags query and ``patterns``: definitions, imports, calls and bases in one pass."""
    got = _QUERIES.get(lang)
    if got is None:
        got = _QUERIES[lang] = ts.Query(languages.language(lang), languages.query_source(lang) + "\n" + patterns(lang))
    return got


_QUERIES: dict[str, ts.Query] = {}      # per process (not picklable: a Ray worker builds its own)


def attach(lang: str, src: bytes, defs: list, emitted: list,
           refs: tuple[list[ts.Node], list[ts.Node], list[ts.Node]], nodes: list[dict]) -> None:
    """Each definition's calls and bases (``collect`` of the nodes ``query_with_refs`` captured,
    ``refs``) into its node's ``meta``, and ``"decl": 1`` for a body-less declaration (a C
    prototype: ``pipeline.calls`` links a call through a header to the definition instead);
    ``nodes``: the file's node, then one per ``emitted`` def (``pipeline.parse``'s) in order; the
    file's own calls (outside every definition) into the file node's. A Rust ``impl Trait for S``
    merged into ``S``'s node (``defs``: every captured def, aliases included) gives its trait to ``S``."""
    receivers = {i: r for i, d in enumerate(emitted) if (r := go_receiver(src, d.node))} if lang == "go" else None
    classes = {d.node.id: i for i, d in enumerate(emitted) if d.kind == "class"}
    at = {id(d): i for i, d in enumerate(emitted)}
    for d in defs:
        real = d
        while real.alias is not None:
            real = real.alias
        if real is not d and id(real) in at:
            classes[d.node.id] = at[id(real)]
    spans = [(d.outer.start_byte, d.outer.end_byte) for d in emitted]
    calls, bases = collect(src, spans, refs[0], refs[1], receivers, classes)
    types = collect_types(src, spans, refs[2])
    for i, (d, node) in enumerate(zip(emitted, nodes[1:])):
        meta: dict = {}
        if calls[i]:
            meta["calls"] = calls[i]
        if bases[i]:
            meta["bases"] = bases[i]
        if types[i]:
            meta["types"] = types[i]
        ret = returns(lang, src, d.node) if d.kind != "class" else None
        if ret:
            meta["returns"] = ret
        if d.decl:
            meta["decl"] = 1
        if meta:
            node["meta"] = json.dumps(meta, ensure_ascii=False, separators=(",", ":"))
    top = {k: v for k, v in (("calls", calls[-1]), ("types", types[-1])) if v}
    if top:
        nodes[0]["meta"] = json.dumps(top, ensure_ascii=False, separators=(",", ":"))


DECL = '"decl":1'           # how a declaration's ``meta`` says so (a substring test: no JSON parse)


def patterns(lang: str) -> str:
    """The query patterns (captures ``@call``, ``@base``, ``@vartype``) that ``pipeline.parse``
    appends to the language's tags query: one pass over the tree for all (a query of its own cost
    as much as the tags query again, ~+25% of the parse)."""
    return "\n".join(p for p in (_CALLS.get(lang), _BASES.get(lang), _TYPES.get(lang)) if p)


def _text(src: bytes, n: ts.Node) -> str:
    return src[n.start_byte:n.end_byte].decode("utf-8", "replace")


def _receiver(src: bytes, n: ts.Node | None) -> str:
    """A receiver's text when it is a dotted chain of names (``a``, ``a.b``, ``self``), else "."."""
    if n is None:
        return ""
    if n.type in _RECV_PARTS:
        t = _text(src, n)
        return "self" if t in _SELF else t      # "super" stays: the bases' method, not the own one
    if n.type == "call":        # python super().m()
        f = n.child_by_field_name("function")
        if f is not None and f.type == "identifier" and _text(src, f) == "super":
            return "super"
    if (n.type in _PAIRS and n.type != "method_invocation") or n.type in _FIELD:
        name, recv = split(src, n)
        if name and recv not in ("", "."):
            t = f"{recv}.{name}"
            return t if len(t) <= MAX_RECV else "."
        if name and recv == "":
            return name
    return "."


def split(src: bytes, n: ts.Node) -> tuple[str, str]:
    """(name, receiver) of a callee or base expression; ("", "") when it names nothing (a lambda,
    a subscript, a call's result called again)."""
    for _ in range(4):                       # unwrap generics, templates, parentheses
        w = _WRAPPED.get(n.type, "")
        if w == "":
            break
        inner = n.child_by_field_name(w) if w else (n.named_children[0] if n.named_child_count else None)
        if inner is None:
            return "", ""
        n = inner
    t = n.type
    if t in _NAMES:
        return _text(src, n), ""
    if t in ("this", "super", "self"):      # this(...) / super(...) in a constructor
        return "", ""
    if t == "scoped_type_identifier":       # java a.b.C
        kids = n.named_children
        if not kids:
            return "", ""
        return _text(src, kids[-1]), _receiver(src, kids[0]) if len(kids) > 1 else ""
    pair = _PAIRS.get(t)
    if pair is not None:
        obj, name = n.child_by_field_name(pair[0]), n.child_by_field_name(pair[1])
    elif t in _FIELD:
        obj = n.child_by_field_name(_FIELD[t][0]) or n.child_by_field_name(_FIELD[t][1])
        name = n.child_by_field_name("field")
    else:
        return "", ""
    if name is None:
        return "", ""
    if name.type not in _NAMES:
        return split(src, name)[0], "."
    return _text(src, name), _receiver(src, obj)


class _Owners:
    """The innermost of the given definitions around a byte offset (spans properly nest)."""

    def __init__(self, spans: list[tuple[int, int, int]]):
        self.spans = sorted(spans)           # (start, -end, index)
        self.starts = [s for s, _, _ in self.spans]

    def at(self, pos: int) -> int:
        """Index of the innermost span holding ``pos``, or -1."""
        i = bisect.bisect_right(self.starts, pos) - 1
        while i >= 0:
            s, neg_end, k = self.spans[i]
            if pos < -neg_end:
                return k
            i -= 1
        return -1


def collect(src: bytes, spans: list[tuple[int, int]], found_calls: list[ts.Node], found_bases: list[ts.Node],
            receivers: dict[int, str] | None = None, classes: dict[int, int] | None = None
            ) -> tuple[list[list[list]], list[list[list]]]:
    """Per definition span (index into ``spans``, plus one more for the file): its distinct calls
    ``[name, receiver, line]`` in source order, and its bases ``[name, receiver]``, from the nodes
    the ``patterns`` captured.
    ``receivers``: span index -> the receiver variable that means ``self`` in it (Go methods);
    ``classes``: the emitted classes' tree nodes (``Node.id``) -> span index: a base belongs to the
    class whose declaration holds it (a class hidden in a function body is no node: its bases
    are nobody's)."""
    n = len(spans)
    calls: list[list[list]] = [[] for _ in range(n + 1)]
    bases: list[list[list]] = [[] for _ in range(n + 1)]
    owners = _Owners([(a, -b, i) for i, (a, b) in enumerate(spans)])
    if found_calls:
        seen: list[set] = [set() for _ in range(n + 1)]
        for node in sorted(found_calls, key=lambda x: x.start_byte):
            name, recv = split(src, node)
            if not name:
                continue
            k = owners.at(node.start_byte)
            if receivers and recv and recv == receivers.get(k):
                recv = "self"
            slot = k if k >= 0 else n
            if (name, recv) in seen[slot] or len(calls[slot]) >= MAX_CALLS:
                continue
            seen[slot].add((name, recv))
            calls[slot].append([name, recv, node.start_point.row + 1])
    if found_bases:
        for node in sorted(found_bases, key=lambda x: x.start_byte):
            if node.type == "access_specifier":
                continue
            name, recv = split(src, node)
            k = _declaring(node, classes or {})
            if name and k >= 0 and len(bases[k]) < MAX_BASES and [name, recv] not in bases[k]:
                bases[k].append([name, recv])
    return calls, bases


def _type_expr(src: bytes, n: ts.Node | None) -> ts.Node | str | None:
    """The node naming an annotation's class (``Optional[Foo]``, ``Foo | None``: Foo), a string
    annotation's text, or None when it names no single class (a union, a callable, a literal)."""
    for _ in range(4):
        if n is None:
            return None
        t = n.type
        if t in ("type", "type_annotation", "pointer_type"):     # go *Foo
            n = n.named_children[0] if n.named_child_count else None
        elif t == "reference_type":                              # rust &Foo, &mut Foo
            n = n.child_by_field_name("type")
        elif t == "string":
            text = _text(src, n).strip("\"'")
            return text if text.replace(".", "").replace("_", "").isalnum() else None
        elif t == "subscript":
            value = n.child_by_field_name("value")
            if value is None or split(src, value)[0] not in _WRAPPER_TYPES:
                return None
            n = n.child_by_field_name("subscript")
        elif t == "generic_type" and n.child_by_field_name("type_arguments") is not None:
            base, args = n.child_by_field_name("type"), n.child_by_field_name("type_arguments")
            if base is None or args is None or split(src, base)[0] not in _WRAPPER_TYPES:
                return n                                 # Foo<T>: a Foo
            n = args.named_children[0] if args.named_child_count else None
        elif t == "binary_operator":             # Foo | None
            right = n.child_by_field_name("right")
            if right is None or right.type != "none":
                return None
            n = n.child_by_field_name("left")
        else:
            return n
    return None


def _made(src: bytes, n: ts.Node | None) -> ts.Node | str | None:
    """What a Go or Rust value expression makes, when its syntax says: ``&Foo{...}``, ``Foo{...}``,
    ``Foo { .. }``, ``Foo::new()`` / ``Foo::default()``; another call's callee (what it declares it
    returns types the variable, ``pipeline.calls``); else None."""
    if n is None:
        return None
    if n.type in ("unary_expression", "try_expression"):       # &Foo{}, make()?
        n = n.child_by_field_name("operand") if n.type == "unary_expression" else \
            (n.named_children[0] if n.named_child_count else None)
        if n is None:
            return None
    if n.type == "composite_literal":
        return n.child_by_field_name("type")
    if n.type == "struct_expression":
        return n.child_by_field_name("name")
    if n.type == "call_expression":
        fn = n.child_by_field_name("function")
        if fn is None:
            return None
        name, recv = split(src, fn)
        if fn.type == "scoped_identifier" and name in ("new", "default") and recv not in ("", "."):
            head, _, last = recv.rpartition(".")
            return f"{head}.{last}" if head else last
        return fn
    return None


def returns(lang: str, src: bytes, node: ts.Node) -> list[str] | None:
    """[type name, receiver] of a function's declared return type (``-> Foo``, ``Optional[Foo]``,
    ``*Foo``, Go's first result), or None (none written, a union, a builtin)."""
    field = _RETURNS.get(lang)
    n = node.child_by_field_name(field) if field else None
    if n is not None and n.type == "parameter_list":        # go (T, error)
        first = n.named_children[0] if n.named_child_count else None
        n = first.child_by_field_name("type") if first is not None else None
    ty = _type_expr(src, n)
    if ty is None:
        return None
    if isinstance(ty, str):
        head, _, name = ty.rpartition(".")
        recv = head
    else:
        name, recv = split(src, ty)
    if not name or name in _PLAIN_TYPES:
        return None
    return [name, "" if recv == "." else recv]


def typed(src: bytes, node: ts.Node) -> list[tuple[str, str, str]]:
    """(variable, type name, type receiver) of a ``@vartype`` capture; a variable given by a call
    that names nothing (``x = a()()``) types it as ("", "") (it hides an earlier assignment)."""
    t = node.type
    pairs: list[tuple[ts.Node | str | None, ts.Node | str | None]] = []     # (variable, its type)
    if t == "assignment":                # python x = Foo(...), self.x = Foo(), x: Foo = ..., self.x = x
        left, right, declared = (node.child_by_field_name(f) for f in ("left", "right", "type"))
        if declared is not None:
            pairs.append((left, _type_expr(src, declared)))
        elif right is not None and right.type == "identifier":
            if left is not None and left.type == "attribute":
                pairs.append((left, "=" + _text(src, right)))     # what that variable holds (pipeline.calls)
        else:
            pairs.append((left, right.child_by_field_name("function") if right is not None else None))
    elif t == "typed_parameter":
        pairs.append((node.named_children[0] if node.named_child_count else None,
                      _type_expr(src, node.child_by_field_name("type"))))
    elif t == "typed_default_parameter":
        pairs.append((node.child_by_field_name("name"), _type_expr(src, node.child_by_field_name("type"))))
    elif t == "variable_declarator":                         # js/ts const x = new Foo()
        value = node.child_by_field_name("value")
        pairs.append((node.child_by_field_name("name"),
                      value.child_by_field_name("constructor") if value is not None else None))
    elif t in ("required_parameter", "optional_parameter"):  # ts a: Foo
        pattern, ts_type = node.child_by_field_name("pattern"), _type_expr(src, node.child_by_field_name("type"))
        pairs.append((pattern, ts_type))
        if pattern is not None and any(c.type == "accessibility_modifier" for c in node.children):
            pairs.append((f"self.{_text(src, pattern)}", ts_type))     # constructor(private c: Client)
    elif t == "assignment_expression":                       # js this.x = new Foo() / this.x = x
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        prop = left.child_by_field_name("property") if left is not None else None
        if prop is not None and right is not None:
            pairs.append((f"self.{_text(src, prop)}", "=" + _text(src, right) if right.type == "identifier"
                          else right.child_by_field_name("constructor")))
    elif t in ("public_field_definition", "field_definition"):     # class { store: Store; cache = new Cache() }
        declared, value = node.child_by_field_name("type"), node.child_by_field_name("value")
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        pairs.append((name_node, _type_expr(src, declared) if declared is not None
                      else value.child_by_field_name("constructor") if value is not None else None))
    elif t == "formal_parameter":                            # java Foo a
        pairs.append((node.child_by_field_name("name"), node.child_by_field_name("type")))
    elif t == "local_variable_declaration":                  # java Foo a = ..., b;
        declared = node.child_by_field_name("type")
        pairs += [(d.child_by_field_name("name"), declared) for d in node.children_by_field_name("declarator")]
    elif t in ("parameter_declaration", "var_spec"):         # go c *gin.Context, var z Baz
        owner = node.parent.parent if node.parent is not None else None
        if owner is not None and owner.type == "method_declaration" and \
                node.parent == owner.child_by_field_name("receiver"):
            return []                                        # the receiver: ``self`` already
        go_type = _type_expr(src, node.child_by_field_name("type"))
        pairs += [(nm, go_type) for nm in node.children_by_field_name("name")]
    elif t == "short_var_declaration":                       # go x := &Foo{}, y, err := NewBar()
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and left.named_child_count and right.named_child_count == 1:
            pairs.append((left.named_children[0], _made(src, right.named_children[0])))
    elif t == "parameter":                                   # rust x: &Foo
        pairs.append((node.child_by_field_name("pattern"), _type_expr(src, node.child_by_field_name("type"))))
    elif t == "let_declaration":                             # rust let x: Foo / Foo { } / Foo::new()
        declared = node.child_by_field_name("type")
        pairs.append((node.child_by_field_name("pattern"), _type_expr(src, declared) if declared is not None
                      else _made(src, node.child_by_field_name("value"))))
    out = []
    for var, ty in pairs:
        if var is None:
            continue
        if isinstance(var, str):
            name = var
        elif var.type == "attribute":                        # self.x = ...
            obj, attr = var.child_by_field_name("object"), var.child_by_field_name("attribute")
            if obj is None or attr is None or _text(src, obj) not in _SELF:
                continue
            name = f"self.{_text(src, attr)}"
        elif var.type in ("identifier", "property_identifier"):
            name = _text(src, var)
        else:
            continue
        if isinstance(ty, str):
            head, _, tname = ty.rpartition(".")
            trecv = head
        elif ty is None:
            tname = trecv = ""
        else:
            tname, trecv = split(src, ty)
            trecv = trecv if tname else ""
        if tname not in _PLAIN_TYPES:
            out.append((name, tname, trecv))
        elif t == "assignment":             # x = str(x): what x held before no longer holds
            out.append((name, "", ""))
    return out


def collect_types(src: bytes, spans: list[tuple[int, int]], found: list[ts.Node]) -> list[list[list]]:
    """Per definition span (plus one more for the file, as ``collect``): its typed variables
    ``[variable, type name, type receiver, line]`` in source order, distinct, at most MAX_TYPES."""
    n = len(spans)
    out: list[list[list]] = [[] for _ in range(n + 1)]
    if not found:
        return out
    owners = _Owners([(a, -b, i) for i, (a, b) in enumerate(spans)])
    for node in sorted(found, key=lambda x: x.start_byte):
        k = owners.at(node.start_byte)
        slot = out[k if k >= 0 else n]
        for var, tname, trecv in typed(src, node):
            rec = [var, tname, trecv, node.start_point.row + 1]
            if len(slot) < MAX_TYPES and rec not in slot:
                slot.append(rec)
    return out

_DECLARATIONS = frozenset({"class_definition", "class_declaration", "class", "class_specifier", "struct_specifier",
                           "interface_declaration", "abstract_class_declaration", "enum_declaration",
                           "type_declaration", "struct_item", "trait_item", "impl_item"})


def _declaring(node: ts.Node, classes: dict[int, int]) -> int:
    """Span index of the class declaration a base clause belongs to (at most 5 up: Go's embedded
    field sits in its struct's field list), or -1 at the first declaration that is no node (a
    class hidden in a function body lends its bases to nobody)."""
    p = node.parent
    for _ in range(5):
        if p is None:
            return -1
        k = classes.get(p.id)
        if k is not None:
            return k
        if p.type in _DECLARATIONS:
            return -1
        p = p.parent
    return -1


def go_receiver(src: bytes, node: ts.Node) -> str:
    """A Go method's receiver variable (``func (s *S) F()`` -> "s"), or ""."""
    recv = node.child_by_field_name("receiver")
    if recv is None:
        return ""
    for p in recv.named_children:
        nm = p.child_by_field_name("name")
        if nm is not None:
            return _text(src, nm)
    return ""


__all__ = ["query_with_refs", "attach", "patterns", "collect", "collect_types", "typed", "split", "go_receiver",
           "returns", "DECL", "MAX_CALLS", "MAX_BASES", "MAX_TYPES"]
