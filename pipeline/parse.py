"""One file -> its code nodes, ``contains`` edges and raw imports (pure: no I/O, picklable result).

What becomes a node: the file, and every class-like definition (class, struct, interface, trait,
enum, union, record; a TypeScript ``type X = ...`` and a Go named type that is no struct or
interface, subkind ``type``; a Rust ``impl`` block when its type is not defined in the same file, a
Java anonymous class a field holds), function (a Rust ``macro_rules!``, subkind ``macro``) and
method that is not hidden inside a function body (closures and local helpers are part of their
function's ``full`` text, not nodes); a Python name bound to a lambda there (``to_cents = lambda x:
...``) is a function (a method in a class body) of subkind ``lambda``, its signature the
assignment's head (``to_cents = lambda x``; one of a chain or tuple: its own name and lambda).
Namespaces (C++ ``namespace``, Rust inline ``mod``, TypeScript ``namespace``) prefix qualified
names but are not nodes. Which definitions a file has and what each is called is
``pipeline.definitions``'s (its docstring: Rust impl blocks, Java anonymous classes).

Qualified names join the enclosing scopes with ``.``: ``Outer.Inner.method``; Go methods sit under
their receiver type (``Server.Start``; one declared in another file of the package hangs under its
type by a ``contains`` edge the link stage adds: ``pipeline.gopackage``), Rust impl methods under
the impl's type (``Point.new``),
C++ out-of-line definitions under their scope (``Shape::area`` -> ``Shape.area``, ``struct
Outer::Inner {`` -> ``Outer.Inner``), a nested namespace as its parts (``namespace a::b`` ->
``a.b``); a macro before a C++ class's name (``class LEVELDB_EXPORT DB``) or after a declarator
(``int x_ GUARDED_BY(mu_);``) is read past (``languages.cppmacros``), so is a conditional group the
grammar cannot hold (``#if`` in a constructor's initialiser list), and a type-less macro statement
(``FRIEND_TEST(A, B);``) is no node; a googletest ``TEST_F(Fixture,
Name) {`` is the function ``Fixture.Name``, as gtest names it (unique in the file across kinds:
``Fixture.Name#2`` beside the fixture's own ``Name`` method), marked ``TEST_MARK``. Tests written
as calls are functions too (``pipeline.testblocks``): a test file's JS/TS ``describe``/``it``/``test``
blocks (subkind ``suite``/``test``, named by their titles, nested: ``scheduler.queueJob.basic
usage``), a Rust test a macro defines (``rgtest!(r1159_invalid_flag, |dir, cmd| {...})``, subkind
``test``); they and Rust ``#[test]`` fns are marked ``TEST_MARK``. When two
definitions of a file share kind and qualified name (overloads, property setters, conditional
definitions), a body-less declaration (prototype, signature, ``@overload`` stub) yields to the
definition with a body (the ``@overload`` stubs right above a Python implementation are its first
lines: its span starts at the first stub's decorator, so a stub's line finds it, and its api
lists the stubs' typed signatures above its own); otherwise later ones get ``#2``, ``#3``... in
source order: unique, but renumbered by an insertion above (a note follows its code by content
hash: ``pipeline.notetargets``).

Spans are 1-based inclusive lines, from the first decorator / attribute / ``export`` / ``template``
line (a TypeScript class member's decorators stand beside it in the class body and count too) to
the definition's last token (the comments after it that stand no deeper than its first line lead
what follows: tree-sitter-scala ends a def whose body is on the next lines where the next one
starts, ``docblocks.tail``); ``full`` is that source (whole first line, so indentation is kept).
``doc`` is the docstring (Python) or the leading comment block (other languages). Detail levels:
``summary`` (one line: kind, qualified name, signature, first doc line), ``api`` (signature and
doc of the node and of its members; for a file, its top-level symbols' signatures and first doc
lines) and ``full``; every level's exact token count is computed here. The file's
path, where it stands within a line of that text (its summary, the outline's ``# path`` header), is
spelled terminal-safe: git allows a newline in a file name, which made the header two lines.

Files in a language we do not parse still get a file node (``summary``/``full``; ``api`` is the
summary) with ``skip_reason="unsupported_language"``, so they stay visible in the tree. A syntax
error keeps everything that parses (warning ``syntax_error``); invalid UTF-8 is decoded with
replacement characters (warning ``invalid_utf8``). A file's warnings, and the line its first syntax
error starts at, stay in its node's ``meta`` (``warnings``, ``syntax_error_line``): a re-index that
reuses the node counts them again, and ``get`` says where the outline may be incomplete.
"""

from __future__ import annotations

import json
import posixpath
import re
import textwrap
from dataclasses import dataclass, field

import tree_sitter as ts

from pipeline import callrefs, languages
from pipeline.definitions import CLASS_KINDS, Def, collect, resolve
from pipeline.docblocks import (
    file_doc as _file_doc, leading as _leading, python_docstring as _python_docstring, tail as _tail)
from pipeline.importrefs import IMPORTS as _IMPORTS
from pipeline.imports import FileImports, ImportRef
from pipeline.sourcetext import (
    clean_comment as _clean_comment, end_line as _end_line, first_line as _first_line,
    first_paragraph as _first_paragraph, indent as _indent, line_count as _line_count, one_line as _one_line,
    text as _text)
from stratum.config import ParseConfig
from stratum.ids import content_hash, node_id
from stratum.notetext import terminal_safe
from pipeline.nodefields import Spans, dir_node_id, file_node_id, finish
from pipeline.testlinks import TEST_MARK     # in a test's ``meta``: gtest's, testblocks' (a substring test)

# Kinds whose declaration text is itself the interface (fields, variants, member signatures).
_DECL_IS_API = {"struct": {"c", "cpp", "go", "rust"}, "union": {"c", "cpp", "rust"},
                "enum": {"c", "cpp", "rust", "typescript", "tsx"},
                "interface": {"go", "typescript", "tsx"}, "type": {"go", "typescript", "tsx"}}
_LABELS = {"anonymous": "anonymous class"}      # a summary's first word, where the subkind is not it
_WS = re.compile(r"\s+")
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.M)
_MAX_IMPORT_TEXT = 300
_SHORT_TYPE = 160           # a ``type X = ...`` up to this long is its own signature, whole
SYNTAX_ERROR = "syntax_error"   # a file's warning (``meta["warnings"]``) when tree-sitter could not parse it whole


@dataclass(slots=True)
class ParsedFile:
    """The parse of one file: plain data, safe to pickle across Ray workers."""

    path: str
    language: str | None
    nodes: list[dict] = field(default_factory=list)
    edges: list[dict] = field(default_factory=list)
    imports: list[ImportRef] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skip_reason: str | None = None

    def file_imports(self) -> FileImports:
        """What import resolution needs from this file."""
        return FileImports(self.path, self.language, tuple(self.imports))


def _lines(text: str) -> str:
    """"1 line" / "27 lines": a file summary's size as a person writes it."""
    n = _line_count(text)
    return f"{n} line" if n == 1 else f"{n} lines"


def _signature(lang: str, src: bytes, d: Def) -> str:
    """The definition's head on one line: from its first decorator/modifier to its body; a short
    ``type X = ...`` whole, a Go type of a grouped ``type (...)`` with its ``type`` keyword; a name a
    Python chain, tuple or parentheses bind to a lambda, that name and its own lambda (``high =
    lambda b`` of ``(low, high) = (lambda a: a, lambda b: b)``)."""
    if d.bound is not None and d.body is not None and lang in ("python", "go"):     # a chain or a Go var group: its head as written
        return f"{d.name} = " + re.sub(r"\s*:$", "", _one_line(_text(src, d.bound.start_byte, d.body.start_byte)))
    begin = d.start.start_byte if d.start.type == "decorator" else d.outer.start_byte
    end = d.body.start_byte if d.body is not None else d.node.end_byte
    if d.cap == "type" and len(_one_line(_text(src, begin, d.node.end_byte))) <= _SHORT_TYPE:
        end = d.node.end_byte
    s = _one_line(_text(src, begin, end))
    s = re.sub(r"\s*(:|=>|\{|;|=)$", "", s).removesuffix(",")     # Rust's `where C: Display,`
    if lang == "go" and d.outer.type in ("type_spec", "type_alias"):
        s = f"type {s}"
    if d.name not in s:                      # typedef struct {...} name_t
        s = f"{s} {d.name}"
    return s


def _more_blocks(emitted: list[Def]) -> dict[int, str]:
    """The lines that end the api of a Rust type's first impl block in this file (the node
    ``path::Type`` finds) when the type has more: each other block's name and signature, so an
    api that shows one block says where the rest are."""
    blocks: dict[tuple[int, str], list[Def]] = {}
    for d in emitted:
        if d.cap == "impl" and not d.blanket:
            blocks.setdefault((id(d.parent), d.qual.partition("#")[0]), []).append(d)
    return {id(ds[0]): "".join(f"\n    // also {o.qual}: {o.sig}" for o in ds[1:])
            for ds in blocks.values() if len(ds) > 1}


def _head(d: Def) -> str:
    """A definition's signature, below those of the ``@overload`` stubs it took (one a line)."""
    return "\n".join([*(s.sig for s in d.stubs), d.sig])


def _decl_is_api(d: Def, lang: str) -> bool:
    return d.kind == "class" and lang in _DECL_IS_API.get(d.subkind or "", ())


def _api(d: Def, lang: str, full: str) -> str:
    """Signature and doc of a definition and of its members (recursively).

    For data types whose declaration is their interface (C/Go/Rust structs, TypeScript
    interfaces ...), the declaration text itself replaces the signature.
    """
    if _decl_is_api(d, lang):
        parts = [_dedent(full)] + ([_indent(d.doc)] if d.doc else [])
        members = [m for m in d.members if not d.node.start_byte <= m.node.start_byte < d.node.end_byte]
    else:
        parts = [_head(d)] + ([_indent(d.doc)] if d.doc else [])
        members = d.members
    parts += [_indent(_api_member(m)) for m in members]
    return "\n".join(parts)


def _api_member(m: Def) -> str:
    parts = [_head(m)] + ([_indent(m.doc)] if m.doc else [])
    parts += [_indent(_api_member(c)) for c in m.members]
    return "\n".join(parts)


def _dedent(full: str) -> str:
    first, _, rest = full.partition("\n")
    if not rest:
        return first.strip()
    return first.strip() + "\n" + textwrap.dedent(rest)


def _summary(label: str, qual: str, sig: str, doc: str) -> str:
    s = f"{label} {qual}"
    if sig:
        s += f": {sig}"
    first = _first_line(doc)
    if first:
        s += f" \u2014 {first}"
    return " ".join(s.split())


def _decode(data: bytes) -> tuple[str, bool]:
    """Text of a file and whether it needed replacement characters.

    UTF-8 first; else an encoding declared in the first two lines (PEP 263 ``coding:`` cookie,
    also used by Emacs/Vim modelines); else UTF-8 with replacement characters.
    """
    try:
        text = data.decode("utf-8")
        bad = False
    except UnicodeDecodeError:
        text, bad = data.decode("utf-8", "replace"), True
        m = _CODING.search(b"\n".join(data.split(b"\n", 2)[:2]))
        if m:
            try:
                text, bad = data.decode(m.group(1).decode("ascii")), False
            except (LookupError, UnicodeDecodeError):
                pass
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, bad


def _source(data: bytes) -> tuple[str, bool, bytes]:
    """(text, needed replacement characters, the UTF-8 bytes of text that tree-sitter parses)."""
    text, bad = _decode(data)
    if not bad and len(text) == len(data) and data.isascii():
        return text, bad, data
    src = text.encode("utf-8")
    return text, bad, data if src == data else src


def parse_file(repo: str, path: str, data: bytes, cfg: ParseConfig | None = None) -> ParsedFile:
    """Parse one file's bytes into nodes (file + definitions), contains edges and raw imports."""
    cfg = cfg or ParseConfig()
    text, bad_utf8, src = _source(data)
    shown = terminal_safe(path)     # the path within a line: git allows a newline in a name ("a\nb.py")
    lang = languages.detect(path, data)
    out = ParsedFile(path=path, language=lang)
    if bad_utf8:
        out.warnings.append("invalid_utf8")
    file_id = file_node_id(repo, path)
    file_node = {
        "id": file_id, "repo": repo, "kind": "file", "subkind": None, "path": path,
        "name": posixpath.basename(path), "qualname": "", "language": lang,
        "parent_id": dir_node_id(repo, posixpath.dirname(path)), "start_line": 1,
        "end_line": max(1, _line_count(text)), "signature": None, "doc": None,
        "full": text, "file_hash": content_hash(data), "size_bytes": len(data),
    }
    if lang is None:
        out.skip_reason = "unsupported_language"
        file_node["summary"] = f"file {shown} ({_lines(text)}, not parsed)"
        file_node["api"] = file_node["summary"]
        finish([file_node], cfg)
        _keep_warnings(file_node, out.warnings)
        out.nodes.append(file_node)
        return out

    spec = languages.SPECS[lang]
    tree = languages.parse_tree(lang, src)
    root = tree.root_node
    if root.has_error:
        out.warnings.append(SYNTAX_ERROR)
    refs: tuple[list[ts.Node], list[ts.Node], list[ts.Node]] = ([], [], [])
    defs, import_nodes = collect(lang, spec, root, src, refs, path)
    emitted = resolve(defs)

    # imports
    fn = _IMPORTS[lang]
    for n in sorted(import_nodes, key=lambda n: n.start_byte):
        itext = _one_line(_text(src, n.start_byte, n.end_byte))[:_MAX_IMPORT_TEXT]
        out.imports.extend(fn(n, src, n.start_point.row + 1, itext))

    # definitions
    nodes = [file_node]
    spans = Spans(src, text, cfg.token_encoding)
    fulls: dict[int, str] = {}
    bounds: dict[int, tuple[int, int]] = {}
    ends: dict[int, ts.Node] = {}          # the node each definition ends with (``docblocks.tail``)
    for d in emitted:
        start, comments = _leading(spec, d.lead)
        d.start = start
        if lang == "python":        # a lambda's body is an expression: it has no docstring
            d.doc = _python_docstring(src, d.body) if d.body is not None and d.subkind != "lambda" else ""
        elif comments:
            d.doc = _clean_comment("\n".join(_text(src, c.start_byte, c.end_byte) for c in comments))
        d.sig = d.sig or _signature(lang, src, d)     # a test block's is its callee and title (testblocks)
        for stub in d.stubs:
            stub.start = stub.outer
            stub.sig = _signature(lang, src, stub)
        line_start = start.start_byte - start.start_point.column
        end = ends[id(d)] = _tail(spec, d.outer)[0]
        fulls[id(d)] = _text(src, line_start, end.end_byte)
        bounds[id(d)] = (line_start, end.end_byte)
        d.nid = node_id(repo, path, d.kind, d.qual)
    more = _more_blocks(emitted)
    for d in emitted:
        full = fulls[id(d)]
        label = _LABELS.get(d.subkind, d.subkind) if d.subkind else d.kind
        parent_id = d.parent.nid if d.parent is not None else file_id
        nodes.append({
            "id": d.nid, "repo": repo, "kind": d.kind, "subkind": d.subkind, "path": path,
            "name": d.name, "qualname": d.qual, "language": lang, "parent_id": parent_id,
            "start_line": d.start.start_point.row + 1, "end_line": _end_line(ends[id(d)]),
            "signature": d.sig, "doc": d.doc or None,
            "summary": _summary(label, d.qual, d.sig, d.doc),
            "api": _api(d, lang, full) + more.get(id(d), ""), "full": full,
            "file_hash": file_node["file_hash"], "size_bytes": len(full.encode("utf-8")),
        })
        out.edges.append({"src": parent_id, "dst": d.nid, "kind": "contains"})
        spans.by_node[len(nodes) - 1] = bounds[id(d)]

    callrefs.attach(lang, src, defs, emitted, refs, nodes)
    for node, d in zip(nodes[1:], emitted):
        if d.test:                  # a test is called by no code: TEST_MARK says so to the linker
            node["meta"] = json.dumps({**json.loads(str(node.get("meta") or "{}")), "test": 1},
                                      ensure_ascii=False, separators=(",", ":"))

    doc = _file_doc(lang, src, root, spec)
    top = [d for d in emitted if d.parent is None]
    counts = [(sum(1 for d in emitted if d.kind == k), k) for k in ("class", "function", "method")]
    what = ", ".join(f"{n} {k}{'es' if k == 'class' and n != 1 else 's' if n != 1 else ''}"
                     for n, k in counts if n)
    file_node["doc"] = doc or None
    summary = f"file {shown} ({lang}, {_lines(text)}" + (f"; {what})" if what else ")")
    if doc:
        summary += f" \u2014 {_first_line(doc)}"
    file_node["summary"] = _WS.sub(" ", summary)
    api = [f"# {shown}"]
    if doc:
        api.append(_first_paragraph(doc))
    for d in top:
        first = _first_line(d.doc)
        api.append(_head(d) + (f"\n    {first}" if first else ""))
    file_node["api"] = "\n".join(api)
    finish(nodes, cfg, spans)
    _keep_warnings(file_node, out.warnings, _first_error_line(root) if root.has_error else 0)
    out.nodes = nodes
    return out


def _first_error_line(root: ts.Node) -> int:
    """The line (1-based) tree-sitter's first error starts at: the first ERROR or MISSING node in
    source order, found by entering only the subtrees that hold one."""
    node = root
    while not (node.is_error or node.is_missing):
        child = next((c for c in node.children if c.has_error), None)
        if child is None:
            break
        node = child
    return node.start_point.row + 1


def _keep_warnings(file_node: dict, warnings: list[str], error_line: int = 0) -> None:
    """The file's warnings (and where its syntax errors start) into its node's ``meta``: a reused
    node is not parsed again, so this is what the next run's report and ``get`` read."""
    if not warnings:
        return
    meta = json.loads(file_node.get("meta") or "{}")
    meta["warnings"] = list(warnings)
    if error_line:
        meta["syntax_error_line"] = error_line
    file_node["meta"] = json.dumps(meta, ensure_ascii=False, separators=(",", ":"))


def definition_spans(path: str, data: bytes) -> list[tuple[int, int, str, str]]:
    """``(start_line, end_line, qualname, kind)`` of every definition node :func:`parse_file` makes
    for this file (same nesting, names and spans), without detail levels or token counts: the
    cheap view for mapping changed lines onto symbols."""
    lang = languages.detect(path, data)
    if lang is None:
        return []
    _, _, src = _source(data)
    spec = languages.SPECS[lang]
    defs, _ = collect(lang, spec, languages.parse_tree(lang, src).root_node, src, path=path)
    out = []
    for d in resolve(defs):
        start, _ = _leading(spec, d.lead)
        out.append((start.start_point.row + 1, _end_line(_tail(spec, d.outer)[0]), d.qual, d.kind))
    return out


__all__ = ["ParsedFile", "parse_file", "definition_spans", "file_node_id", "dir_node_id",
           "CLASS_KINDS", "TEST_MARK"]
