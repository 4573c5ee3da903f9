"""Which of a Java method's overloads a call can reach, read from the syntax: what each overload's
parameters take (``parameters``) and what the call passes (``arguments``: how many, and a type
where the syntax says it), and whether an argument fits a parameter (``fits``).

An overload's parameters are kept as simple type names (``Class<T>`` -> ``Class``, ``int``), ""
for a type variable (``T``: the method's or, by its one- or two-letter name, its class's) or
varargs. An argument's type is said by a literal (``"a"`` String, ``1`` int, ``1L`` long, ``2.0``
double, ``'c'`` char, ``true`` boolean, ``null``, ``Foo.class`` Class), ``new Foo(..)``, a cast,
``"a" + x`` (String) or a variable the method (else the file, by one declaration) declares with a
type; else nothing ("": any type fits). Fitting follows Java's rules where they are certain
(widening, boxing, final classes: a String is no Reader), and lets any reference type pass for
another (it may be a subclass).
"""

from __future__ import annotations

import re

import tree_sitter as ts

from pipeline.exprnames import text

_PRIMS = frozenset({"byte", "short", "int", "long", "float", "double", "char", "boolean"})
_BOX = {"int": "Integer", "long": "Long", "double": "Double", "float": "Float", "boolean": "Boolean",
        "char": "Character", "byte": "Byte", "short": "Short"}
_UNBOX = {v: k for k, v in _BOX.items()}
_WIDER = {"byte": {"short", "int", "long", "float", "double"}, "short": {"int", "long", "float", "double"},
          "char": {"int", "long", "float", "double"}, "int": {"long", "float", "double"},
          "long": {"float", "double"}, "float": {"double"}}
# final classes and what they may be passed as (a String is no Reader, a Class no TypeToken)
_FINAL = {"String": {"CharSequence", "Comparable", "Serializable", "Constable", "ConstantDesc"},
          "Class": {"Type", "GenericDeclaration", "AnnotatedElement", "Serializable"},
          **{b: {"Number", "Comparable", "Serializable"} for b in _UNBOX if b not in ("Boolean", "Character")},
          "Boolean": {"Comparable", "Serializable"}, "Character": {"Comparable", "Serializable"}}
_TYPE_VAR = re.compile(r"^[A-Z][A-Z0-9]?$")
_LITERALS = {"string_literal": "String", "text_block": "String", "character_literal": "char",
             "true": "boolean", "false": "boolean", "null_literal": "null", "class_literal": "Class"}


def simple(src: bytes, n: ts.Node | None, tvars: frozenset[str] = frozenset()) -> str:
    """A type's simple name (``java.util.List<String>`` -> ``List``, ``int[]``), "" for a type
    variable or what names no type."""
    if n is None:
        return ""
    t = n.type
    if t in ("integral_type", "floating_point_type", "boolean_type", "void_type"):
        return text(src, n)
    if t == "generic_type":
        return simple(src, n.named_children[0] if n.named_child_count else None, tvars)
    if t == "scoped_type_identifier":
        return simple(src, n.named_children[-1] if n.named_child_count else None, tvars)
    if t == "array_type":
        inner = simple(src, n.child_by_field_name("element"), tvars)
        return f"{inner}[]" if inner else ""
    if t == "type_identifier":
        name = text(src, n)
        return "" if name in tvars or name == "var" or _TYPE_VAR.match(name) else name
    return ""


def parameters(src: bytes, node: ts.Node) -> tuple[list[int], list[str]] | None:
    """([fewest, most] arguments (most -1: varargs), each parameter's simple type) of a method or
    constructor, or None."""
    ps = node.child_by_field_name("parameters")
    if ps is None:
        return None
    tp = node.child_by_field_name("type_parameters")
    tvars = frozenset(text(src, c.named_children[0]) for c in tp.named_children
                      if c.type == "type_parameter" and c.named_child_count) if tp is not None else frozenset()
    types = [simple(src, c.child_by_field_name("type"), tvars) for c in ps.named_children if c.type == "formal_parameter"]
    spread = any(c.type == "spread_parameter" for c in ps.named_children)
    return ([len(types), -1] if spread else [len(types), len(types)]), types


class Declared:
    """The types a file's Java variables are declared with (parameters, locals, fields), for the
    variables passed as arguments: the nearest declaration above a use in its definition, else
    the file's one type of that name. A declaration's type is read when a use asks for it."""

    def __init__(self, src: bytes, nodes: list[ts.Node], owner_of):
        self.src = src
        self.owner_of = owner_of
        self.by_var: dict[str, list[tuple[int, ts.Node | None]]] = {}      # var -> (position, type node)
        for n in nodes:
            t = n.type
            if t == "formal_parameter":
                names = [n.child_by_field_name("name")]
            elif t in ("local_variable_declaration", "field_declaration"):
                names = [d.child_by_field_name("name") for d in n.children_by_field_name("declarator")]
            else:
                continue
            ty, at = n.child_by_field_name("type"), n.start_byte
            for nm in names:
                if nm is not None:
                    self.by_var.setdefault(text(src, nm), []).append((at, ty))
        self._types: dict[str, list[tuple[int, int, str]]] = {}

    def type_of(self, span: int, var: str, pos: int) -> str:
        got = self._types.get(var)
        if got is None:
            got = self._types[var] = sorted((at, self.owner_of(at), simple(self.src, ty))
                                            for at, ty in self.by_var.get(var, ()))
        if not got:
            return ""
        best = ""
        for at, where, ty in got:       # the nearest declaration above it in its definition
            if at >= pos:
                break
            if where == span:
                best = ty
        if best:
            return best
        kinds = {ty for _, _, ty in got}
        return next(iter(kinds)) if len(kinds) == 1 else ""


def arguments(src: bytes, node: ts.Node, declared: Declared | None, span: int) -> tuple[int, str]:
    """(how many arguments a captured call passes, their types joined by "," where any is known,
    else ""), or (-1, "") for no argument list. ``node``: the invocation, or ``new``'s type."""
    call = node if node.type == "method_invocation" else node.parent
    args = call.child_by_field_name("arguments") if call is not None else None
    if args is None:
        return -1, ""
    if not args.named_child_count:
        return 0, ""
    got = []
    for a in args.named_children:
        t = a.type
        h = _LITERALS.get(t)
        if h is None:
            if t == "identifier":
                h = declared.type_of(span, text(src, a), a.start_byte) if declared is not None else ""
            elif t.endswith("comment"):
                continue
            else:
                h = _argument(src, a, t)
        got.append(h)
    return len(got), (",".join(got) if any(got) else "")


def _argument(src: bytes, a: ts.Node, t: str) -> str:
    if t == "unary_expression" and a.named_child_count == 1:
        a, t = a.named_children[0], a.named_children[0].type
    if t in ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal"):
        return "long" if text(src, a)[-1:] in "lL" else "int"
    if t in ("decimal_floating_point_literal", "hex_floating_point_literal"):
        return "float" if text(src, a)[-1:] in "fF" else "double"
    if t in ("object_creation_expression", "cast_expression"):
        return simple(src, a.child_by_field_name("type"))
    if t == "binary_expression" and any(c.type in ("string_literal", "text_block") for c in a.named_children) and \
            (op := a.child_by_field_name("operator")) is not None and text(src, op) == "+":
        return "String"
    return ""


def fits(arg: str, param: str, known: dict[str, set[str]] | None = None) -> bool:
    """An argument of type ``arg`` may be passed for a parameter of type ``param`` ("" unknown /
    any). ``known``: the repository's classes by simple name -> the simple names of the classes
    and interfaces each is (itself, its bases): a repository class is only what its bases say it is
    (beside outside interfaces), and an outside class is no repository class (a ``Collection`` is
    no ``JsonElement``)."""
    if not arg or not param or arg == param or param == "Object":
        return True
    if known is not None and not arg.endswith("[]") and arg not in _PRIMS and arg not in _FINAL and arg != "null":
        mine = known.get(arg)
        if mine is not None:
            return param in mine or (param not in known and param not in _PRIMS and param not in _FINAL)
        if param in known:
            return False
    if arg == "null":
        return param not in _PRIMS
    if arg in _PRIMS:
        if param in _PRIMS:
            return param in _WIDER.get(arg, ())
        return param == _BOX[arg] or param in _FINAL[_BOX[arg]]
    if arg.endswith("[]") or param.endswith("[]"):
        return param in ("Serializable", "Cloneable") if arg.endswith("[]") else False
    if arg in _UNBOX and param in _PRIMS:
        prim = _UNBOX[arg]
        return param == prim or param in _WIDER.get(prim, ())
    if arg in _FINAL:
        return param in _FINAL[arg]
    return param not in _PRIMS and param not in _FINAL       # a reference may be a subclass, never a final class


def exact(arg: str, param: str) -> bool:
    """The argument's type is the parameter's own (Java prefers that overload: the most specific;
    boxing is no match of its own: ``f(1)`` takes ``f(long)`` over ``f(Integer)``)."""
    return bool(arg) and arg == param


__all__ = ["parameters", "arguments", "fits", "exact", "simple", "Declared"]
