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

MAX_TYPES = 128          # typings kept per definition; then OVERFLOW at the first one not kept
OVERFLOW = "*"           # its line: from there on, what a variable holds is not known

_JS_THIS = "(assignment_expression left: (member_expression object: (this)) right: [(new_expression) (identifier)]) @vartype "
_JS_VARS = "(variable_declarator value: [(new_expression) (call_expression) (await_expression) (identifier)]) @vartype " \
           "(variable_declarator name: [(array_pattern) (object_pattern)]) @vartype (for_in_statement) @vartype " \
           "(assignment_expression left: [(identifier) (array_pattern) (object_pattern)]) @vartype " + _JS_THIS
_TS_TYPES = "(variable_declarator type: (_)) @vartype (required_parameter type: (_)) @vartype " \
            "(optional_parameter type: (_)) @vartype (public_field_definition type: (_)) @vartype " \
            "(public_field_definition value: (new_expression)) @vartype " + _JS_VARS
TYPES = {
    "python": "(assignment left: (identifier) right: (_)) @vartype (assignment left: (attribute) right: (call)) @vartype "
              "(assignment left: [(pattern_list) (tuple_pattern)]) @vartype (for_statement) @vartype "
              "(for_in_clause) @vartype (as_pattern alias: (_)) @vartype (named_expression) @vartype "
              "(assignment left: (attribute) right: (identifier)) @vartype "
              "(assignment left: [(identifier) (attribute)] type: (_)) @vartype "
              "(typed_parameter) @vartype (typed_default_parameter) @vartype",
    "javascript": "(field_definition value: (new_expression)) @vartype " + _JS_VARS,
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
        elif t == "generic_type":                # Optional[Foo] (python), Promise<Foo>, Box<Foo>
            kids = n.named_children
            base = n.child_by_field_name("type") or n.child_by_field_name("name") or (kids[0] if kids else None)
            args = n.child_by_field_name("type_arguments") or \
                next((c for c in kids if c.type in ("type_arguments", "type_parameter")), None)
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
    """What a value expression makes, when its syntax says: JS/TS ``new Foo()``, Go ``&Foo{...}`` /
    ``Foo{...}``, Rust ``Foo { .. }`` / ``Foo::new()`` / ``Foo::default()``; another call's callee
    (what it declares it returns types the variable, ``pipeline.calls``); else None (``await``, a
    literal: the variable's class is not known)."""
    if n is None:
        return None
    if n.type in ("unary_expression", "try_expression"):       # &Foo{}, make()?
        n = n.child_by_field_name("operand") if n.type == "unary_expression" else \
            (n.named_children[0] if n.named_child_count else None)
        if n is None:
            return None
    if n.type == "new_expression":
        return n.child_by_field_name("constructor")
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
    if not name or name in _PLAIN_TYPES or (not recv and name in _type_params(src, node)):
        return None                     # -> T of def f[T] / <T> f(): whatever the caller passes
    return [name, "" if recv == "." else recv]


def _type_params(src: bytes, node: ts.Node) -> set[str]:
    """The type parameters' names in scope at a definition: its own and its enclosing classes'
    (``def f[T]``, ``<T> T get()``, ``fn f<T>``, ``func F[T any]``, ``class Box<T>``)."""
    out: set[str] = set()
    n: ts.Node | None = node
    for _ in range(24):                 # up through blocks to the function and its classes
        if n is None:
            break
        params = n.child_by_field_name("type_parameters")
        for p in params.named_children if params is not None else ():
            c: ts.Node | None = p
            while c is not None and c.type not in ("identifier", "type_identifier"):   # T, T extends Base
                c = c.child_by_field_name("name") or c.child_by_field_name("left") or \
                    (c.named_children[0] if c.named_child_count else None)
            if c is not None:
                out.add(text(src, c))
        n = n.parent
    return out


_PATTERNS = frozenset({"pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "as_pattern_target",
                       "array_pattern", "object_pattern", "rest_pattern", "tuple", "list", "parenthesized_expression"})


def _bound(n: ts.Node | None) -> list[ts.Node]:
    """The names a target pattern binds (``x``, ``x, y``, ``[a, b]``, ``{a, b: c}``, ``{a = d}``,
    ``as x``); not ``c`` of ``c.timeout, x = ...`` (an attribute is set, ``c`` stays) nor a default."""
    out, stack = [], [n] if n is not None else []
    while stack:
        c = stack.pop()
        if c.type in ("identifier", "shorthand_property_identifier_pattern"):
            out.append(c)
        elif c.type == "pair_pattern":
            v = c.child_by_field_name("value")
            stack += [v] if v is not None else []
        elif c.type in ("assignment_pattern", "object_assignment_pattern"):   # [a = 1], {a = d}: a
            v = c.child_by_field_name("left")
            stack += [v] if v is not None else []
        elif c.type in _PATTERNS:
            stack += c.named_children
    return out


_PARAMS = frozenset({"typed_parameter", "typed_default_parameter", "required_parameter", "optional_parameter",
                     "formal_parameter", "parameter", "parameter_declaration"})


def typed(src: bytes, node: ts.Node) -> list[tuple[str, str, str]]:
    """(variable, type name, type receiver) of a ``@vartype`` capture; a variable given by a call
    that names nothing (``x = a()()``) types it as ("", "") (it hides an earlier assignment)."""
    t = node.type
    pairs: list[tuple[ts.Node | str | None, ts.Node | str | None]] = []     # (variable, its type)
    if t == "assignment":                # python x = Foo(...), self.x = Foo(), x: Foo = ..., self.x = x
        left, right, declared = (node.child_by_field_name(f) for f in ("left", "right", "type"))
        if left is not None and left.type in ("pattern_list", "tuple_pattern"):
            pairs += [(v, None) for v in _bound(left)]       # x, y = ...: not known which is what
        elif declared is not None:                               # a class body's x: Foo is a field
            body = node.parent.parent if node.parent is not None else None
            field = left is not None and left.type == "identifier" and body is not None and \
                body.parent is not None and body.parent.type == "class_definition"
            pairs.append((f"self.{text(src, left)}" if field and left is not None else left, _type_expr(src, declared)))
        elif right is not None and right.type == "identifier":
            pairs.append((left, "=" + text(src, right)))         # what that variable holds (pipeline.calls)
        else:
            pairs.append((left, right.child_by_field_name("function") if right is not None else None))
    elif t in ("for_statement", "for_in_statement", "for_in_clause"):     # for x in items: x is unknown
        pairs += [(v, None) for v in _bound(node.child_by_field_name("left"))]
    elif t == "as_pattern":                                  # with cm as x, except E as x
        pairs += [(v, None) for v in _bound(node.child_by_field_name("alias"))]
    elif t == "named_expression":                            # (x := Foo())
        value = node.child_by_field_name("value")
        pairs.append((node.child_by_field_name("name"),
                      value.child_by_field_name("function") if value is not None and value.type == "call" else None))
    elif t == "typed_parameter":
        pairs.append((node.named_children[0] if node.named_child_count else None,
                      _type_expr(src, node.child_by_field_name("type"))))
    elif t == "typed_default_parameter":
        pairs.append((node.child_by_field_name("name"), _type_expr(src, node.child_by_field_name("type"))))
    elif t == "variable_declarator":                         # js/ts const x = new Foo() / f() / y / x: Foo
        declared, target = node.child_by_field_name("type"), node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if target is not None and target.type in ("array_pattern", "object_pattern"):
            pairs += [(v, None) for v in _bound(target)]
        elif declared is not None:
            pairs.append((target, _type_expr(src, declared)))
        else:
            pairs.append((target, "=" + text(src, value) if value is not None and value.type == "identifier"
                          else _made(src, value)))
    elif t in ("required_parameter", "optional_parameter"):  # ts a: Foo
        pattern, ts_type = node.child_by_field_name("pattern"), _type_expr(src, node.child_by_field_name("type"))
        pairs.append((pattern, ts_type))
        if pattern is not None and any(c.type == "accessibility_modifier" for c in node.children):
            pairs.append((f"self.{text(src, pattern)}", ts_type))     # constructor(private c: Client)
    elif t == "assignment_expression":                       # js this.x = new Foo() / this.x = x / x = ...
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and left.type == "identifier":
            pairs.append((left, "=" + text(src, right) if right is not None and right.type == "identifier"
                          else _made(src, right)))
        elif left is not None and left.type in ("array_pattern", "object_pattern"):
            pairs += [(v, None) for v in _bound(left)]
        elif (prop := left.child_by_field_name("property") if left is not None else None) is not None \
                and right is not None:
            pairs.append((f"self.{text(src, prop)}", "=" + text(src, right) if right.type == "identifier"
                          else right.child_by_field_name("constructor")))
    elif t in ("public_field_definition", "field_definition"):     # class { store: Store; cache = new Cache() }
        declared, value = node.child_by_field_name("type"), node.child_by_field_name("value")
        name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
        if name_node is not None:
            pairs.append((f"self.{text(src, name_node)}", _type_expr(src, declared) if declared is not None
                          else value.child_by_field_name("constructor") if value is not None else None))
    elif t == "formal_parameter":                            # java Foo a
        pairs.append((node.child_by_field_name("name"), _type_expr(src, node.child_by_field_name("type"))))
    elif t == "field_declaration":                           # go struct { router *Router }, java Foo f;
        declared = node.child_by_field_name("type")
        declarators = node.children_by_field_name("declarator")
        names = [d.child_by_field_name("name") for d in declarators] if declarators else \
            node.children_by_field_name("name")
        pairs += [(f"self.{text(src, nm)}", _type_expr(src, declared)) for nm in names if nm is not None]
    elif t == "local_variable_declaration":                  # java Foo a = ..., b;
        java_type = _type_expr(src, node.child_by_field_name("type"))
        pairs += [(d.child_by_field_name("name"), java_type) for d in node.children_by_field_name("declarator")]
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
        elif var.type in ("identifier", "property_identifier", "field_identifier",
                          "shorthand_property_identifier_pattern"):
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
        if tname and not trecv and tname[:1].isupper() and tname in _type_params(src, node):
            continue                        # x: T of def f[T] / class Box<T>: whatever the caller passes
        if tname not in _PLAIN_TYPES:
            out.append((name, tname, trecv))
        elif t in ("assignment", "assignment_expression", "variable_declarator"):
            out.append((name, "", ""))      # x = str(x): what x held before no longer holds
    return out


def collect_types(src: bytes, spans: list[tuple[int, int]], found: list[ts.Node]) -> list[list[list]]:
    """Per definition span (plus one more for the file, as ``collect``): its typed variables
    ``[variable, type name, type receiver, line, position]``, ordered by the byte position from which
    each holds (``_effect``), distinct, at most MAX_TYPES; then one ``[OVERFLOW, "", "", line,
    position]`` where the first one not kept was (a variable retyped past the cap must not keep its
    older class). A comprehension's variable is unknown inside it and, from its end, ``^start``:
    what the variable held before the comprehension."""
    n = len(spans)
    out: list[list[list]] = [[] for _ in range(n + 1)]
    if not found:
        return out
    owners = Owners([(a, -b, i) for i, (a, b) in enumerate(spans)])
    for node in sorted(found, key=lambda x: x.start_byte):
        k = owners.at(node.start_byte)
        slot = out[k if k >= 0 else n]
        line, eff = node.start_point.row + 1, _effect(node)
        recs = [[var, tname, trecv, line, eff] for var, tname, trecv in typed(src, node)]
        comp = node.parent if node.type == "for_in_clause" else None
        if comp is not None:            # after the comprehension its variable is the outer one again
            recs += [[r[0], f"^{comp.start_byte}", "", line, comp.end_byte] for r in recs]
        for rec in recs:
            if len(slot) < MAX_TYPES:
                if rec not in slot:
                    slot.append(rec)
            elif len(slot) == MAX_TYPES:
                slot.append([OVERFLOW, "", "", rec[3], rec[4]])
    for slot in out:
        slot.sort(key=lambda r: r[4])   # by when each takes effect (a comprehension's: at its start)
    return out


def _effect(node: ts.Node) -> int:
    """The byte position from which a typing holds: a parameter's from its own; a loop variable's
    from the loop's body; a comprehension's from the comprehension's start (its element comes
    first in the text); any other from the statement's end (``x = x.clone()``: the call runs
    with the old ``x``; ``for (Foo n = a; ...; n = n.next())``: the update sees ``n``)."""
    t = node.type
    if t in _PARAMS:
        return node.start_byte
    if t in ("for_statement", "for_in_statement"):
        body = node.child_by_field_name("body")
        return body.start_byte - 1 if body is not None else node.end_byte     # before its first statement
    if t == "for_in_clause" and node.parent is not None:
        return node.parent.start_byte
    return node.end_byte


__all__ = ["TYPES", "returns", "typed", "collect_types", "MAX_TYPES", "OVERFLOW"]
