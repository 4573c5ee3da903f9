"""Raw import references read off a syntax tree, one reader per language (see pipeline.imports
for how they resolve to files). Split from pipeline.parse: these only read import statements."""

from __future__ import annotations

import functools
import re
import sys

import tree_sitter as ts

from pipeline.imports import VALUE, WHOLE, ImportRef
from pipeline.languages.jvmimports import imports_kotlin, imports_scala

_WS = re.compile(r"\s+")
# Modules of the standard library are never the repository's own packages (CPython's Lib aside):
# their attribute uses (os.path, t.Any, ...) are not scanned for, which keeps the parse cheap.
_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}


def _text(src: bytes, a: int, b: int) -> str:
    return src[a:b].decode("utf-8", "replace")


def string_value(node: ts.Node, src: bytes) -> str:
    for c in node.named_children:
        if c.type in ("string_fragment", "string_content", "interpreted_string_literal_content",
                      "raw_string_literal_content"):
            return _text(src, c.start_byte, c.end_byte)
    t = _text(src, node.start_byte, node.end_byte)
    return t[1:-1] if len(t) >= 2 else ""


# -- imports ---------------------------------------------------------------------------------------

def _dotted(node: ts.Node, src: bytes) -> str:
    return _WS.sub("", _text(src, node.start_byte, node.end_byte))


@functools.lru_cache(maxsize=1024)
def _uses_pattern(name: str) -> re.Pattern[bytes]:
    # starts with the literal name, so the search skips ahead fast (a leading look-behind would not)
    return re.compile(re.escape(name.encode()) + rb"[ \t]*\.[ \t]*([A-Za-z_]\w*)")


def attribute_uses(node: ts.Node, src: bytes, bound: list[str]) -> dict[str, list[str]]:
    """Name bound by an import -> the attributes the file reads off it (``flask.Flask`` ->
    ``Flask``), each once, in source order. A byte search finds the candidates; the tree keeps
    those that are code (``name.attr`` whose object is the name), not strings or comments."""
    out: dict[str, list[str]] = {}
    root = None
    for name in dict.fromkeys(bound):
        if (name + ".").encode() not in src:
            continue
        seen: dict[str, None] = {}
        for m in _uses_pattern(name).finditer(src):
            at = m.start()
            if at and (src[at - 1:at].isalnum() or src[at - 1] in b"_." or src[at - 1] >= 0x80):
                continue                                    # part of a longer name or a.b.name
            attr = m.group(1).decode()
            if attr in seen:
                continue
            if root is None:
                root = node
                while root.parent is not None:
                    root = root.parent
            ident = root.named_descendant_for_byte_range(at, at + len(name))
            obj = ident.parent.child_by_field_name("object") if ident is not None and \
                ident.parent is not None and ident.parent.type == "attribute" else None
            if obj is not None and obj.start_byte == at and obj.end_byte == at + len(name):
                seen[attr] = None
        if seen:
            out[name] = list(seen)
    return out


def _imports_python(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    if node.type == "import_statement":
        return _python_import(node, src, line, text)
    names: list[str] = []
    bound: list[str] = []
    for c in node.children_by_field_name("name"):
        n = c.child_by_field_name("name") if c.type == "aliased_import" else c
        a = c.child_by_field_name("alias") if c.type == "aliased_import" else None
        if n is not None:
            names.append(_dotted(n, src))
            bound.append(_text(src, a.start_byte, a.end_byte) if a is not None else names[-1])
    if any(c.type == "wildcard_import" for c in node.named_children):
        names.append("*")
        bound.append("*")
    if node.type == "future_import_statement":
        return [ImportRef("from", "__future__", tuple(names), line=line, text=text)]
    mod = node.child_by_field_name("module_name")
    if mod is None:
        return []
    level, target = 0, ""
    if mod.type == "relative_import":
        for c in mod.named_children:
            if c.type == "import_prefix":
                level = _text(src, c.start_byte, c.end_byte).count(".")
            elif c.type == "dotted_name":
                target = _dotted(c, src)
    else:
        target = _dotted(mod, src)
    # attributes read off an imported name that may be a module (`from pkg import sub; sub.X`);
    # CapWords names are classes by convention and are not scanned for
    uses: tuple[str, ...] = ()
    if level or target.split(".")[0] not in _STDLIB:
        scan = {b: n for n, b in zip(names, bound) if n != "*" and not b[:1].isupper()}
        got = attribute_uses(node, src, list(scan))
        uses = tuple(f"{scan[b]}.{a}" for b in scan for a in got.get(b, ()))
    glob = _globals(node, src)
    if glob:            # a function's own names, and those it declares ``global``: a record each
        split = [[i for i, b in enumerate(bound) if (b not in glob) == scoped] for scoped in (False, True)]
        return [ImportRef("from", target, tuple(names[i] for i in keep), level, line, text,
                          bound=tuple(bound[i] for i in keep) if any(bound[i] != names[i] for i in keep) else (),
                          uses=tuple(u for u in uses if u.partition(".")[0] in {names[i] for i in keep}),
                          scoped=bool(scoped)) for scoped, keep in enumerate(split) if keep]
    return [ImportRef("from", target, tuple(names), level, line, text,
                      bound=tuple(bound) if bound != names else (), uses=uses, scoped=glob is not None)]


def _python_import(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    """``import a``, ``import a.b``, ``import a.b as c``: one record a module, with the name an
    ``as`` binds (``bound``) and the attributes the file reads off the name it is used by (``c``;
    ``a.b`` as written, ``a.b.f()``: ``import a.b`` binds the package ``a``, not the module)."""
    found: list[tuple[str, str | None, str]] = []
    for c in node.children_by_field_name("name"):
        n = c.child_by_field_name("name") if c.type == "aliased_import" else c
        a = c.child_by_field_name("alias") if c.type == "aliased_import" else None
        if n is not None:
            target = _dotted(n, src)
            alias = _text(src, a.start_byte, a.end_byte) if a is not None else ""
            found.append((target, (alias or target) if target.split(".")[0] not in _STDLIB else None, alias))
    uses = attribute_uses(node, src, [b for _, b, _ in found if b])
    glob = _globals(node, src)
    return [ImportRef("import", t, line=line, text=text, bound=(alias,) if alias else (),
                      uses=tuple(uses.get(b, ())) if b else (),
                      scoped=glob is not None and (alias or t.split(".")[0]) not in glob)
            for t, b, alias in found]


_SCOPES = ("function_definition", "class_definition")


def _globals(node: ts.Node, src: bytes) -> frozenset[str] | None:
    """Where a Python import binds its names: None at the module's top; in a function's or class's
    body (its innermost one), there, not as an attribute of the module (a package ``__init__``'s
    ``def setup(): from .impl import run`` re-exported ``run`` to every ``from pkg import run``),
    but for the names that body declares ``global``, returned here (``def _load(): global impl;
    import lz.impl as impl``: a lazy import of the module's ``impl``). A module's own ``def
    __getattr__`` (PEP 562) is the module's top: what it imports is what ``from pkg import run``
    gets there (a lazy package's names linked nowhere)."""
    scope = node.parent
    while scope is not None and scope.type not in _SCOPES:
        scope = scope.parent
    if scope is None or _module_getattr(scope, src):
        return None
    if b"global" not in src[scope.start_byte:scope.end_byte]:
        return frozenset()
    declared: set[str] = set()
    todo = [c for c in scope.named_children if c.type == "block"]
    while todo:                                     # its body, not the bodies of its nested defs
        n = todo.pop()
        if n.type == "global_statement":
            declared.update(_text(src, c.start_byte, c.end_byte) for c in n.named_children if c.type == "identifier")
        elif n.type not in _SCOPES:
            todo.extend(n.named_children)
    return frozenset(declared)


def _module_getattr(scope: ts.Node, src: bytes) -> bool:
    """Whether SCOPE is a module's ``def __getattr__`` (no function or class around it)."""
    name = scope.child_by_field_name("name")
    if scope.type != "function_definition" or name is None or _text(src, name.start_byte, name.end_byte) != "__getattr__":
        return False
    p = scope.parent
    while p is not None and p.type not in _SCOPES:
        p = p.parent
    return p is None


def _js_names(node: ts.Node, src: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the names an ES import or ``export ... from`` takes from its module, the names they have
    here): ``import d, {a as b} from`` -> (default, a), (d, b); ``import * as F`` -> (*), (F);
    ``export {A as B} from`` -> (A), (B); ``export * from`` -> (*), (*): every name of that module,
    re-exported. For ``pipeline.calls``: ``pct(1)`` after ``{percent as pct}`` is ``percent``."""
    names: list[str] = []
    bound: list[str] = []

    def add(name: ts.Node | None, alias: ts.Node | None) -> None:
        if name is not None:
            names.append(_text(src, name.start_byte, name.end_byte))
            bound.append(_text(src, alias.start_byte, alias.end_byte) if alias is not None else names[-1])

    for c in node.named_children:
        if c.type == "import_clause":
            for k in c.named_children:
                if k.type == "identifier":
                    names.append("default")
                    bound.append(_text(src, k.start_byte, k.end_byte))
                elif k.type == "namespace_import":
                    add(k.child(0), k.named_children[-1] if k.named_child_count else None)
                elif k.type == "named_imports":
                    for s in k.named_children:
                        if s.type == "import_specifier":
                            add(s.child_by_field_name("name"), s.child_by_field_name("alias"))
        elif c.type == "namespace_export":          # export * as N from
            add(c.child(0), c.named_children[-1] if c.named_child_count else None)
        elif c.type == "export_clause":
            for s in c.named_children:
                if s.type == "export_specifier":
                    add(s.child_by_field_name("name"), s.child_by_field_name("alias"))
    if node.type == "export_statement" and not names and any(c.type == "*" for c in node.children):
        names, bound = ["*"], ["*"]                 # export * from
    return tuple(names), tuple(bound)


def _module_value(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    """A statement making a definition of the file its module's value (``VALUE``): ``module.exports
    = f`` and ``exports = module.exports = f`` (CommonJS: bound as ``module.exports``, express's
    ``createApplication``), ``export default f`` (bound as ``default``); else nothing."""
    if node.type == "export_statement":
        v = node.child_by_field_name("value")
        if v is None or v.type != "identifier" or node.child_by_field_name("source") is not None:
            return []
        return [ImportRef(VALUE, "", (_text(src, v.start_byte, v.end_byte),), line=line, text=text, bound=("default",))]
    a = node.named_children[0] if node.named_child_count else None
    cjs = False
    while a is not None and a.type == "assignment_expression":
        left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
        cjs = cjs or (left is not None and _text(src, left.start_byte, left.end_byte) == "module.exports")
        if right is not None and right.type == "identifier":
            return [ImportRef(VALUE, "", (_text(src, right.start_byte, right.end_byte),), line=line, text=text,
                              bound=("module.exports",))] if cjs else []
        a = right
    return []


def _imports_js(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    if node.type == "expression_statement" or (node.type == "export_statement"
                                               and node.child_by_field_name("value") is not None):
        return _module_value(node, src, line, text)
    if node.type in ("import_statement", "export_statement"):
        s = node.child_by_field_name("source")
        kind = "import" if node.type == "import_statement" else "export"
        req = None
        if s is None:                        # TS: import x = require("y"), x the module
            req = next((c for c in node.named_children if c.type == "import_require_clause"), None)
            s = req.child_by_field_name("source") if req is not None else None
            kind = "require"
        if s is None:
            return []
        names, bound = _js_names(node, src) if req is None else ((), ())
        if req is not None and req.named_child_count and (x := req.named_children[0]).type == "identifier":
            names, bound = ("*",), (_text(src, x.start_byte, x.end_byte),)
        return [ImportRef(kind, string_value(s, src), names, line=line, text=text,
                          bound=bound if bound != names else ())]
    if node.type == "import_require_clause":
        if node.parent is not None and node.parent.type == "import_statement":
            return []                        # handled with its statement
        s = node.child_by_field_name("source")
        return [ImportRef("require", string_value(s, src), line=line, text=text)] if s is not None else []
    args = node.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_child_count else None
    if first is None or first.type != "string":
        return []
    fn = node.child_by_field_name("function")
    kind = "dynamic" if fn is not None and fn.type == "import" else "require"
    if kind == "require" and _module_is(node, src):      # the module is that one: all it exports
        return [ImportRef("export", string_value(first, src), WHOLE, line=line, text=text, bound=WHOLE)]
    names, bound = _required_names(node, src) if kind == "require" else ((), ())
    return [ImportRef(kind, string_value(first, src), names, line=line, text=text,
                      bound=bound if bound != names else ())]


def _required_names(call: ts.Node, src: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a ``require(...)`` declaring a variable binds, as ``_js_names`` reads an ES import:
    ``const x = require('./m')`` -> (*), (x), the module (as ``import * as x``, whatever ``x`` is
    named: express's tests ``var express = require('..')``); ``const {a, b: c} = require('./m')``
    -> (a, b), (a, c); else nothing (``require('./m').f()``, ``x.y = require(...)``)."""
    p = call.parent
    if p is None or p.type != "variable_declarator" or p.child_by_field_name("value") != call:
        return (), ()
    left = p.child_by_field_name("name")
    if left is None:
        return (), ()
    if left.type == "identifier":
        return ("*",), (_text(src, left.start_byte, left.end_byte),)
    names: list[str] = []
    bound: list[str] = []
    if left.type == "object_pattern":
        for c in left.named_children:
            if c.type == "shorthand_property_identifier_pattern":
                names.append(_text(src, c.start_byte, c.end_byte))
                bound.append(names[-1])
            elif c.type == "pair_pattern":
                k, v = c.child_by_field_name("key"), c.child_by_field_name("value")
                if k is not None and v is not None and k.type == "property_identifier" and v.type == "identifier":
                    names.append(_text(src, k.start_byte, k.end_byte))
                    bound.append(_text(src, v.start_byte, v.end_byte))
    return tuple(names), tuple(bound)


def _module_is(call: ts.Node, src: bytes) -> bool:
    """Whether a ``require(...)`` is what the module exports, whole: ``module.exports =
    require('./lib/express')`` (also ``exports = module.exports = require(...)``) at its top."""
    p = call.parent
    if p is None or p.type != "assignment_expression" or p.child_by_field_name("right") != call:
        return False
    left = p.child_by_field_name("left")
    if left is None or _text(src, left.start_byte, left.end_byte) != "module.exports":
        return False
    while p.parent is not None and p.parent.type == "assignment_expression":
        p = p.parent
    return p.parent is not None and p.parent.type == "expression_statement" and \
        p.parent.parent is not None and p.parent.parent.type == "program"


def _imports_c(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    p = node.child_by_field_name("path")
    if p is None:
        return []
    if p.type == "system_lib_string":
        return [ImportRef("angle", _text(src, p.start_byte, p.end_byte).strip()[1:-1], line=line, text=text)]
    if p.type == "string_literal":
        return [ImportRef("quote", string_value(p, src), line=line, text=text)]
    return []


def _imports_go(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    p = node.child_by_field_name("path")
    if p is None:
        return []
    # c "example.com/shop/pkg/cart": the package is ``c`` here (not ``_``, ``.``: no name to call through)
    a = node.child_by_field_name("name")
    alias = _text(src, a.start_byte, a.end_byte) if a is not None and a.type == "package_identifier" else ""
    return [ImportRef("import", string_value(p, src), line=line, text=text, bound=(alias,) if alias else ())]


def _imports_java(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    target = ""
    static = wildcard = False
    for c in node.children:
        if c.type == "static":
            static = True
        elif c.type == "asterisk":
            wildcard = True
        elif c.type in ("scoped_identifier", "identifier"):
            target = _dotted(c, src)
    if not target:
        return []
    return [ImportRef("static" if static else "import", target, ("*",) if wildcard else (), line=line, text=text)]


def _use_paths(node: ts.Node | None, src: bytes, prefix: str, out: list[tuple[str, bool, str]]) -> None:
    """The paths a ``use`` names: (path, a glob, the name ``as`` binds or "")."""
    if node is None:
        return
    t = node.type
    join = (lambda a, b: f"{a}::{b}" if a and b else a or b)
    if t in ("scoped_identifier", "identifier", "crate", "self", "super", "metavariable"):
        out.append((join(prefix, _dotted(node, src)), False, ""))
    elif t == "use_as_clause":
        a = node.child_by_field_name("alias")
        path = node.child_by_field_name("path")
        if path is not None:
            out.append((join(prefix, _dotted(path, src)), False, _text(src, a.start_byte, a.end_byte) if a else ""))
    elif t == "use_wildcard":
        inner = node.named_children[0] if node.named_child_count else None
        out.append((join(prefix, _dotted(inner, src)) if inner is not None else prefix, True, ""))
    elif t == "scoped_use_list":
        p = node.child_by_field_name("path")
        _use_paths(node.child_by_field_name("list"), src, join(prefix, _dotted(p, src)) if p else prefix, out)
    elif t == "use_list":
        for c in node.named_children:
            _use_paths(c, src, prefix, out)


def _inline_mods(node: ts.Node) -> int:
    """How many inline ``mod x { ... }`` blocks hold ``node``."""
    k, p = 0, node.parent
    while p is not None:
        if p.type == "mod_item":
            k += 1
        p = p.parent
    return k


def _in_inline_mod(path: str, depth: int) -> str:
    """A ``use`` path written ``depth`` inline modules deep, as seen from the file's module: each
    leading ``super`` climbs one inline module first (``mod tests { use super::*; }``: the file's
    own module, ``self``, not its parent)."""
    segs = path.split("::")
    k = 0
    while k < min(depth, len(segs)) and segs[k] == "super":
        k += 1
    return "::".join(["self", *segs[k:]]) if k else path


def _imports_rust(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    if node.type == "mod_item":
        n = node.child_by_field_name("name")
        return [ImportRef("mod", _text(src, n.start_byte, n.end_byte), line=line, text=text)] if n else []
    if node.type == "extern_crate_declaration":
        n = node.child_by_field_name("name")
        return [ImportRef("extern", _text(src, n.start_byte, n.end_byte), line=line, text=text)] if n else []
    paths: list[tuple[str, bool, str]] = []
    _use_paths(node.child_by_field_name("argument"), src, "", paths)
    depth = _inline_mods(node)
    return [ImportRef("use", _in_inline_mod(p, depth) if depth else p, ("*",) if glob else (), line=line, text=text,
                      bound=(alias,) if alias else ()) for p, glob, alias in paths if p]


IMPORTS = {"python": _imports_python, "javascript": _imports_js, "typescript": _imports_js,
            "tsx": _imports_js, "c": _imports_c, "cpp": _imports_c, "go": _imports_go,
            "java": _imports_java, "rust": _imports_rust, "kotlin": imports_kotlin, "scala": imports_scala}


__all__ = ["IMPORTS", "string_value", "attribute_uses"]
