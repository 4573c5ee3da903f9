"""Scala and Kotlin definitions as written (session 28, f6; found on scopt and kotlinpoet):

- tree-sitter-scala ends a ``def f =`` whose body stands on the next lines where the next
  definition starts, so the next def's Scaladoc and the blank lines fell inside it: 36 of 71
  Scaladocs in scopt were lost, spans overlapped, and a line of the next def found this one. A
  definition ends at its last token; the comments after it that stand no deeper than it lead what
  follows (one indented as its body stays in it, in Python too);
- a top-level Kotlin ``@OptIn(X::class)`` above ``public fun`` (read by the grammar as an
  expression) belongs to the function: its KDoc above was lost;
- a name in backticks (``fun `total applies discount`()``, ``def `type```) is what stands between
  them, spaces kept (it was ``\\`totalappliesdiscount\\```), and a JVM frame naming it is read.
"""

from __future__ import annotations

from pipeline.parse import definition_spans, parse_file
from stratum.tracebacks import frames

SCALA = b"""\
package shop

class Cart(val items: List[Int]) {
  def programName(x: String): String =
    x.trim

  /** Adds usage text. */
  def head(xs: String*): String =
    xs.mkString(" ")

  /** Sum of prices. */
  def total: Int = {
    items.sum
  }
}
"""


def _nodes(path: str, src: bytes) -> dict[str, dict]:
    return {n["qualname"]: n for n in parse_file("r", path, src).nodes if n["kind"] != "file"}


def test_a_scala_def_with_its_body_below_ends_at_its_body_and_leaves_the_next_doc():
    got = _nodes("Cart.scala", SCALA)
    assert [(q, n["start_line"], n["end_line"], n["doc"]) for q, n in got.items()] == [
        ("Cart", 3, 15, None),
        ("Cart.programName", 4, 5, None),
        ("Cart.head", 8, 9, "Adds usage text."),
        ("Cart.total", 12, 14, "Sum of prices.")]
    assert got["Cart.programName"]["full"] == "  def programName(x: String): String =\n    x.trim"
    assert got["Cart.head"]["summary"] == "method Cart.head: def head(xs: String*): String \u2014 Adds usage text."
    assert "Adds usage text" in got["Cart"]["api"].split("def head")[1]
    assert definition_spans("Cart.scala", SCALA) == [
        (3, 15, "Cart", "class"), (4, 5, "Cart.programName", "method"),
        (8, 9, "Cart.head", "method"), (12, 14, "Cart.total", "method")]


def test_scala_3_braces_off_a_comment_keeps_to_the_definition_its_column_says():
    src = b"""\
class A:
  def f =
    1
  // the end of A

/** B's doc. */
class B
"""
    got = _nodes("a.scala", src)
    assert [(q, n["start_line"], n["end_line"], n["doc"]) for q, n in got.items()] == [
        ("A", 1, 4, None), ("A.f", 2, 3, None), ("B", 7, 7, "B's doc.")]


def test_a_comment_indented_as_a_python_body_stays_in_it():
    src = b"def f():\n    x = 1\n    # more to come\n\n\n# about g\ndef g():\n    pass\n"
    got = _nodes("m.py", src)
    assert (got["f"]["start_line"], got["f"]["end_line"]) == (1, 3)
    assert got["f"]["full"].endswith("# more to come")
    assert got["g"]["doc"] is None           # a docstring language: its comments are no doc


def test_a_top_level_kotlin_annotation_read_as_an_expression_keeps_the_kdoc():
    src = b"""\
package a

fun plain(): Int = 1

/** Reads the class. */
@OptIn(Delicate::class)
public fun Class<*>.toSpec(): String =
  name
"""
    got = _nodes("Specs.kt", src)["Class.toSpec"]
    assert (got["start_line"], got["end_line"], got["doc"]) == (6, 8, "Reads the class.")


def test_a_name_in_backticks_is_the_name_as_written():
    kt = b"""\
package com.shop

class CartTest {
    @Test
    fun `total applies discount`() {
        check(true)
    }
}
"""
    got = _nodes("CartTest.kt", kt)
    m = got["CartTest.total applies discount"]
    assert m["name"] == "total applies discount"
    assert m["summary"] == "method CartTest.total applies discount: @Test fun `total applies discount`()"
    assert list(_nodes("T.scala", b"object T {\n  def `type`: Int = 1\n}\n")) == ["T", "T.type"]


def test_a_jvm_frame_of_a_name_with_spaces_is_read():
    tb = ("java.lang.AssertionError: Check failed.\n"
          "\tat com.shop.CartTest.total applies discount(CartTest.kt:6)\n"
          "\tat com.shop.CartTest.-dashed(CartTest.kt:9)\n"
          "\tat com.shop.Cart.total(Cart.kt:4)\n"
          "it failed at step one of com.shop.Cart.add(Cart.java:3)\n")
    got = [(f.path, f.line, f.func) for f in frames(tb)]
    assert got == [("Cart.java", 3, ""),     # prose around a place names no method: a bare place
                   ("com/shop/CartTest.kt", 6, "total applies discount"), ("com/shop/CartTest.kt", 9, "-dashed"),
                   ("com/shop/Cart.kt", 4, "total")]
