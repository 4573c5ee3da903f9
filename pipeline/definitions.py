"""A file's definitions: what the language's query captures (``collect``) and what each is called,
what kind it is and where it hangs (``resolve``). ``pipeline.parse`` turns them into node records;
``parse.definition_spans`` (the symbol miner's view) reads them alone.

Rules beyond nesting (the parse module's docstring has the general ones):

- Rust: the impl blocks of a type defined in the same file merge into the type's node; each impl
  block of a type defined elsewhere is a node of its own (``Point``, ``Point#2``: one node's span
  and text are one block), its methods named by the type as before (``Point.fmt``,
  ``Point.fmt#2``); a blanket ``impl<E> Trait for E`` is named by its trait (``Trait``, or
  ``Trait#2`` beside the trait itself), not by its type parameter.
- Java: an anonymous class a field holds (``static final X F = new X() {...}``, also as
  ``new X() {...}.nullSafe()``) is a class named by the field (subkind ``anonymous``: ``Outer.F``,
  its methods ``Outer.F.read``); one inside a method stays that method's code.
- The kinds a query may capture beyond the class kinds: ``type`` (a TypeScript ``type X = ...``, a
  Go named type that is no struct or interface) is a class of subkind ``type``; ``macro`` (Rust
  ``macro_rules!``) a function of subkind ``macro``; ``lambda`` (Python ``to_cents = lambda x:
  ...``, a name bound to a lambda outside any function body) a function of subkind ``lambda``, a
  method in a class body (``key = lambda self: ...``), its body the lambda's expression. A chain
  (``to_cents = cents = lambda x: ...``) or a tuple (``add, scale = helper, lambda v: ...``,
  paired element by element), and a lambda in parentheses in any of these forms (``f = (lambda x:
  ...)``), binds one such function per name bound to a lambda (``bound``: each spans the
  statement, as the single form does; its calls are those of its own lambda; its signature is
  its own name and lambda, ``cents = lambda x``).
- JavaScript/TypeScript: a chain binds one definition per name to its function (``req.get =
  req.header = function header(name) {}``, ``bound``, as Python's chain: each spans the statement,
  its calls are its function's): ``obj.f`` a method of obj, ``F.prototype.f`` one of F,
  ``exports.f`` a function. An object literal's functions on the right of ``module.exports =``
  are the module's functions (``parse``), of ``F.prototype =`` F's methods (``F.handle``); so are
  those of ``export default { ... }``, and of a top-level ``const api = { ... }`` when a statement
  of the file makes api the module's value (``module.exports = api``, ``export default api``).
  A definition of the file written as its own statement keeps its plain name beside such a
  member of the same name, whatever the order (``function helper``: ``helper``, the member
  ``helper () {}``: ``helper#2``), so its id and a bare ``helper()`` call stay its.
- Go: ``var a, b = func() {...}, func() {...}`` binds one function per name bound to a literal
  (``bound``, paired element by element as Python's tuple: each spans the statement, its calls
  are its own literal's).
- Kotlin and Scala: a name in backticks is what stands between them, spaces kept (``fun `total
  applies discount`()`` is ``CartTest.total applies discount``, as the JVM and its frames name it);
  one holding a dot keeps its backticks (``def `a.b``` in object O is ``O.`a.b```: not b nested in a).
- Tests written as calls (a test file's ``describe('x', () => {...})``, ``rgtest!(name, |..| {...})``)
  are captured as ``@test.call``/``@test.macro`` and made by ``pipeline.testblocks`` (its docstring:
  names, nesting, where); a test inside a describe's callback nests in it, any other definition
  there stays its code. Each of them, and a Rust ``fn`` with a test attribute, is a ``test``.
- Python ``@overload`` stubs yield to their implementation (the general rule); the stubs right
  above it (comments between allowed) are its first lines (``Def.lead``: its span and ``full``
  start at the first stub's decorator) and their signatures head its api (``Def.stubs``), so a
  stub's line is the implementation's and the typed signatures stay in view.
"""

from __future__ import annotations

import re
from typing import overload

import tree_sitter as ts

from pipeline import callrefs, languages, testblocks
from pipeline.importrefs import string_value
from pipeline.languages import cppmacros
from pipeline.sourcetext import quoted_name, text

CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "union", "record", "impl", "type",
                         "anonymous"})
FUNCTION_SUBKINDS = frozenset({"macro", "lambda", "test", "suite"})   # captured kinds: functions with a subkind
_WS = re.compile(r"\s+")
_OVERLOAD = re.compile(r"^@\s*(\w+\.)*overload\s*$")
_HOLDERS = frozenset({"field_declaration", "constant_declaration"})     # Java: a field holding an anonymous class
_PY_TARGETS = frozenset({"pattern_list", "tuple_pattern", "list_pattern"})  # Python: a, b = ... / (a, b) = ...
_PY_VALUES = frozenset({"expression_list", "tuple", "list"})


class Def:
    """One captured definition while a file is being parsed."""

    __slots__ = ("node", "cap", "name", "body", "owner", "decl", "outer", "start", "enclosing",
                 "hidden", "raw", "alias", "parent", "kind", "subkind", "qual", "doc", "sig",
                 "members", "nid", "test", "blanket", "stub", "lead", "stubs", "bound")

    def __init__(self, node: ts.Node, cap: str, name: str, body: ts.Node | None, owner: list[str]):
        self.node = node
        self.cap = cap                   # definition kind from the query, or "namespace"
        self.name = name
        self.body = body
        self.owner = owner               # explicit scope parts (Go receiver, C++ A::B::f)
        self.decl = body is None         # declaration only (prototype, signature)
        self.outer = node
        self.start = node
        self.enclosing: Def | None = None
        self.hidden = False
        self.raw = ""
        self.alias: Def | None = None
        self.parent: Def | None = None
        self.kind = ""
        self.subkind: str | None = None
        self.qual = ""
        self.doc = ""
        self.sig = ""
        self.members: list[Def] = []
        self.nid = ""
        self.test = False                # a test: googletest's ``TEST_F(Fixture, Name) {``, ``pipeline.testblocks``' 
        self.blanket = ""                # a Rust blanket impl (``impl<E> Trait for E``): its type parameter
        self.stub = False                # a Python ``@overload`` stub
        self.lead = node                 # where its span starts: outer, or its first @overload stub's
        self.stubs: list[Def] = []       # the ``@overload`` stubs right above it, in order
        self.bound: ts.Node | None = None    # Python ``a = b = lambda`` / ``a, b = f, lambda``: its lambda


# -- names -----------------------------------------------------------------------------------------

_NAME_LEAVES = frozenset({"identifier", "field_identifier", "qualified_identifier", "destructor_name",
                          "operator_name", "template_function", "operator_cast", "type_identifier"})
_SCOPED_NAMES = frozenset({"qualified_identifier", "nested_namespace_specifier"})     # C++ a::b as a name


def _declarator_name(d: ts.Node | None) -> ts.Node | None:
    """Follow a C/C++ declarator chain down to the declared function's name (None if not a function)."""
    while d is not None:
        t = d.type
        if t == "function_declarator":
            inner = d.child_by_field_name("declarator")
            if inner is not None and inner.type in _NAME_LEAVES:
                return inner
            return None                        # e.g. a function pointer: (*fp)(int)
        if t in ("pointer_declarator", "reference_declarator", "attributed_declarator"):
            d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_child_count else None)
            continue
        return None
    return None


def _written(name: str) -> str:
    """A definition's name as written: a Kotlin or Scala one in backticks (``fun `total applies
    discount`()``, ``def `type```) is what stands between them, spaces kept (the JVM's name, so a
    frame finds it), unless a dot stands there: ``def `a.b``` keeps its backticks (``O.`a.b```), as
    a dot in a qualified name is nesting (``O.a.b`` would be b in a class a); any other loses its
    whitespace (C++ ``operator ()``)."""
    quoted = quoted_name(name)
    return quoted if quoted is not None else _WS.sub("", name)


def _split_scoped(name: str) -> list[str]:
    """``geo::Shape<T>::area`` -> ["geo", "Shape", "area"] (template arguments dropped)."""
    out: list[str] = []
    cur: list[str] = []
    depth = i = 0
    while i < len(name):
        ch = name[i]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == ":" and depth == 0 and name.startswith("::", i):
            out.append("".join(cur))
            cur = []
            i += 2
            continue
        elif depth == 0:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    parts = [_WS.sub("", p) for p in out]
    return [p for p in parts if p] or [name]


def _blanket_trait(impl: ts.Node, name: str, src: bytes) -> str | None:
    """The trait's name when Rust ``impl`` is a blanket one (``impl<E> Trait for E``: its type is
    one of its own type parameters), else None."""
    typ, params, trait = (impl.child_by_field_name(f) for f in ("type", "type_parameters", "trait"))
    if typ is None or typ.type != "type_identifier" or params is None or trait is None:
        return None
    for p in params.named_children:
        ident = p if p.type == "type_identifier" else next(
            (c for c in p.named_children if c.type == "type_identifier"), None)
        if ident is not None and text(src, ident.start_byte, ident.end_byte) == name:
            while trait.type in ("generic_type", "scoped_type_identifier"):
                inner = trait.child_by_field_name("type" if trait.type == "generic_type" else "name")
                if inner is None:
                    break
                trait = inner
            return text(src, trait.start_byte, trait.end_byte)
    return None


def _chain(stmt: ts.Node, assignment: str) -> tuple[list[ts.Node], ts.Node | None]:
    """The targets of a chained assignment statement (``a = b = value``), left to right, and its value."""
    node = stmt.named_children[0] if stmt.named_child_count else None
    targets: list[ts.Node] = []
    value = None
    while node is not None and node.type == assignment:
        left = node.child_by_field_name("left")
        if left is not None:
            targets.append(left)
        value = node = node.child_by_field_name("right")
    return targets, value


def _bound_lambdas(stmt: ts.Node) -> list[tuple[ts.Node, ts.Node]]:
    """(name, lambda) of each name a Python assignment statement binds to a lambda through a chain
    (``a = b = lambda x: ...``) or a tuple or list, element by element (``a, b = f, lambda y:
    ...``; nested ones too; a starred element makes the pairing unknown: none), or in parentheses
    (``f = (lambda x: ...)``, ``a, b = (lambda: 1), (lambda: 2)``: black wraps a long lambda so)."""
    targets, value = _chain(stmt, "assignment")
    out: list[tuple[ts.Node, ts.Node]] = []
    if value is None:
        return out

    def pair(target: ts.Node, val: ts.Node | None) -> None:
        while val is not None and val.type == "parenthesized_expression":     # (lambda x: ...)
            val = next((c for c in val.named_children if c.type != "comment"), None)
        if val is None:
            return
        if target.type == "identifier":
            if val.type == "lambda":
                out.append((target, val))
        elif target.type in _PY_TARGETS and val.type in _PY_VALUES:
            names = [c for c in target.named_children if c.type != "comment"]
            vals = [c for c in val.named_children if c.type != "comment"]
            if len(names) == len(vals) and not any(c.type in ("list_splat_pattern", "list_splat")
                                                   for c in (*names, *vals)):
                for t, v in zip(names, vals):
                    pair(t, v)

    for t in targets:
        pair(t, value)
    return out


def _bound_functions(stmt: ts.Node, src: bytes) -> list[tuple[ts.Node, str, list[str], ts.Node]]:
    """(name node, kind, owner, function) of each name a JavaScript/TypeScript chain binds to one
    function (``req.get = req.header = function header(name) {}``): ``obj.f`` a method of obj,
    ``F.prototype.f`` one of F, ``exports.f`` / ``module.exports.f`` a function; a plain variable
    or ``module.exports`` itself is no name here (``javascript.scm`` names the module's function)."""
    targets, value = _chain(stmt, "assignment_expression")
    if value is None or value.type not in ("function_expression", "arrow_function"):
        return []
    out: list[tuple[ts.Node, str, list[str], ts.Node]] = []
    for t in targets:
        obj, prop = t.child_by_field_name("object"), t.child_by_field_name("property")
        if t.type != "member_expression" or obj is None or prop is None or prop.type != "property_identifier":
            continue
        recv = text(src, obj.start_byte, obj.end_byte)
        if recv in ("exports", "module.exports"):
            out.append((prop, "function", [], value))
        elif obj.type == "identifier" and recv != "module":
            out.append((prop, "method", [recv], value))
        elif obj.type == "member_expression" and recv.endswith(".prototype") \
                and (o := obj.child_by_field_name("object")) is not None and o.type == "identifier":
            out.append((prop, "method", [text(src, o.start_byte, o.end_byte)], value))
    return out


def _module_values(imports: list[ts.Node], src: bytes) -> set[str]:
    """The names a JavaScript/TypeScript file makes its module's value: the statements
    ``ecmascript.scm`` captures as imports of kind value (``module.exports = api``, ``exports =
    module.exports = api``, ``export default api``)."""
    out: set[str] = set()
    for stmt in imports:
        if stmt.type == "export_statement":
            v = stmt.child_by_field_name("value")
        elif stmt.type == "expression_statement":
            v = stmt.named_children[0] if stmt.named_child_count else None
            while v is not None and v.type == "assignment_expression":
                v = v.child_by_field_name("right")
        else:
            continue
        if v is not None and v.type == "identifier":
            out.add(text(src, v.start_byte, v.end_byte))
    return out


def _bound_funcs(spec: ts.Node) -> list[tuple[ts.Node, ts.Node]]:
    """(name, func literal) of each name a Go ``var a, b = func() {...}, func() {...}`` binds to a
    function literal, paired element by element (``var a, b = f()``: none)."""
    names = spec.children_by_field_name("name")
    value = spec.child_by_field_name("value")
    vals = [c for c in value.named_children if c.type != "comment"] if value is not None else []
    if len(names) != len(vals):
        return []
    return [(n, v) for n, v in zip(names, vals) if v.type == "func_literal"]


def _holder(node: ts.Node) -> ts.Node:
    """The field declaration holding a Java anonymous class (its span, doc and signature)."""
    p = node.parent
    while p is not None and p.type not in _HOLDERS:
        p = p.parent
    return p or node


# -- the query -------------------------------------------------------------------------------------

def collect(lang: str, spec: languages.LanguageSpec, root: ts.Node, src: bytes,
            refs: tuple[list[ts.Node], list[ts.Node], list[ts.Node]] | None = None,
            path: str = "") -> tuple[list[Def], list[ts.Node]]:
    """Run the language's query: definitions (document order, nesting decided) and import nodes;
    with ``refs``, the call, base and typed-variable nodes too (appended to its three lists).
    ``path``: the file's, for the tests written as calls a test file holds (``pipeline.testblocks``)."""
    defs: dict[int, Def] = {}
    imports: dict[int, ts.Node] = {}
    valued: dict[int, str] = {}     # JS/TS ``const api = { f () {} }``: f's node -> api (kept if the module's value)
    callbacks: dict[int, Def] = {}  # a JS/TS test block's callback -> its block (a test inside nests in it)
    in_tests = testblocks.test_file(path)
    query = languages.query(lang) if refs is None else callrefs.query_with_refs(lang)
    for _, caps in ts.QueryCursor(query).matches(root):
        imp = caps.get("import")
        if imp:
            imports.setdefault(imp[0].id, imp[0])
            continue
        if "test.call" in caps or "test.macro" in caps:     # tests written as calls (pipeline.testblocks)
            tb = testblocks.block(caps, src, in_tests)
            if tb is not None and tb.node.id not in defs:
                defs[tb.node.id] = d = Def(tb.node, tb.cap, tb.name, tb.body, [])
                d.outer, d.test, d.sig = tb.outer, True, tb.sig
                if tb.callback is not None:
                    callbacks[tb.callback.id] = d
            continue
        got = caps.get("bound.lambda")
        if got:                    # Python: the names a chain or a tuple binds to lambdas
            for n, lam in _bound_lambdas(got[0]):
                body = lam.child_by_field_name("body")
                if body is not None and n.id not in defs:
                    defs[n.id] = d = Def(n, "lambda", text(src, n.start_byte, n.end_byte), body, [])
                    d.outer, d.bound = got[0], lam
            continue
        got = caps.get("bound.method")
        if got:                    # JavaScript/TypeScript: the names a chain binds to one function
            for n, cap, scope, fn in _bound_functions(got[0], src):
                body = fn.child_by_field_name("body")
                if body is not None and n.id not in defs:
                    defs[n.id] = d = Def(n, cap, text(src, n.start_byte, n.end_byte), body, scope)
                    d.outer, d.bound = got[0], fn
            continue
        got = caps.get("bound.func")
        if got:                    # Go: the names a var spec binds to func literals
            vs = got[0]
            stmt = vs.parent if vs.parent is not None and vs.parent.type == "var_declaration" else vs
            for n, fn in _bound_funcs(vs):
                body = fn.child_by_field_name("body")
                if body is not None and n.id not in defs:
                    defs[n.id] = d = Def(n, "function", text(src, n.start_byte, n.end_byte), body, [])
                    d.outer, d.bound = stmt, fn
            continue
        if refs is not None:
            got = caps.get("call")
            if got:
                refs[0].append(got[0])
                continue
            got = caps.get("base")
            if got:
                refs[1].append(got[0])
                continue
            got = caps.get("vartype")
            if got:
                refs[2].append(got[0])
                continue
        cap, node = "", None       # set together: node None means no definition capture
        for k, v in caps.items():
            if k.startswith("definition."):
                cap, node = k[11:], v[0]
                break
            if k == "scope.namespace":
                cap, node = "namespace", v[0]
                break
        if node is None or node.id in defs:
            continue
        body = caps["body"][0] if "body" in caps else node.child_by_field_name("body")
        owner: list[str] = []
        test: str | None = None
        if "declarator" in caps:
            nm = _declarator_name(caps["declarator"][0])
            if nm is None:
                continue
            parts = _split_scoped(text(src, nm.start_byte, nm.end_byte))
            name, owner = parts[-1], parts[:-1]
            if lang == "cpp" and name.isupper():       # gtest's TEST_F(Fixture, Name) {: `Fixture.Name`
                test = cppmacros.test_name(node, src)
                if test is None and body is None and cppmacros.macro_statement(node, name):
                    continue                            # `FRIEND_TEST(A, B);`: a macro, no member
                name = test or name
        elif "name" in caps:
            n = caps["name"][0]
            name = text(src, n.start_byte, n.end_byte)
            if n.type == "string":
                name = string_value(n, src)
            name = _written(name)
            if n.type in _SCOPED_NAMES:        # C++ `struct Outer::Inner {`, `namespace a::b {`
                parts = _split_scoped(name)
                name, owner = parts[-1], parts[:-1]
            if "receiver" in caps:
                r = caps["receiver"][0]
                owner = [text(src, r.start_byte, r.end_byte)]
        else:
            continue
        if not name:
            continue
        blanket = _blanket_trait(node, name, src) if cap == "impl" else None
        defs[node.id] = d = Def(node, cap, blanket or name, body, owner)
        d.test = test is not None or (lang == "rust" and cap == "function" and testblocks.rust_test_fn(node, src))
        if blanket:
            d.blanket = name
        if "value" in caps:
            valued[node.id] = text(src, caps["value"][0].start_byte, caps["value"][0].end_byte)
    if valued:
        values = _module_values(list(imports.values()), src)
        for nid, holder in valued.items():
            if holder not in values:
                del defs[nid]
    ordered = sorted(defs.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))
    for d in ordered:
        # the wrapper nodes (decorators, export, template, single declarations) belong to the def
        outer = d.outer             # its node (a name a chain or tuple binds: the statement)
        while outer.parent is not None and outer.parent.type in spec.wrapper_types:
            wrap = outer.parent
            if wrap.type in ("lexical_declaration", "variable_declaration", "type_declaration") \
                    and wrap.named_child_count != 1:
                break
            if wrap.type == "type_declaration" and wrap.child_count > 2:      # Go `type ( X int )`: a group
                break
            outer = wrap
        d.outer = d.lead = _holder(outer) if d.cap == "anonymous" else outer
        if outer.type == "decorated_definition" and any(
                _OVERLOAD.search(text(src, c.start_byte, c.end_byte)) for c in outer.named_children
                if c.type == "decorator"):
            d.decl = d.stub = True           # typing.overload stubs yield to the implementation
        # the innermost enclosing definition; hidden if any function body lies in between
        p = d.node.parent
        while p is not None:
            enc = defs.get(p.id)
            if enc is not None:
                d.enclosing = enc
                d.hidden = enc.hidden or enc.cap in ("function", "method", "macro", "lambda")
                break
            enc = callbacks.get(p.id)
            if enc is not None:          # in a test block's callback: a test nests, the rest is its code
                d.enclosing = enc
                d.hidden = enc.hidden or d.cap not in testblocks.CAPS
                break
            if p.type in spec.function_types:
                d.hidden = True
                break
            p = p.parent
    return [d for d in ordered if not d.hidden], list(imports.values())


# -- names, kinds, parents -------------------------------------------------------------------------

@overload                          # a def always resolves to a def (the end of its alias chain)
def _real(x: Def) -> Def: ...
@overload
def _real(x: Def | None) -> Def | None: ...


def _real(x: Def | None) -> Def | None:
    while x is not None and x.alias is not None:
        x = x.alias
    return x


def _absorb_stubs(defs: list[Def], stubs: list[Def]) -> None:
    """Each implementation takes the ``@overload`` stubs of its name standing right above it
    (``stubs``, which yield to it; comments between allowed): its ``lead`` becomes the first one's
    node, its ``stubs`` them in order. A stub elsewhere (apart from its implementation) stays dropped."""
    by_node = {s.outer.id: s for s in stubs}
    for d in defs:
        if d.decl or not by_node:
            continue
        sib = d.outer.prev_named_sibling
        while sib is not None:
            s = by_node.get(sib.id)
            if s is not None and s.raw == d.raw and s.kind == d.kind:
                d.lead = s.outer
                d.stubs.insert(0, s)
            elif sib.type != "comment":
                break
            sib = sib.prev_named_sibling


def _in_object(d: Def) -> bool:
    """A function written in a JavaScript/TypeScript object literal (``{ f () {}, g: () => 1 }``)."""
    parent = d.node.parent
    return d.node.type in ("pair", "method_definition") and parent is not None and parent.type == "object"


def resolve(defs: list[Def]) -> list[Def]:
    """Qualified names, kinds, parents, impl merging and duplicates; returns the emitted defs."""
    for d in defs:
        enc_raw = d.enclosing.raw if d.enclosing is not None else ""
        d.raw = ".".join(p for p in (enc_raw, *d.owner, d.name) if p)
        if d.blanket:                   # its own scope: neither merged nor a prototype's definition
            d.raw += f" for {d.blanket}"
    classes: dict[str, Def] = {}
    namespaces: set[str] = set()
    for d in defs:
        if d.cap in CLASS_KINDS and d.cap != "impl":
            classes.setdefault(d.raw, d)
        elif d.cap == "namespace":              # `namespace a::b` opens `a` too
            enc_raw = d.enclosing.raw if d.enclosing is not None else ""
            namespaces.update(".".join(p for p in (enc_raw, *d.owner[:i]) if p) for i in range(1, len(d.owner) + 1))
            namespaces.add(d.raw)
    for d in defs:                       # an impl of a type of this file is that type's node; one of a
        if d.cap == "impl":              # type defined elsewhere is a node of its own, block by block
            target = classes.get(d.raw)
            if target is not None:
                d.alias = target

    out: list[Def] = []
    for d in defs:
        if d.cap == "namespace" or d.alias is not None:
            continue
        enc = d.enclosing
        while enc is not None and enc.cap == "namespace":
            enc = enc.enclosing
        enc = _real(enc)
        if d.owner:
            scope = ".".join(p for p in ((d.enclosing.raw if d.enclosing else ""), *d.owner) if p)
            owner_cls = _real(classes.get(scope))
            d.parent = owner_cls if owner_cls is not None else enc
            member = owner_cls is not None or scope not in namespaces
        else:
            d.parent = enc
            member = enc is not None
        if d.cap in CLASS_KINDS:
            d.kind, d.subkind = "class", d.cap
        elif d.cap in FUNCTION_SUBKINDS:         # a lambda a class attribute holds is a method
            d.kind, d.subkind = "method" if d.cap == "lambda" and member else "function", d.cap
        else:
            d.kind = "method" if d.cap == "method" or member else "function"
        out.append(d)
    # a declaration yields to a definition with a body of the same kind and name
    with_body = {(d.kind, d.raw) for d in out if not d.decl}
    _absorb_stubs(out, [d for d in out if d.stub and (d.kind, d.raw) in with_body])
    out = [d for d in out if not (d.decl and (d.kind, d.raw) in with_body)]

    bases: dict[int, str] = {}

    def prefix(enc: Def | None) -> str:
        if enc is None:
            return ""
        if enc.cap == "namespace":
            return ".".join(p for p in (prefix(enc.enclosing), *enc.owner, enc.name) if p)
        enc = _real(enc)
        if enc.cap == "impl":           # an impl block's members are named by its type, unnumbered
            return bases.get(id(enc)) or enc.raw
        return enc.qual or enc.raw

    def late(d: Def) -> tuple[bool, bool, bool]:
        """A gtest test, then a blanket impl and what it holds, then a JavaScript/TypeScript object
        literal's function, are numbered after the rest: a test is ``Suite.Name#2`` beside its
        fixture's method ``Name``, an impl ``Trait#2`` beside the trait it implements, the
        module object's ``helper () {}`` ``helper#2`` beside the file's ``function helper``
        (whatever the source order: the statement's id, and a bare ``helper()``, stay its)."""
        blanket, p = False, d        # type: bool, Def | None
        while p is not None and not blanket:
            blanket, p = bool(p.blanket), p.parent
        return d.test, blanket, _in_object(d)

    seen: dict[tuple[str, str], int] = {}
    taken: set[str] = set()
    for d in sorted(out, key=late):
        base = ".".join(p for p in (prefix(d.enclosing), *d.owner, d.name) if p)
        bases[id(d)] = base
        n = seen.get((d.kind, base), 0) + 1
        while d.test and (base if n == 1 else f"{base}#{n}") in taken:     # unique across kinds too
            n += 1
        seen[(d.kind, base)] = n
        d.qual = base if n == 1 else f"{base}#{n}"
        taken.add(d.qual)
    for d in out:
        if d.parent is not None:
            d.parent.members.append(d)
    return out


__all__ = ["Def", "CLASS_KINDS", "FUNCTION_SUBKINDS", "collect", "resolve"]
