"""Kotlin's and Scala's import statements as ``ImportRef`` records (``pipeline.importrefs`` holds
one such reader per language; ``pipeline.imports`` resolves them to files, through
``languages.jvmpackages``).

Both read like Java's: the target is the dotted path as written (kind ``import``), a wildcard
(Kotlin ``a.b.*``; Scala ``a.b._``, ``a.b.*``, ``a.b.given``) is the package with names ``("*",)``,
and a rename binds its new name (``bound``: Kotlin ``import a.b.C as D``, Scala ``a.b.{C => D}`` or
``{C as D}``). Scala's selectors make one record each (``import a.b.{C, D}``: ``a.b.C``, ``a.b.D``),
as do the paths of ``import a.b.C, d.e.F``; a hidden name (``{C => _}``) is no import.

A file's own package is a record too (kind ``package``, no import): its name, and as ``names`` what
the file declares at its top (classes, objects, functions, properties, type aliases): neither
language keeps one class per file, so ``import a.b.Money`` finds the file declaring ``Money`` in
package ``a.b`` by these (a Scala file's nested or chained ``package`` clauses: one record each).
"""

from __future__ import annotations

import tree_sitter as ts

from pipeline.imports import ImportRef
from pipeline.languages.jvmpackages import PACKAGE
# top-level declarations and the field naming them
_KOTLIN_DECLS = {"class_declaration": "name", "object_declaration": "name", "function_declaration": "name",
                 "type_alias": "type"}
_SCALA_DECLS = {"class_definition": "name", "object_definition": "name", "trait_definition": "name",
                "enum_definition": "name", "type_definition": "name", "function_definition": "name",
                "function_declaration": "name", "given_definition": "name", "package_object": "name",
                "val_definition": "pattern", "var_definition": "pattern", "val_declaration": "name",
                "var_declaration": "name"}


def _text(node: ts.Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _dotted(node: ts.Node) -> str:
    return ".".join(_text(c) for c in node.named_children if c.type == "identifier") or _text(node)


def imports_kotlin(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    """``import a.b.C``, ``import a.b.*``, ``import a.b.C as D``; the file's ``package``."""
    if node.type == "package_header":
        return _kotlin_package(node, line, text)
    path = next((c for c in node.named_children if c.type in ("qualified_identifier", "identifier")), None)
    if path is None:
        return []
    target = _dotted(path)
    if any(c.type == "*" for c in node.children):
        return [ImportRef("import", target, ("*",), line=line, text=text)]
    alias = next((c for c in node.named_children if c.type == "identifier" and c is not path), None)
    return [ImportRef("import", target, line=line, text=text, bound=(_text(alias),) if alias is not None else ())]


def _kotlin_package(node: ts.Node, line: int, text: str) -> list[ImportRef]:
    path = next((c for c in node.named_children if c.type in ("qualified_identifier", "identifier")), None)
    if path is None or node.parent is None:
        return []
    names: list[str] = []
    for d in node.parent.named_children:
        if d.type == "property_declaration":       # val x = ... (a destructuring one declares none here)
            v = next((c for c in d.named_children if c.type == "variable_declaration"), None)
            if v is not None and v.named_child_count and v.named_children[0].type == "identifier":
                names.append(_text(v.named_children[0]))
        elif d.type in _KOTLIN_DECLS and (n := d.child_by_field_name(_KOTLIN_DECLS[d.type])) is not None:
            names.append(_text(n))
    return _package(_dotted(path), names, line, text)


def _package(name: str, names: list[str], line: int, text: str) -> list[ImportRef]:
    names = [n for n in dict.fromkeys(names) if n]
    return [ImportRef(PACKAGE, name, tuple(names), line=line, text=text)] if name and names else []


def imports_scala(node: ts.Node, src: bytes, line: int, text: str) -> list[ImportRef]:
    """``import a.b.C``, ``a.b._`` / ``a.b.*`` / ``a.b.given``, ``a.b.{C, D => E, F as G, _}``,
    ``import a.b.C, d.e.F`` (Scala 3): a record per name (a wildcard: the package, ``*``); a
    ``package`` clause: the file's package record."""
    if node.type == "package_clause":
        return _scala_package(node, line, text)
    out: list[ImportRef] = []
    parts: list[str] = []

    def one(target: str, names: tuple[str, ...] = (), alias: str = "") -> None:
        out.append(ImportRef("import", target, names, line=line, text=text, bound=(alias,) if alias else ()))

    for c in node.children:
        t = c.type
        if t == "identifier":
            parts.append(_text(c))
        elif t == "namespace_wildcard":
            one(".".join(parts), ("*",))
            parts = []
        elif t == "namespace_selectors":
            base = ".".join(parts)
            for s in c.children:
                if s.type == "identifier":
                    one(f"{base}.{_text(s)}")
                elif s.type in ("arrow_renamed_identifier", "as_renamed_identifier"):
                    name, alias = s.child_by_field_name("name"), s.child_by_field_name("alias")
                    if name is not None and alias is not None and alias.type != "wildcard":
                        one(f"{base}.{_text(name)}", alias=_text(alias))
                elif s.type in ("namespace_wildcard", "given"):
                    one(base, ("*",))
            parts = []
        elif t == ",":
            if parts:
                one(".".join(parts))
            parts = []
    if parts:
        one(".".join(parts))
    return list({(r.target, r.names, r.bound): r for r in out}.values())     # `{given A, given B}`: once


def _scala_package(node: ts.Node, line: int, text: str) -> list[ImportRef]:
    """A ``package`` clause's record: its full name (the clauses around it, ``package a { package
    b {``, and those chained before it, ``package a`` then ``package b``: ``a.b``) and what it
    declares (its body's top, or what follows it up to the next chained clause)."""
    name = node.child_by_field_name("name")
    if name is None:
        return []
    prefix: list[str] = []
    p: ts.Node | None = node
    while p is not None:
        sib = p.prev_named_sibling
        while sib is not None:
            if sib.type == "package_clause" and sib.child_by_field_name("body") is None:
                n = sib.child_by_field_name("name")
                prefix.insert(0, _dotted(n) if n is not None else "")
            sib = sib.prev_named_sibling
        p = p.parent
        if p is not None and p.type == "template_body":
            p = p.parent
        if p is not None and p.type == "package_clause":
            n = p.child_by_field_name("name")
            prefix.insert(0, _dotted(n) if n is not None else "")
    body = node.child_by_field_name("body")
    decls: list[ts.Node] = []
    if body is not None:
        decls = body.named_children
    else:
        sib = node.next_named_sibling
        while sib is not None and not (sib.type == "package_clause" and sib.child_by_field_name("body") is None):
            decls.append(sib)
            sib = sib.next_named_sibling
    names: list[str] = []
    for d in decls:
        if d.type == "extension_definition":
            names += [_text(n) for f in d.children_by_field_name("body") for g in ([f] if f.type != "template_body"
                      else f.named_children) if g.type == "function_definition"
                      and (n := g.child_by_field_name("name")) is not None]
        elif d.type in _SCALA_DECLS and (n := d.child_by_field_name(_SCALA_DECLS[d.type])) is not None:
            names += [_text(n)] if n.type in ("identifier", "type_identifier") else [_text(i) for i in n.named_children
                                                                if i.type == "identifier"]
    return _package(".".join(x for x in (*prefix, _dotted(name)) if x), names, line, text)


__all__ = ["PACKAGE", "imports_kotlin", "imports_scala"]
