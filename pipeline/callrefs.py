"""Call sites and base classes as written, per definition: the raw input of ``calls`` and
``inherits`` edges (``pipeline.calls`` resolves them to nodes once every file is known).

A call is recorded as (name, receiver, line): ``h()`` -> ("h", ""), ``self.g()`` -> ("g", "self"),
``this.g()`` -> ("g", "this") (the own object as written: Python's ``cls``, Rust's ``Self``, a Go
method's receiver variable, ``h.Store.Get()`` -> ("Get", "h.Store"), the method's ``meta["self"]``
naming it; ``pipeline.calls`` reads each as ``self``), ``mod.k()`` / ``Mod::k()`` /
``ns::k()`` -> ("k", "mod"), ``a.b.c()`` -> ("c", "a.b"), ``super().m()`` -> ("m", "super"),
anything else before the name (a call's result, an index) -> ("m", "."); ``new Foo()`` and
``Foo()`` (Scala ``new Foo``) are calls of ``Foo``. A base class (``class A(B, m.C)``, ``extends``,
``implements``, C++ base clauses, a Go struct's embedded type, a Rust ``impl Trait for Type``,
Kotlin ``class A : B(), I``, Scala ``extends B with T``) is (name, receiver) the same way. Kotlin's
and Scala's nodes are read by ``vartypes.jvm_split`` (``x!!.f()`` -> ("f", "x"),
``Pricer.Companion.of()`` -> ("of", "Pricer"), ``this@Outer.f()`` -> ("f", "."): not surely self). A Rust macro's arguments are read for calls (``assert_eq!(f(x), 1)``:
``pipeline.macrocalls``); a Java call also records its arguments' count and the types the syntax
says, and an overloaded method its parameters (``arity``, ``params``: ``pipeline.javaargs``), so
``pipeline.calls`` can tell overloads apart. A call belongs to the innermost emitted
definition around it (a closure's calls are its function's, as its text is); calls outside every
definition are the file's. The same pass records
each definition's typed variables and declared return type (``pipeline.vartypes``) beside them.

Only syntax is read here (query patterns per language, run with the tags query); nothing is resolved.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Callable

import tree_sitter as ts

from pipeline import javaargs, languages, vartypes
from pipeline.exprnames import SELF, Owners, split, text
from pipeline.macrocalls import macro_calls, written_receiver
from pipeline.testblocks import head_calls


MAX_CALLS = 256          # distinct (name, receiver) pairs kept per definition: a generated table's
                         # thousands of calls add nothing a walk could page through usefully
MAX_BASES = 16
HEADED = ("javascript", "typescript", "tsx")     # test blocks whose head call is no call they make
ARITY = ("java",)         # overloads told apart by a call's argument count: its calls record it
_OVERLOAD = re.compile(r"#\d+$")

_JS_CALLS = "(call_expression function: (_) @call) (new_expression constructor: (_) @call)"
_CALLS = {
    "python": "(call function: (_) @call)",
    "javascript": _JS_CALLS, "typescript": _JS_CALLS, "tsx": _JS_CALLS,
    "go": "(call_expression function: (_) @call)",
    "java": "(method_invocation) @call (object_creation_expression type: (_) @call)",
    "rust": "(call_expression function: (_) @call) (macro_invocation) @call",
    "c": "(call_expression function: (_) @call)",
    "cpp": "(call_expression function: (_) @call) (new_expression type: (_) @call)",
    "kotlin": "(call_expression . (_) @call)",                     # Cart(), cart.total(): no field names the callee
    "scala": "(call_expression function: (_) @call) "
             "(instance_expression . [(type_identifier) (generic_type) (stable_type_identifier) (compound_type)] @call)",
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
    "kotlin": "(delegation_specifier (user_type) @base) (delegation_specifier (constructor_invocation (user_type) @base)) "
              "(delegation_specifier (explicit_delegation (user_type) @base))",    # class A : B(), I, J by j
    "scala": "(extends_clause [(type_identifier) (generic_type) (stable_type_identifier)] @base) "     # B with T / B, T
             "(extends_clause (compound_type [(type_identifier) (generic_type) (stable_type_identifier)] @base))",  # B, T with U
}


def query_with_refs(lang: str) -> ts.Query:
    """The language's tags query and ``patterns``: definitions, imports, calls, bases and typed
    variables in one pass."""
    got = _QUERIES.get(lang)
    if got is None:
        got = _QUERIES[lang] = ts.Query(languages.language(lang), languages.query_source(lang) + "\n" + patterns(lang))
    return got


_QUERIES: dict[str, ts.Query] = {}      # per process (not picklable: a Ray worker builds its own)


def attach(lang: str, src: bytes, defs: list, emitted: list,
           refs: tuple[list[ts.Node], list[ts.Node], list[ts.Node]], nodes: list[dict]) -> None:
    """Each definition's calls and bases (``collect`` of the nodes ``query_with_refs`` captured,
    ``refs``), typed variables and return type (``pipeline.vartypes``) into its node's ``meta``, and ``"decl": 1`` for a body-less declaration (a C
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
    # a name a chain or tuple binds to a lambda (``a, b = f(), lambda v: g(v)``) owns what its
    # lambda holds, not the whole statement (its neighbours' lambdas, ``f()``)
    spans = [(b.start_byte, b.end_byte) if (b := d.bound) is not None else (d.outer.start_byte, d.outer.end_byte)
             for d in emitted]
    types = vartypes.collect_types(src, spans, refs[2], lang)
    typed_at = [_positions_of(t) for t in types]
    counted = lang in ARITY
    heads = head_calls(defs) if lang in HEADED else set()
    found = [c for c in refs[0] if c.id not in heads] if heads else refs[0]
    calls, bases = collect(src, spans, found, refs[1], receivers, classes, typed_at, refs[2] if counted else None,
                           vartypes.jvm_split if lang in vartypes.JVM else split)
    _share_lambdas(emitted, calls, types)
    overloaded = _overloaded(emitted) if counted else set()
    for i, (d, node) in enumerate(zip(emitted, nodes[1:])):
        meta: dict = {}
        if i in overloaded and (got := javaargs.parameters(src, d.node)) is not None:
            meta["arity"], meta["params"] = got
        if calls[i]:
            meta["calls"] = calls[i]
        if bases[i]:
            meta["bases"] = bases[i]
        if types[i]:
            meta["types"] = types[i]
        ret = vartypes.returns(lang, src, d.node) if d.kind != "class" else None
        if ret:
            meta["returns"] = ret
        if d.decl and not (d.kind == "class" and lang in vartypes.JVM):    # data class Item(val n: Int): whole
            meta["decl"] = 1
        me = receivers.get(i) if receivers else None
        if me and any(_head(c[1]) == me for c in calls[i]):
            meta["self"] = me           # the receiver its calls are written with: ``pipeline.calls`` reads it as self
        if meta:
            node["meta"] = json.dumps(meta, ensure_ascii=False, separators=(",", ":"))
    top = {k: v for k, v in (("calls", calls[-1]), ("types", types[-1])) if v}
    if top:
        nodes[0]["meta"] = json.dumps(top, ensure_ascii=False, separators=(",", ":"))


DECL = '"decl":1'           # how a declaration's ``meta`` says so (a substring test: no JSON parse)


def _share_lambdas(emitted: list, calls: list[list[list]], types: list[list[list]]) -> None:
    """The names a chain binds to one lambda (``a = b = lambda x: g(x)``) share its calls and
    typed variables: their spans are the same, and a call goes to one definition only."""
    by_lambda: dict[int, list[int]] = {}
    for i, d in enumerate(emitted):
        if d.bound is not None:
            by_lambda.setdefault(d.bound.id, []).append(i)
    for group in by_lambda.values():
        if len(group) > 1:
            have = next((k for k in group if calls[k] or types[k]), group[-1])
            for k in group:
                calls[k], types[k] = calls[have], types[have]


def _overloaded(emitted: list) -> set[int]:
    """Indexes of the definitions that share kind and name with another of the file (Java
    overloads: ``Gson.toJson``, ``Gson.toJson#2``...)."""
    seen: dict[tuple[str, str], list[int]] = {}
    for i, d in enumerate(emitted):
        if d.kind != "class":
            seen.setdefault((d.kind, _OVERLOAD.sub("", d.qual)), []).append(i)
    return {i for got in seen.values() if len(got) > 1 for i in got}




def patterns(lang: str) -> str:
    """The query patterns (captures ``@call``, ``@base``, ``@vartype``) that ``pipeline.parse``
    appends to the language's tags query: one pass over the tree for all (a query of its own cost
    as much as the tags query again, ~+25% of the parse)."""
    return "\n".join(p for p in (_CALLS.get(lang), _BASES.get(lang), vartypes.TYPES.get(lang)) if p)


def _positions_of(types: list[list]) -> dict[str, list[int]]:
    """Variable -> the byte positions its typings take effect at (ascending), from one span's
    ``vartypes`` records."""
    out: dict[str, list[int]] = {}
    for var, _, _, _, pos in types:
        out.setdefault(var, []).append(pos)
    return out


def collect(src: bytes, spans: list[tuple[int, int]], found_calls: list[ts.Node], found_bases: list[ts.Node],
            receivers: dict[int, str] | None = None, classes: dict[int, int] | None = None,
            typed_at: list[dict[str, list[int]]] | None = None, typed: list[ts.Node] | None = None,
            names: Callable[[bytes, ts.Node], tuple[str, str]] = split) -> tuple[list[list[list]], list[list[list]]]:
    """Per definition span (index into ``spans``, plus one more for the file): its distinct calls
    ``[name, receiver, line]`` in source order, and its bases ``[name, receiver]``, from the nodes
    the ``patterns`` captured.
    ``receivers``: span index -> the receiver variable that means ``self`` in it (Go methods);
    ``classes``: the emitted classes' tree nodes (``Node.id``) -> span index: a base belongs to the
    class whose declaration holds it (a class hidden in a function body is no node: its bases
    are nobody's). ``typed_at``: per span, the positions each variable's typings take effect at;
    a call is distinct per typing of its receiver (``x.m()`` before and after ``x = B()`` are two,
    so each resolves with the class it has there) and records its byte position
    (``[name, receiver, line, position]``). ``typed`` (the typed-variable nodes, given for the
    ``ARITY`` languages): a call also records how many arguments it passes and their types where
    the syntax says them (``[..., position, count, "String,Class"]``, ``pipeline.javaargs``), and
    is distinct per those (``add(x)`` and ``add(x, 2)`` may reach two overloads). A Rust macro's
    arguments (``assert_eq!(f(x), 2)``) are read for the calls they hold (``pipeline.macrocalls``).
    ``names``: how a callee or base reads as (name, receiver) (``vartypes.jvm_split`` for Kotlin
    and Scala, whose nodes ``exprnames.split`` does not know)."""
    n = len(spans)
    calls: list[list[list]] = [[] for _ in range(n + 1)]
    bases: list[list[list]] = [[] for _ in range(n + 1)]
    owners = Owners([(a, -b, i) for i, (a, b) in enumerate(spans)])
    declared = javaargs.Declared(src, typed, owners.at) if typed is not None else None
    if found_calls:
        seen: list[set] = [set() for _ in range(n + 1)]
        for node, name, recv in _sites(src, sorted(found_calls, key=lambda x: x.start_byte), names):
            k = owners.at(node.start_byte)
            me = receivers.get(k) if receivers and recv else None
            written = ""            # a Go receiver's variable as the code writes it (h.Store), read as self
            if me and (recv == me or recv.startswith(me + ".")):
                written, recv = recv, "self" + recv[len(me):]   # e.router (a Go receiver's field): self.router
            slot = k if k >= 0 else n
            line, pos = node.start_point.row + 1, node.start_byte
            at = typed_at[slot].get(recv) if typed_at is not None and recv else None
            args = javaargs.arguments(src, node, declared, k) if declared is not None else None
            key = (name, recv, bisect.bisect_left(at, pos) if at else 0, args)    # the typings in effect before it
            if key in seen[slot] or len(calls[slot]) >= MAX_CALLS:
                continue
            seen[slot].add(key)
            site: list = [name, written or _as_written(src, node, recv), line, pos]
            if args is not None:
                site.append(args[0])
                if args[1]:
                    site.append(args[1])
            calls[slot].append(site)
    if found_bases:
        for node in sorted(found_bases, key=lambda x: x.start_byte):
            if node.type == "access_specifier":
                continue
            name, recv = names(src, node)
            k = _declaring(node, classes or {})
            if name and k >= 0 and len(bases[k]) < MAX_BASES and [name, recv] not in bases[k]:
                bases[k].append([name, recv])
    return calls, bases


def _head(recv: str) -> str:
    return recv.partition(".")[0]


def _as_written(src: bytes, node: ts.Node, recv: str) -> str:
    """The receiver the way the code writes it where ``self`` stands for it (``pipeline.exprnames``
    reads ``this``, ``cls`` and ``Self`` so; ``collect`` keeps a Go method's receiver variable as
    written itself): ``this.subtotal()`` is ("subtotal", "this"), so the call's ``as`` says what
    the code says; ``pipeline.calls`` reads it as ``self`` again. The written word is the callee
    expression's leftmost token; a macro argument's call, given by its name's token, is read off
    the tokens before it (``println!("{}", Self::helper(x))``: ``Self``, as outside a macro)."""
    if not (recv == "self" or recv.startswith("self.")):
        return recv
    if node.parent is not None and node.parent.type == "token_tree":
        return written_receiver(src, node)
    if not node.named_child_count:
        return recv
    head = node
    while head.named_child_count and (first := head.named_child(0)) is not None:
        head = first
    word = text(src, head)
    return word + recv[4:] if word in SELF else recv


def _sites(src: bytes, found: list[ts.Node], names: Callable[[bytes, ts.Node], tuple[str, str]] = split):
    """(node, name, receiver) of each captured call that names something, a macro's calls in place."""
    for node in found:
        if node.type == "macro_invocation":
            yield from macro_calls(src, node)
            continue
        name, recv = names(src, node)
        if name:
            yield node, name, recv


_DECLARATIONS = frozenset({"class_definition", "class_declaration", "class", "class_specifier", "struct_specifier",
                           "interface_declaration", "abstract_class_declaration", "enum_declaration",
                           "type_declaration", "struct_item", "trait_item", "impl_item",
                           "object_declaration", "companion_object", "object_literal",      # kotlin
                           "object_definition", "trait_definition", "enum_definition"})     # scala


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
            return text(src, nm)
    return ""


__all__ = ["query_with_refs", "attach", "patterns", "collect", "go_receiver", "DECL", "MAX_CALLS", "MAX_BASES"]
