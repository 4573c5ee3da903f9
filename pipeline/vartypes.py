"""Variables' and functions' types as the syntax writes them, per definition: the raw input of
the "variable's class" rules of ``pipeline.calls``.

A variable's type is recorded where the syntax says it (``types``: [variable, name, receiver,
line]): Python ``x = Foo(...)`` (any call: the nearest assignment above a call
decides, and one whose callee is no class types nothing) and annotated parameters (``a: Foo``,
``Optional[Foo]``, ``Foo | None``, ``"Foo"``) and variables (``x: Foo = ...``), ``self.x =
Foo()`` as variable ``self.x`` (``self.x = app`` as ``=app``: what ``app`` holds there), a class
body's ``x: Foo`` as the class's ``x``;
JS/TS ``const x = new Foo()`` and TS parameters ``a: Foo``; Java locals and parameters
(``Foo x``) and fields; Go parameters, struct fields, ``var x Foo``, ``x := &Foo{}`` and ``x, err :=
f()``; Rust
parameters, ``let x: Foo``, ``Foo { .. }`` and ``Foo::new()``. ``pipeline.calls`` resolves
``x.m()`` through them, and a definition's declared return type (``returns``: [name, receiver];
Python, TS, Go's first result, Rust, Java), so ``c = app.test_client()`` types ``c`` as what
``test_client`` says it returns.

Only syntax is read here (query patterns run with the tags query, ``pipeline.callrefs``); nothing
is resolved.
"""

from __future__ import annotations

import tree_sitter as ts

from pipeline.exprnames import SELF, Owners, split, text

MAX_TYPES = 64           # typed variables kept per definition

_JS_THIS = "(assignment_expression left: (member_expression object: (this)) right: [(new_expression) (identifier)]) @vartype "
_TS_TYPES = "(variable_declarator value: (new_expression)) @vartype (required_parameter type: (_)) @vartype " \
            "(optional_parameter type: (_)) @vartype (public_field_definition type: (_)) @vartype " \
            "(public_field_definition value: (new_expression)) @vartype " + _JS_THIS
TYPES = {
    "python": "(assignment left: [(identifier) (attribute)] right: (call)) @vartype "
              "(assignment left: (attribute) right: (identifier)) @vartype "
              "(assignment left: [(identifier) (attribute)] type: (_)) @vartype "
              "(typed_parameter) @vartype (typed_default_parameter) @vartype",
    "javascript": "(variable_declarator value: (new_expression)) @vartype "
                  "(field_definition value: (new_expression)) @vartype " + _JS_THIS,
    "typescript": _TS_TYPES, "tsx": _TS_TYPES,
    "java": "(local_variable_declaration) @vartype (formal_parameter) @vartype (field_declaration) @vartype",
    "go": "(parameter_declaration type: (_)) @vartype (var_spec type: (_)) @vartype "
          "(field_declaration name: (_) type: (_)) @vartype "
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
            quoted = text(src, n).strip("\"'")
            return quoted if quoted.replace(".", "").replace("_", "").isalnum() else None
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
                pairs.append((left, "=" + text(src, right)))     # what that variable holds (pipeline.calls)
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
            pairs.append((f"self.{text(src, pattern)}", ts_type))     # constructor(private c: Client)
    elif t == "assignment_expression":                       # js this.x = new Foo() / this.x = x
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        prop = left.child_by_field_name("property") if left is not None else None
        if prop is not None and right is not None:
            pairs.append((f"self.{text(src, prop)}", "=" + text(src, right) if right.type == "identifier"
                          else right.child_by_field_name("constructor")))
    elif t in ("public_field_definition", "field_definition"):     # class { store: Store; cache = new Cache() }
        declared, value = node.child_by_field_name("type"), node.child_by_field_name("value")
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        pairs.append((name_node, _type_expr(src, declared) if declared is not None
                      else value.child_by_field_name("constructor") if value is not None else None))
    elif t == "formal_parameter":                            # java Foo a
        pairs.append((node.child_by_field_name("name"), node.child_by_field_name("type")))
    elif t == "field_declaration":                           # go struct { router *Router }, java Foo f;
        declared = node.child_by_field_name("type")
        declarators = node.children_by_field_name("declarator")
        names = [d.child_by_field_name("name") for d in declarators] if declarators else \
            node.children_by_field_name("name")
        pairs += [(nm, _type_expr(src, declared)) for nm in names]
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
            if obj is None or attr is None or text(src, obj) not in SELF:
                continue
            name = f"self.{text(src, attr)}"
        elif var.type in ("identifier", "property_identifier", "field_identifier"):
            name = text(src, var)
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
    owners = Owners([(a, -b, i) for i, (a, b) in enumerate(spans)])
    for node in sorted(found, key=lambda x: x.start_byte):
        k = owners.at(node.start_byte)
        slot = out[k if k >= 0 else n]
        for var, tname, trecv in typed(src, node):
            rec = [var, tname, trecv, node.start_point.row + 1]
            if len(slot) < MAX_TYPES and rec not in slot:
                slot.append(rec)
    return out


__all__ = ["TYPES", "returns", "typed", "collect_types", "MAX_TYPES"]
