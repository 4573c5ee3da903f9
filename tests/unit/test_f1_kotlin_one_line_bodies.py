"""Kotlin bodies closed on the line of their last member (session 28, f1): tree-sitter-kotlin 1.1.0
turns ``class A { companion object { fun e() = 1 } }`` and ``fun interface X { fun f(): Int }``
after a ``sealed interface`` into one flat ERROR node, losing A, X and every definition after
them. ``languages.kotlinsemis`` parses such a file again with a ``;`` in the blank before each such
``}`` (same length: no offset, line or text moves)."""

from __future__ import annotations

from pipeline import languages
from pipeline.languages import kotlinsemis
from pipeline.parse import parse_file


def _defs(src: str) -> list[tuple]:
    return [(n["kind"], n["qualname"], n["start_line"], n["signature"])
            for n in parse_file("r", "x.kt", src.encode()).nodes if n["kind"] != "file"]


def test_a_companion_object_on_one_line_keeps_its_class():
    assert _defs("class A { companion object { fun e() = 1 } }\n") == [
        ("class", "A", 1, "class A"), ("method", "A.e", 1, "fun e()")]


def test_a_fun_interface_on_one_line_keeps_the_rest_of_the_file():
    src = ("sealed interface Shape { }\nfun interface Area { fun of(s: Shape): Int }\n"
           "class Square { fun side() = 1 }\nfun total() = 2\n")
    assert _defs(src) == [
        ("class", "Shape", 1, "sealed interface Shape"), ("class", "Area", 2, "fun interface Area"),
        ("method", "Area.of", 2, "fun of(s: Shape): Int"), ("class", "Square", 3, "class Square"),
        ("method", "Square.side", 3, "fun side()"), ("function", "total", 4, "fun total()")]


def test_the_second_parse_touches_no_string_and_moves_nothing():
    src = b'class A { fun f() = "} x" }\nclass B { fun g() { h { it } } }\n'
    tree = kotlinsemis.parse(languages.parser("kotlin"), src)
    assert not tree.root_node.has_error
    assert tree.root_node.end_byte == len(src)
    strings = [n for n in _walk(tree.root_node) if n.type == "string_literal"]
    assert [src[s.start_byte:s.end_byte] for s in strings] == [b'"} x"']
    clean = b"class A {\n    fun f() = 1\n}\n"
    assert kotlinsemis.parse(languages.parser("kotlin"), clean).root_node.has_error is False


def _walk(node):
    yield node
    for c in node.children:
        yield from _walk(c)
