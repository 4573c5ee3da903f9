"""What a callee, base or type expression names, read from the syntax tree: ``split`` gives
(name, receiver) (``a.b.c`` -> ("c", "a.b"), ``self.g`` -> ("g", "self"), an expression's
method -> ("m", ".")), ``Owners`` the innermost definition around a byte offset. Shared by the
call sites (``pipeline.callrefs``) and the variables' types (``pipeline.vartypes``).
"""

from __future__ import annotations

import bisect

import tree_sitter as ts

MAX_RECV = 80            # a longer receiver text is "." (not a name an import could bind)

# the callee's name and what stands before it, by node type: (receiver field, name field); Java's
# a.b.C (scoped_type_identifier) is read apart
_PAIRS: dict[str, tuple[str, str]] = {
    "attribute": ("object", "attribute"),              # python a.b
    "member_expression": ("object", "property"),       # js/ts a.b
    "selector_expression": ("operand", "field"),       # go a.b
    "scoped_identifier": ("path", "name"),             # rust a::b
    "qualified_identifier": ("scope", "name"),         # c++ a::b
    "method_invocation": ("object", "name"),           # java a.b()
    "nested_type_identifier": ("module", "name"),      # ts a.B in a type
    "qualified_type": ("package", "name"),             # go pkg.T in a type
    "field_access": ("object", "field"),               # java this.a / a.b as a receiver
}
_FIELD = {"field_expression": ("value", "argument")}   # rust/c a.b, a->b: the receiver field differs
_WRAPPED = {"generic_function": "function", "template_function": "name", "generic_type": None,
            "template_type": "name", "parenthesized_expression": None, "type_arguments": None,
            "instantiation_expression": "function"}
_NAMES = frozenset({"identifier", "property_identifier", "field_identifier", "type_identifier",
                    "namespace_identifier", "package_identifier", "shorthand_property_identifier",
                    "constant", "primitive_type",
                    "private_property_identifier"})     # js/ts this.#m(): the method node is ``C.#m``
SELF = frozenset({"self", "this", "cls", "Self"})
_RECV_PARTS = frozenset({"identifier", "this", "self", "super", "type_identifier", "namespace_identifier",
                         "package_identifier", "field_identifier", "property_identifier", "crate"})


def text(src: bytes, n: ts.Node) -> str:
    return src[n.start_byte:n.end_byte].decode("utf-8", "replace")


def _receiver(src: bytes, n: ts.Node | None) -> str:
    """A receiver's text when it is a dotted chain of names (``a``, ``a.b``, ``self``; C++'s
    ``(*this)`` is ``self``, as ``this->`` is), else "."."""
    if n is None:
        return ""
    if n.type in _RECV_PARTS:
        t = text(src, n)
        return "self" if t in SELF else t      # "super" stays: the bases' method, not the own one
    if n.type == "parenthesized_expression" and n.named_child_count == 1:     # c++ (*this).m(): this->m()
        inner = n.named_children[0]
        op, arg = (inner.child_by_field_name(f) for f in ("operator", "argument"))
        return "self" if inner.type == "pointer_expression" and op is not None and op.type == "*" \
            and arg is not None and arg.type == "this" else "."
    if n.type == "call":        # python super().m()
        f = n.child_by_field_name("function")
        if f is not None and f.type == "identifier" and text(src, f) == "super":
            return "super"
    if (n.type in _PAIRS and n.type != "method_invocation") or n.type in _FIELD:
        name, recv = split(src, n)
        if name and recv not in ("", "."):
            t = f"{recv}.{name}"
            return t if len(t) <= MAX_RECV else "."
        if name and recv == "":
            return name
    return "."


def split(src: bytes, n: ts.Node) -> tuple[str, str]:
    """(name, receiver) of a callee or base expression; ("", "") when it names nothing (a lambda,
    a subscript, a call's result called again)."""
    for _ in range(4):                       # unwrap generics, templates, parentheses
        w = _WRAPPED.get(n.type, "")
        if w == "":
            break
        inner = n.child_by_field_name(w) if w else (n.named_children[0] if n.named_child_count else None)
        if inner is None:
            return "", ""
        n = inner
    t = n.type
    if t in _NAMES:
        return text(src, n), ""
    if t in ("this", "super", "self"):      # this(...) / super(...) in a constructor
        return "", ""
    if t == "scoped_type_identifier":       # java a.b.C
        kids = n.named_children
        if not kids:
            return "", ""
        return text(src, kids[-1]), _receiver(src, kids[0]) if len(kids) > 1 else ""
    pair = _PAIRS.get(t)
    if pair is not None:
        obj, name = n.child_by_field_name(pair[0]), n.child_by_field_name(pair[1])
    elif t in _FIELD:
        obj = n.child_by_field_name(_FIELD[t][0]) or n.child_by_field_name(_FIELD[t][1])
        name = n.child_by_field_name("field")
    else:
        return "", ""
    if name is None:
        return "", ""
    if name.type not in _NAMES:
        return split(src, name)[0], "."
    return text(src, name), _receiver(src, obj)


class Owners:
    """The innermost of the given definitions around a byte offset (spans properly nest)."""

    def __init__(self, spans: list[tuple[int, int, int]]):
        self.spans = sorted(spans)           # (start, -end, index)
        self.starts = [s for s, _, _ in self.spans]

    def at(self, pos: int) -> int:
        """Index of the innermost span holding ``pos``, or -1."""
        i = bisect.bisect_right(self.starts, pos) - 1
        while i >= 0:
            s, neg_end, k = self.spans[i]
            if pos < -neg_end:
                return k
            i -= 1
        return -1


__all__ = ["split", "text", "Owners", "SELF", "MAX_RECV"]
