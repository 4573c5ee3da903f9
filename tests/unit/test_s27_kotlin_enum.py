"""A one-line Kotlin class body is a class, not an enum: tree-sitter-kotlin 1.1.0 reads `{ fun g() {} }`
on one line as an ``enum_class_body``, and the enum pattern matched on that body alone (review r1)."""

from __future__ import annotations

from pipeline.parse import parse_file


def _defs(src: str) -> list[tuple]:
    return [(n["kind"], n["subkind"], n["qualname"]) for n in parse_file("r", "x.kt", src.encode()).nodes
            if n["kind"] != "file"]


def test_a_one_line_class_body_is_a_class_and_an_enum_class_an_enum():
    assert _defs("class A { fun g() {} }\n")[0] == ("class", "class", "A")
    assert _defs("enum class Color { RED, GREEN }\n") == [("class", "enum", "Color")]
