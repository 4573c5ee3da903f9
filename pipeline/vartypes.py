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
f()``; Rust parameters, ``let x: Foo``, ``Foo { .. }`` and ``Foo::new()``; C++ (``pipeline.vartypes_cpp``)
declarations, parameters and a class body's members. ``pipeline.calls`` resolves
``x.m()`` through them, and a definition's declared return type (``returns``: [name, receiver];
Python, TS, Go's first result, Rust, Java, Kotlin, Scala, C++), so ``c = app.test_client()`` types ``c``
as what ``test_client`` says it returns. Kotlin and Scala (``jvm_split`` reads their callees and
types, which ``pipeline.exprnames`` does not): ``val c = Cart()`` / ``new Cart`` / ``Cart.create()``,
``val c: Cart``, parameters, ``x = ...``, and a class body's ``val`` / a constructor's ``val x:
Cart`` (any Scala class parameter) as the class's ``self.x``.

Only syntax is read here (query patterns run with the tags query, ``pipeline.callrefs``); nothing
is resolved.
"""

from __future__ import annotations

import tree_sitter as ts

from pipeline.exprnames import MAX_RECV, SELF, Owners, split, text
from pipeline.languages.jvmpackages import LANGUAGES as JVM     # read by ``jvm_split`` and ``_jvm_pairs``
from pipeline.sourcetext import quoted_name
from pipeline.vartypes_cpp import TYPES as _CPP_TYPES, cpp_pairs, cpp_type

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
    "kotlin": "(property_declaration) @vartype (parameter) @vartype (class_parameter) @vartype "
              "(assignment) @vartype (for_statement) @vartype",
    "scala": "(val_definition) @vartype (var_definition) @vartype (parameter) @vartype (class_parameter) @vartype "
             "(assignment_expression) @vartype (enumerator) @vartype",
    "cpp": _CPP_TYPES,
}
_RETURNS = {"python": "return_type", "typescript": "return_type", "tsx": "return_type", "rust": "return_type",
            "go": "result", "java": "type", "scala": "return_type", "cpp": "type"}     # the field of a definition's node holding its return type
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
    n = node.child_by_field_name(field) if field else _kotlin_return(node) if lang == "kotlin" else None
    if n is not None and n.type == "parameter_list":        # go (T, error)
        first = n.named_children[0] if n.named_child_count else None
        n = first.child_by_field_name("type") if first is not None else None
    ty = _jvm_type(src, n) if lang in JVM else cpp_type(src, n) if lang == "cpp" else _type_expr(src, n)
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
        params = n.child_by_field_name("type_parameters") or \
            next((c for c in n.children if c.type == "type_parameters"), None)     # kotlin, scala: no field
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
                     "formal_parameter", "parameter", "parameter_declaration", "class_parameter",
                     "optional_parameter_declaration"})


def typed(src: bytes, node: ts.Node, lang: str = "") -> list[tuple[str, str, str]]:
    """(variable, type name, type receiver) of a ``@vartype`` capture of language ``lang``; a
    variable given by a call that names nothing (``x = a()()``) types it as ("", "") (it hides an
    earlier assignment)."""
    t = node.type
    pairs: list[tuple[ts.Node | str | None, ts.Node | str | None]] = []     # (variable, its type)
    if lang in JVM or lang == "cpp":     # their node types overlap the others' (assignment, parameter)
        pairs += _jvm_pairs(src, node) if lang in JVM else cpp_pairs(src, node)
    elif t == "assignment":                # python x = Foo(...), self.x = Foo(), x: Foo = ..., self.x = x
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
        if tname not in _PLAIN_TYPES or (lang == "cpp" and trecv):     # std::string: not ours, said
            out.append((name, tname, trecv))
        elif t in ("assignment", "assignment_expression", "variable_declarator", "property_declaration",
                   "val_definition", "var_definition"):
            out.append((name, "", ""))      # x = str(x): what x held before no longer holds
    return out


# -- Kotlin and Scala -------------------------------------------------------------------------------

_JVM_WRAPPED = {"generic_type": "type", "generic_function": "function", "nullable_type": "",
                "parenthesized_type": "", "compound_type": "base", "type_projection": ""}     # the field inside
_JVM_PATHS = frozenset({"user_type", "stable_type_identifier", "stable_identifier", "qualified_identifier"})
_JVM_NAMES = frozenset({"identifier", "type_identifier"})
_JVM_MEMBERS = {"class_body": ("class_declaration", "object_declaration", "companion_object"),
                "template_body": ("class_definition", "object_definition", "trait_definition")}


def _unwrap(n: ts.Node | None) -> ts.Node | None:
    """A Kotlin/Scala type or callee without what wraps its name (``Cart?``, ``Cart[Int]``, ``f[T]``,
    ``Cart with T``: its first type)."""
    for _ in range(4):
        if n is None or n.type not in _JVM_WRAPPED:
            return n
        f = _JVM_WRAPPED[n.type]
        n = (n.child_by_field_name(f) if f else None) or (n.named_children[0] if n.named_child_count else None)
    return n


def _word(src: bytes, n: ts.Node) -> str:
    """A Kotlin/Scala name as its definition is named: ``this.`when`(2)`` calls ``when``."""
    w = text(src, n)
    quoted = quoted_name(w)         # the rule its definition is named by (``definitions._written``)
    return w if quoted is None else quoted


def _path(src: bytes, n: ts.Node) -> list[str]:
    """The names of a dotted type (``a.b.Cart``; its type arguments left out)."""
    out: list[str] = []
    for c in n.named_children:
        if c.type in _JVM_NAMES:
            out.append(_word(src, c))
        elif c.type in _JVM_PATHS:
            out += _path(src, c)
    return out


def jvm_split(src: bytes, n: ts.Node) -> tuple[str, str]:
    """(name, receiver) of a Kotlin or Scala callee, base or type, as ``exprnames.split`` gives
    the others' (``Money.of``: ("of", "Money"), ``this.g``: ("g", "self"), ``a.b.Cart``,
    ``Cart?``, ``Cart[Int]``: ("Cart", ...); ``Pricer.Companion.of``: ("of", "Pricer"), an unnamed
    companion's members being its class's); ("", "") when it names nothing (a lambda, a call's
    result called again)."""
    got = _unwrap(n)
    if got is None:
        return "", ""
    t = got.type
    if t in _JVM_NAMES:
        return _word(src, got), ""
    if t in _JVM_PATHS:
        parts = _path(src, got)
        return (parts[-1], ".".join(parts[:-1])) if parts else ("", "")
    if t == "field_expression":                      # scala a.b
        obj, name = got.child_by_field_name("value"), got.child_by_field_name("field")
    elif t == "navigation_expression" and got.named_child_count > 1:      # kotlin a.b, a?.b
        obj, name = got.named_children[0], got.named_children[-1]
    else:
        return "", ""
    if obj is None or name is None or name.type != "identifier":
        return "", ""
    recv = _jvm_receiver(src, obj)
    return _word(src, name), recv[:-len(".Companion")] if recv.endswith(".Companion") else recv


def _jvm_receiver(src: bytes, n: ts.Node) -> str:
    """What stands before a Kotlin/Scala call's name: a dotted chain of names, ``self`` for
    ``this``, ``super``; ``x!!`` is ``x``; else "." (a call's result; ``this@Outer``, not
    surely the own object)."""
    t = n.type
    if t in _JVM_NAMES:
        word = _word(src, n)
        return "self" if word == "this" else word       # scala's this and super are identifiers
    if t == "this_expression":
        return "." if n.named_child_count else "self"
    if t == "super_expression":
        return "super"
    if t == "unary_expression":
        op, arg = n.child_by_field_name("operator"), n.child_by_field_name("argument")
        return _jvm_receiver(src, arg) if op is not None and op.type == "!!" and arg is not None else "."
    if t in ("navigation_expression", "field_expression"):
        name, recv = jvm_split(src, n)
        if name and recv not in ("", "."):
            whole = f"{recv}.{name}"
            return whole if len(whole) <= MAX_RECV else "."
    return "."


def _jvm_type(src: bytes, n: ts.Node | None) -> str | None:
    """The class a Kotlin/Scala type names, dotted (``Cart?``, ``a.b.Cart``, ``Option[Cart]``:
    its argument, as ``_WRAPPER_TYPES`` say), or None."""
    for _ in range(3):
        inner = n
        while inner is not None and inner.type in ("nullable_type", "parenthesized_type", "type_projection"):
            inner = inner.named_children[0] if inner.named_child_count else None
        if inner is None:
            return None
        name, recv = jvm_split(src, inner)
        if not name or recv == ".":
            return None
        args = inner.child_by_field_name("type_arguments") or \
            next((c for c in inner.named_children if c.type == "type_arguments"), None)
        if recv or name not in _WRAPPER_TYPES or args is None or not args.named_child_count:
            return f"{recv}.{name}" if recv else name
        n = args.named_children[0]
    return None


def _jvm_value(src: bytes, n: ts.Node | None) -> str | None:
    """What a Kotlin/Scala value makes, dotted, as ``_made`` reads the others': a call's callee
    (``Cart()``, ``Cart.create()``: a class, or a function's declared return type), ``new
    Cart``, ``x as Cart``; ``=x`` for another variable; else None."""
    if n is None:
        return None
    t = n.type
    if t == "identifier":
        return "=" + text(src, n)
    if t == "parenthesized_expression" and n.named_child_count == 1:
        return _jvm_value(src, n.named_children[0])
    if t == "as_expression":
        return _jvm_type(src, n.child_by_field_name("right"))
    if t == "instance_expression":
        return _jvm_type(src, next((c for c in n.named_children if c.type != "template_body"), None))
    if t == "call_expression":
        callee = n.child_by_field_name("function") or (n.named_children[0] if n.named_child_count else None)
        name, recv = jvm_split(src, callee) if callee is not None else ("", "")
        return None if not name or recv == "." else f"{recv}.{name}" if recv else name
    return None


def _after(node: ts.Node, token: str) -> ts.Node | None:
    """The named child after the first ``token`` child (a Kotlin property's value after ``=``)."""
    seen = False
    for c in node.children:
        if seen and c.is_named:
            return c
        seen = seen or c.type == token
    return None


def _kotlin_return(node: ts.Node) -> ts.Node | None:
    """A Kotlin function's declared return type: the type after its parameters (no field names it)."""
    c = _after(node, "function_value_parameters")
    return c if c is not None and c.type in ("user_type", "nullable_type", "parenthesized_type") else None


def _member(node: ts.Node, name: str) -> str:
    """``self.name`` for a property declared in a class's (object's, trait's) body, else ``name``."""
    body = node.parent
    owners = _JVM_MEMBERS.get(body.type) if body is not None else None
    return f"self.{name}" if owners and body is not None and body.parent is not None and \
        body.parent.type in owners else name


def _names(src: bytes, n: ts.Node) -> list[str]:
    """The identifiers a destructuring binds (``val (a, b)``, ``case (a, b)``)."""
    if n.type == "identifier":
        return [text(src, n)]
    return [x for c in n.named_children for x in _names(src, c)]


def _jvm_pairs(src: bytes, node: ts.Node) -> list[tuple[str, str | None]]:
    """(variable, its class dotted, or None) of a Kotlin or Scala ``@vartype`` capture."""
    t, kids = node.type, node.named_children
    if t == "property_declaration":                  # kotlin val c = Cart(), val c: Cart, a class's val
        decl = next((c for c in kids if c.type in ("variable_declaration", "multi_variable_declaration")), None)
        if decl is None or not decl.named_child_count:
            return []
        if decl.type == "multi_variable_declaration":
            return [(v, None) for v in _names(src, decl) if v]
        ident, *written = decl.named_children
        ty = _jvm_type(src, written[0]) if written else \
            None if any(c.type == "property_delegate" for c in kids) else _jvm_value(src, _after(node, "="))
        return [(_member(node, text(src, ident)), ty)] if ident.type == "identifier" else []
    if t in ("val_definition", "var_definition"):    # scala val c = Cart(), val c: Cart, a class's val
        pattern, declared = node.child_by_field_name("pattern"), node.child_by_field_name("type")
        if pattern is None:
            return []
        if pattern.type != "identifier":
            return [(v, None) for v in _names(src, pattern)]
        ty = _jvm_type(src, declared) if declared is not None else _jvm_value(src, node.child_by_field_name("value"))
        return [(_member(node, text(src, pattern)), ty)]
    if t in ("parameter", "class_parameter"):        # f(c: Cart), class A(val c: Cart)
        param = node.child_by_field_name("name") or (kids[0] if kids else None)
        if param is None or param.type != "identifier":
            return []
        var = text(src, param)
        ty = _jvm_type(src, node.child_by_field_name("type") or (kids[1] if len(kids) > 1 else None))
        # a Scala class's parameter (its grammar names fields) is its methods' field; a Kotlin one as ``val``/``var``
        field = t == "class_parameter" and (node.child_by_field_name("name") is not None
                                            or any(c.type in ("val", "var") for c in node.children))
        return [(var, ty), (f"self.{var}", ty)] if field else [(var, ty)]
    if t in ("assignment", "assignment_expression"):     # x = ..., this.x = ...
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        if left is None or (op is not None and op.type != "="):
            return []
        if left.type == "identifier":
            return [(text(src, left), _jvm_value(src, right))]
        attr, recv = jvm_split(src, left)
        return [(f"self.{attr}", _jvm_value(src, right))] if attr and recv == "self" else []
    if t == "for_statement":                         # kotlin for (c in carts): not known
        return [(v, None) for c in kids if c.type.endswith("variable_declaration") for v in _names(src, c)]
    if t == "enumerator" and kids:                   # scala for c <- carts
        return [(v, None) for v in _names(src, kids[0])]
    return []


def collect_types(src: bytes, spans: list[tuple[int, int]], found: list[ts.Node], lang: str = "") -> list[list[list]]:
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
        recs = [[var, tname, trecv, line, eff] for var, tname, trecv in typed(src, node, lang)]
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
    if t in ("for_statement", "for_in_statement", "for_range_loop"):
        body = node.child_by_field_name("body")
        if body is None:                 # kotlin for (c in carts): from its variable on
            body = next((c for c in node.named_children if c.type.endswith("variable_declaration")), None)
            return body.end_byte if body is not None else node.end_byte
        return body.start_byte - 1       # before its first statement
    if t == "for_in_clause" and node.parent is not None:
        return node.parent.start_byte
    return node.end_byte


__all__ = ["TYPES", "JVM", "returns", "typed", "collect_types", "jvm_split", "MAX_TYPES", "OVERFLOW"]
