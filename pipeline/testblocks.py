"""Tests written as calls, not as functions: JavaScript/TypeScript ``describe``/``it``/``test`` blocks
and the tests a Rust macro defines, made function nodes; a Rust ``#[test]`` fn marked a test.

A frame of a failing Vitest/Jest test, or ``cargo test``'s ``r1159_invalid_flag``, names code that was
no node (the probe: ripgrep's 333 ``rgtest!`` tests, vue-core's spec files symbol-less).

- JavaScript/TypeScript, in a test file (``*.test.*``, ``*.spec.*``, a file in a ``__tests__``,
  ``test``, ``tests``, ``spec`` folder: ``test_file``): a call statement whose callee is a test
  runner's (``describe``, ``context``, ``suite``, ``it``, ``test``, ``specify``, Jasmine's ``fit``,
  ``xit``, ``fdescribe``, ``xdescribe``; with modifiers ``.only``, ``.skip``, ``.concurrent``,
  ``.each(rows)``, ``.skipIf(c)``..., Playwright's ``test.describe``), its first argument a string
  literal (a template literal without ``${}``) and its next a function, is a function of subkind
  ``suite`` (a describe) or ``test``. Its name is its title, whitespace runs as one space; it nests
  in the describe blocks around it, so its qualified name is their titles joined by ``.``
  (``scheduler.queueJob.basic usage``, which Vitest prints ``scheduler > queueJob > basic usage``);
  a title is kept as written, dots too (a qualified name is looked up whole); a repeated one is
  numbered (``basic usage#2``). Its signature is its callee and title (``it('basic usage')``,
  ``test.each(…)('adds %i')``); a block's head (``it(``, ``test.each(rows)(``) is none of its calls
  (``head_calls``). Other definitions in a block's callback stay its code, as in any
  function's body.
- Rust: a macro call at a file's top or in a ``mod`` whose first token is an identifier followed by
  a comma (``rgtest!(r1159_invalid_flag, |dir, cmd| {...});``), of a test definer (a ``macro_rules!``
  of the file whose body holds ``#[test]``; one defined elsewhere, not a path into another crate,
  that the file calls at least 3 times with a closure or block: ``test_definer``; not an item macro,
  ``impl_from!(Bar, Foo)``), in a test file (a ``tests`` folder, ``x_test.rs``) or inside a
  ``#[cfg(test)] mod``, is a function of subkind ``test`` named by that identifier (``cargo test``
  names it so); its signature the call up to its braced body (``rgtest!(r1159_invalid_flag, |dir,
  cmd|``). ``pipeline.macrocalls`` reads the calls its tokens hold.
- Rust: a ``fn`` with a test attribute (``#[test]``, ``#[tokio::test]``, ``#[test_case(...)]``,
  ``#[rstest]``) is marked a test.

Each of these is marked a test (``parse.TEST_MARK``: called by no code). One outside a test file (a
Rust unit test in its module's source file, ``#[cfg(test)] mod tests``) tests the file it is in:
``pipeline.testlinks`` links it (``tests`` edge, test -> file).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

import tree_sitter as ts

from pipeline.sourcetext import one_line, text
from pipeline.testlinks import in_test_dir, is_test_path

SUITES = frozenset({"describe", "context", "suite", "fdescribe", "xdescribe"})
_RUNNERS = SUITES | {"it", "test", "specify", "fit", "xit", "xtest"}
_MODIFIERS = frozenset({"only", "skip", "todo", "concurrent", "sequential", "fails", "each", "skipIf", "runIf",
                        "failing", "shuffle", "fixme", "describe", "serial", "parallel"})
CAPS = frozenset({"test", "suite"})           # the captured kinds a test block's Def has
_FUNCTIONS = frozenset({"function_expression", "arrow_function"})
_WS = re.compile(r"\s+")
# a JS escape sequence: \n, \', \u{1F600}, \u00e9, \x41, a line continuation
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[\s\S])")
_ESCAPES = {"n": " ", "r": " ", "t": " ", "v": " ", "f": " ", "b": "", "0": "", "\n": "", "\r\n": "", "\r": ""}
_CFG_TEST = re.compile(r"^#!?\[\s*cfg\s*\(.*\btest\b")
_TEST_IN = re.compile(r"#\[\s*(?:[\w:]*::)?test\b")         # a test attribute a macro_rules! body emits
_INVOKED = re.compile(r"\b(\w+)\s*!\s*[(\[{]")           # a macro call in a macro_rules! body
_OURS = frozenset({"crate", "self", "super", "$crate"})
_DEFINER_CALLS = 3          # calls of a macro defined elsewhere that make it a test definer (``_definers``)
_last: list = [(None, -1, frozenset())]    # _definers' cache: one (src, root id, definers) of the last file
_TEST_ATTR = re.compile(r"^#\[\s*(?:[\w:]*::)?(?:test|\w+_test|test_case|rstest)\b")


def test_file(path: str) -> bool:
    """Whether ``path`` looks like a test file (``testlinks``' naming rules, or a test folder)."""
    return bool(path) and (is_test_path(path) or in_test_dir(path))


def _chain(node: ts.Node, src: bytes) -> list[str] | None:
    """A callee's names as written (``test.each(…)`` -> ["test", "each(…)"]), or None when it is no
    plain chain of names and calls."""
    if node.type == "identifier":
        return [text(src, node.start_byte, node.end_byte)]
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        head = _chain(obj, src) if obj is not None else None
        if head is None or prop is None or prop.type != "property_identifier":
            return None
        return [*head, text(src, prop.start_byte, prop.end_byte)]
    if node.type == "call_expression":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        head = _chain(fn, src) if fn is not None else None
        if head is None or args is None:
            return None
        return [*head[:-1], head[-1] + ("`…`" if args.type == "template_string" else "(…)")]
    return None


def _unescape(m: re.Match[str]) -> str:
    e = m[1]
    if len(e) > 1 and e[0] in "ux":
        c = int(e[1:].strip("{}"), 16)
        return m[0] if c > 0x10FFFF or 0xD800 <= c <= 0xDFFF else chr(c)     # a surrogate half: as written
    return _ESCAPES.get(e, e)


def _title(node: ts.Node, src: bytes) -> str | None:
    """A string literal's value as the runner prints it (``doesn\\'t`` -> ``doesn't``; a template
    literal without ``${}`` too), whitespace runs (``\\n`` too) as one space."""
    if node.type == "template_string" and any(c.type == "template_substitution" for c in node.children):
        return None
    raw = _ESCAPE.sub(_unescape, text(src, node.start_byte, node.end_byte)[1:-1])
    return _WS.sub(" ", raw).strip() or None


def js_block(call: ts.Node, src: bytes) -> tuple[str, str, ts.Node, str] | None:
    """(title, ``suite``/``test``, callback, signature) of a test block's call, else None."""
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    chain = _chain(fn, src) if fn is not None else None
    if chain is None or args is None or chain[0] not in _RUNNERS \
            or any(p.partition("(")[0].partition("`")[0] not in _MODIFIERS for p in chain[1:]):
        return None
    named = [c for c in args.named_children if c.type != "comment"]
    if len(named) < 2 or named[0].type not in ("string", "template_string") or named[1].type not in _FUNCTIONS:
        return None
    title = _title(named[0], src)
    if title is None:
        return None
    suite = chain[0] in SUITES or "describe" in chain[1:]
    sig = f"{'.'.join(chain)}({one_line(text(src, named[0].start_byte, named[0].end_byte))})"
    return title, "suite" if suite else "test", named[1], sig


def head_calls(defs: list) -> set[int]:
    """The tree ids of the callees (what ``pipeline.callrefs`` captures of a call) of the calls that
    head the JS/TS test blocks among ``defs`` (``test.each(rows)('adds', fn)``: both calls): not
    calls the block makes (nor its parent block's), whatever a runner's global resolves to (vue's
    ``.d.ts`` stub ``test``)."""
    out: set[int] = set()
    for d in defs:
        n = d.node if d.test and d.cap in CAPS else None
        while n is not None and n.type in ("call_expression", "member_expression"):
            if n.type == "call_expression" and (fn := n.child_by_field_name("function")) is not None:
                out.add(fn.id)
            n = n.child_by_field_name("function" if n.type == "call_expression" else "object")
    return out


def _cfg_test(node: ts.Node, src: bytes) -> bool:
    """Whether ``node`` lies in a ``#[cfg(test)] mod`` (or a file saying ``#![cfg(test)]``)."""
    p: ts.Node | None = node.parent
    while p is not None:
        if p.type == "mod_item" and any(_CFG_TEST.match(a) for a in _attributes(p, src)):
            return True
        if p.type == "source_file":
            return any(c.type == "inner_attribute_item" and _CFG_TEST.match(text(src, c.start_byte, c.end_byte))
                       for c in p.children)
        p = p.parent
    return False


def _attributes(item: ts.Node, src: bytes) -> list[str]:
    """The attributes right above a Rust item, as written (comments between skipped)."""
    out: list[str] = []
    sib = item.prev_named_sibling
    while sib is not None and sib.type in ("attribute_item", "line_comment", "block_comment"):
        if sib.type == "attribute_item":
            out.append(text(src, sib.start_byte, sib.end_byte))
        sib = sib.prev_named_sibling
    return out


def definer_shape(node: ts.Node) -> tuple[ts.Node, ts.Node] | None:
    """(name token, arguments) of a Rust macro call at a file's top or in a ``mod`` whose first
    token is an identifier followed by a comma (``rgtest!(name, |dir, cmd| {...})``), else None."""
    up = node.parent
    if up is not None and up.type == "expression_statement":
        up = up.parent
    if up is None or not (up.type == "source_file" or (up.type == "declaration_list" and up.parent is not None
                                                        and up.parent.type == "mod_item")):
        return None
    args = next((c for c in node.children if c.type == "token_tree"), None)
    toks = args.children if args is not None else []
    if args is None or len(toks) < 3 or toks[1].type != "identifier" or toks[2].type != ",":
        return None
    return toks[1], args


def _macro_name(node: ts.Node, src: bytes) -> str | None:
    """A macro call's name, or None when it is a path into another crate (``static_assertions::
    assert_impl_all!``: no test definer of ours); ``crate::``/``self::``/``super::`` are ours."""
    mac = node.child_by_field_name("macro")
    if mac is not None and mac.type == "scoped_identifier":
        path = mac.child_by_field_name("path")
        if path is None or text(src, path.start_byte, path.end_byte).split("::")[0] not in _OURS:
            return None
        mac = mac.child_by_field_name("name")
    return text(src, mac.start_byte, mac.end_byte) if mac is not None else None


def _items(node: ts.Node) -> Iterator[ts.Node]:
    """The item-level nodes of a file: its top's and its ``mod`` bodies' (nested too)."""
    for c in node.named_children:
        yield c
        body = c.child_by_field_name("body") if c.type == "mod_item" else None
        if body is not None:
            yield from _items(body)


def _closure_arg(args: ts.Node) -> bool:
    """Whether a macro call's arguments after its first hold a closure (``|dir, cmd|``) or a block."""
    return any(t.type in ("|", "||") or (t.type == "token_tree" and t.children and t.children[0].type == "{")
               for t in args.children[3:])


def _definers(node: ts.Node, src: bytes) -> frozenset[str]:
    """The macros of ``node``'s file that define tests: a ``macro_rules!`` of the file whose body
    holds a test attribute (``#[test]``) or calls such a macro (globset's ``literal!`` calls
    ``extract!``); one not defined in the file (ripgrep's ``rgtest!``, in
    ``tests/macros.rs``) when the file calls it at item level at least ``_DEFINER_CALLS`` times with
    an identifier first and a closure or block after. A file is parsed alone, so a definer of
    another file called fewer times is missed; an item macro (``make_const!(LIMIT, 10)``,
    ``impl_from!(Bar, Foo)``) is none. Cached for the last file (its ``src`` object)."""
    root = node
    while root.parent is not None:
        root = root.parent
    last = _last[0]                     # one tuple, read once: a query server builds overlays on threads
    if last[0] is src and last[1] == root.id:
        return last[2]
    defined: dict[str, bool] = {}
    uses: dict[str, set[str]] = {}      # a macro_rules! -> the macros its body calls
    calls: dict[str, int] = {}
    for item in _items(root):
        if item.type == "macro_definition" and (n := item.child_by_field_name("name")) is not None:
            name, body = text(src, n.start_byte, n.end_byte), text(src, item.start_byte, item.end_byte)
            defined[name] = defined.get(name, False) or bool(_TEST_IN.search(body))
            uses.setdefault(name, set()).update(_INVOKED.findall(body))
            continue
        mac = item.named_children[0] if item.type == "expression_statement" and item.named_children else item
        if mac.type != "macro_invocation" or (shape := definer_shape(mac)) is None or not _closure_arg(shape[1]):
            continue
        if (called := _macro_name(mac, src)) is not None:
            calls[called] = calls.get(called, 0) + 1
    grew = True
    while grew:         # literal!(...) => { extract!(literal, ...) }: a definer through the file's definer
        grew = False
        for name, used in uses.items():
            if not defined[name] and any(defined.get(u) for u in used if u != name):
                defined[name] = grew = True
    got = frozenset([n for n, t in defined.items() if t]
                    + [n for n, k in calls.items() if n not in defined and k >= _DEFINER_CALLS])
    _last[0] = (src, root.id, got)
    return got


def test_definer(node: ts.Node, src: bytes) -> tuple[ts.Node, ts.Node] | None:
    """``definer_shape`` of a call of one of its file's test-defining macros (``_definers``), else None."""
    shape = definer_shape(node)
    name = _macro_name(node, src) if shape is not None else None
    return shape if name is not None and name in _definers(node, src) else None


def rust_macro_test(node: ts.Node, src: bytes, in_test_file: bool) -> tuple[ts.Node, ts.Node] | None:
    """(name token, body) of a test a macro defines (``test_definer``, in a test file or a
    ``#[cfg(test)] mod``); the body is its first braced token tree, else its arguments."""
    shape = test_definer(node, src)
    if shape is None or not (in_test_file or _cfg_test(node, src)):
        return None
    name, args = shape
    body = next((c for c in args.children[3:] if c.type == "token_tree" and c.children and c.children[0].type == "{"),
                args)
    return name, body


def macro_signature(node: ts.Node, body: ts.Node, src: bytes) -> str:
    """A macro-defined test's head: the call up to its braced body, else ``name!(test, …)``."""
    if body.parent is not None and body.parent.parent is not None and body.parent.parent.id == node.id:
        return one_line(text(src, node.start_byte, body.start_byte)).rstrip()
    mac = node.child_by_field_name("macro")
    first = body.children[1] if len(body.children) > 1 else None
    shown = text(src, first.start_byte, first.end_byte) if first is not None else ""
    return f"{text(src, mac.start_byte, mac.end_byte) if mac is not None else ''}!({shown}, …)"


def rust_test_fn(fn: ts.Node, src: bytes) -> bool:
    """Whether a Rust ``fn`` has a test attribute (``#[test]``, ``#[tokio::test]``, ``#[rstest]``)."""
    return any(_TEST_ATTR.match(a) for a in _attributes(fn, src))


class Block(NamedTuple):
    """A test written as a call, as ``definitions.collect`` makes its ``Def`` of it."""

    node: ts.Node                   # the call (its name's scope: what nests in it)
    outer: ts.Node                  # its statement (its comments, its span)
    cap: str                        # "test" or "suite"
    name: str
    body: ts.Node
    sig: str
    callback: ts.Node | None        # a JS/TS block's function: a test inside it nests in the block


def block(caps: dict[str, list[ts.Node]], src: bytes, in_tests: bool) -> Block | None:
    """The test a ``@test.call`` (JS/TS) or ``@test.macro`` (Rust) capture makes, else None;
    ``in_tests``: the file is a test file (``test_file``)."""
    got = caps.get("test.call")
    if got:
        call = got[0]
        js = js_block(call, src) if in_tests else None
        body = js[2].child_by_field_name("body") if js is not None else None
        if js is None or body is None or call.parent is None:
            return None
        title, cap, fn, sig = js
        return Block(call, call.parent, cap, title, body, sig, fn)
    got = caps.get("test.macro")
    made = rust_macro_test(got[0], src, in_tests) if got else None
    if not got or made is None:
        return None
    mac, (name, body) = got[0], made
    outer = mac.parent if mac.parent is not None and mac.parent.type == "expression_statement" else mac
    return Block(mac, outer, "test", text(src, name.start_byte, name.end_byte), body,
                 macro_signature(mac, body, src), None)


__all__ = ["test_file", "block", "Block", "js_block", "rust_macro_test", "definer_shape", "test_definer", "head_calls", "macro_signature",
           "rust_test_fn", "CAPS", "SUITES"]
