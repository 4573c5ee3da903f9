"""The calls a Rust macro's arguments hold: ``assert_eq!(bail_literal().unwrap_err(), x)``.

tree-sitter keeps a macro's arguments as a flat ``token_tree`` (a macro may read any tokens), so
its calls are read off the tokens by their shape: ``f(``, ``a::b::f(``, ``x.f(``, ``f::<T>(``,
in nested trees too. Only the macros whose arguments are expressions are read (the standard
library's ``assert*!``, ``format!``-like, ``vec!``, ``dbg!``; ``log``'s; ``anyhow``'s), and a test
a macro defines (``rgtest!(name, |dir, cmd| {...})`` at item level: ``testblocks.test_definer``),
whose body is a closure: a DSL macro's tokens need not be Rust. What is recorded is what ``pipeline.exprnames.split`` gives a
parsed call: (name, receiver), ``self``/``Self`` as ``self``, anything but a chain of names before
``.f(`` as ``.``; ``written_receiver`` gives the receiver as the code writes it (``Self::helper(x)``
-> ``Self``), as ``pipeline.callrefs`` records a parsed call's.
"""

from __future__ import annotations

from collections.abc import Iterator

import tree_sitter as ts

from pipeline.exprnames import MAX_RECV, SELF, text
from pipeline.testblocks import test_definer

MACROS = frozenset({
    "assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne",
    "println", "print", "eprintln", "eprint", "format", "format_args", "write", "writeln", "panic",
    "vec", "dbg", "unreachable", "todo", "unimplemented",
    "trace", "debug", "info", "warn", "error", "log",           # log / tracing
    "anyhow", "bail", "ensure", "format_err", "eyre",           # anyhow / eyre
})
# tokens a token tree may hold as identifiers that are no names (``else``, ``move``...)
_KEYWORDS = frozenset({"else", "in", "as", "let", "mut", "ref", "move", "return", "if", "match", "while", "for",
                       "loop", "fn", "impl", "dyn", "where", "unsafe", "async", "await", "box", "break", "continue"})
_NAME = frozenset({"identifier", "self", "super", "crate"})
_MAX_GENERIC = 32        # tokens of a turbofish's arguments looked through (``f::<Vec<u8>>(``)


def macro_calls(src: bytes, node: ts.Node) -> Iterator[tuple[ts.Node, str, str]]:
    """(name token, name, receiver) of each call a known macro's arguments hold, in order."""
    mac = node.child_by_field_name("macro")
    if mac is not None and mac.type == "scoped_identifier":
        mac = mac.child_by_field_name("name")
    if mac is None or (text(src, mac) not in MACROS and test_definer(node, src) is None):
        return
    for c in node.children:
        if c.type == "token_tree":
            yield from _scan(src, c.children)


def _scan(src: bytes, toks: list[ts.Node]) -> Iterator[tuple[ts.Node, str, str]]:
    for i, t in enumerate(toks):
        if t.type == "token_tree":
            yield from _scan(src, t.children)
        elif t.type == "identifier" and _called(toks, i + 1):
            name = text(src, t)
            if name not in _KEYWORDS:
                yield t, name, _receiver(src, toks, i - 1)


def _called(toks: list[ts.Node], j: int) -> bool:
    """The tokens from ``j`` open a call's arguments: ``(`` or ``::<...>(``."""
    if j + 1 < len(toks) and toks[j].type == "::" and toks[j + 1].type == "<":
        j = _skip_generics(toks, j + 1, 1)
    return 0 <= j < len(toks) and toks[j].type == "token_tree" and toks[j].child_count > 0 \
        and toks[j].children[0].type == "("


def _skip_generics(toks: list[ts.Node], j: int, step: int) -> int:
    """The index past the ``<...>`` that starts at ``j`` (``step`` 1: forward from ``<``; -1:
    back from ``>``), or -1 when it does not close within ``_MAX_GENERIC`` tokens."""
    depth = 0
    opens, closes = (("<",), (">", ">>")) if step == 1 else ((">", ">>"), ("<",))
    for k in range(j, j + step * _MAX_GENERIC, step):
        if not 0 <= k < len(toks):
            return -1
        ty = toks[k].type
        if ty in opens:
            depth += 2 if ty == ">>" else 1
        elif ty in closes:
            depth -= 2 if ty == ">>" else 1
        if depth <= 0:
            return k + step
    return -1


def written_receiver(src: bytes, tok: ts.Node) -> str:
    """The receiver of the call whose name is ``tok`` (one ``macro_calls`` gave) as written:
    ``Self::helper(`` -> ``Self``, ``self.f(`` -> ``self`` (``macro_calls`` reads both as ``self``)."""
    toks = tok.parent.children if tok.parent is not None else [tok]
    i = next((k for k, t in enumerate(toks) if t.start_byte == tok.start_byte), 0)
    return _receiver(src, toks, i - 1, written=True)


def _receiver(src: bytes, toks: list[ts.Node], j: int, written: bool = False) -> str:
    """What stands before the called name ending at ``toks[j]``: "" (nothing), a path (``a::b``
    -> ``a.b``), a chain of names (``self.x`` -> ``self.x``), else "."; ``Self``/``self`` as
    ``self`` unless ``written``."""
    if j < 0 or toks[j].type not in ("::", "."):
        return ""
    sep, parts = toks[j].type, []
    while j >= 1 and toks[j].type == sep:
        k = j - 1
        if sep == "::" and toks[k].type in (">", ">>"):      # Vec::<u8>::new(
            k = _skip_generics(toks, k, -1)
            if k < 1 or toks[k].type != "::":
                return "."
            k -= 1
        if k < 0 or toks[k].type not in _NAME:
            return "."
        parts.append(text(src, toks[k]))
        j = k - 1
    if j >= 0 and toks[j].type in (".", "::"):
        return "."                                        # f().x.g(: an expression's
    parts.reverse()
    if parts[0] in SELF and not written:
        parts[0] = "self"
    got = ".".join(parts)
    return got if len(got) <= MAX_RECV else "."


__all__ = ["macro_calls", "written_receiver", "MACROS"]
