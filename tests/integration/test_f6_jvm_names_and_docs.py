"""Scala and Kotlin definitions as an agent names them (session 28, f6; found on scopt and a Kotlin
test). On a real git repository through the real index job and the real Tools:

- ``get OParser.scala::OParserBuilder.head --level api`` shows the Scaladoc right above it (the
  def above, its body on the next line, held it); ``OParserBuilder.programName`` ends at its own
  body; ``get OParser.scala:LINE`` of the ``def head`` line is head, not programName;
- ``fun `total applies discount`()`` is ``CartTest.total applies discount``: ``get``, ``remember``
  and ``walk`` take that name, and a JVM frame naming it is a traceback frame on it.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

SCALA = "shared/src/main/scala/scopt/OParser.scala"
KT = "src/test/kotlin/com/shop/CartTest.kt"
FILES = {
    SCALA: """\
package scopt

abstract class OParserBuilder[C] {
  def programName(x: String): String =
    x.trim

  /** adds usage text. */
  def head(xs: String*): String =
    xs.mkString(" ")
}
""",
    "src/main/kotlin/com/shop/Cart.kt": """\
package com.shop

class Cart {
    fun total(): Int = 108
}
""",
    KT: """\
package com.shop

import org.junit.Test

class CartTest {
    @Test
    fun `total applies discount`() {
        val c = Cart()
        check(c.total() == 108)
    }
}
""",
}
NAME = f"{KT}::CartTest.total applies discount"


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("f6jvm"), FILES, "scala and kotlin as written") as got:
        yield got


def test_a_scaladoc_below_a_def_with_its_body_below_is_the_next_defs(tools):
    t, s = tools
    head = t.get(s, f"{SCALA}::OParserBuilder.head", "api").items[0]
    assert "adds usage text." in head.text, head.text
    name = t.get(s, f"{SCALA}::OParserBuilder.programName", "full").items[0]
    assert (name.start_line, name.end_line) == (4, 5)
    assert "usage" not in name.text, name.text
    at = t.get(s, f"{SCALA}:8", "summary").items[0]
    assert at.qualname == "OParserBuilder.head", at.qualname


def test_a_backticked_kotlin_name_is_named_as_written(tools):
    t, s = tools
    it = t.get(s, NAME, "summary").items[0]
    assert (it.qualname, it.start_line, it.end_line) == ("CartTest.total applies discount", 6, 10)
    assert "totalappliesdiscount" not in it.text
    quoted = t.get(s, f"{KT}::CartTest.`total applies discount`", "summary").items[0]    # copied from the source
    assert quoted.id == it.id
    nid = t.remember(s, "rca", "the discount is applied twice", [NAME]).data["note_id"]
    assert nid in [n.get("id") for n in t.get(s, NAME, "summary").items[0].notes]
    calls = t.walk(s, NAME, edges=["calls"], page_size=10).items
    assert sorted(c.qualname for c in calls) == ["Cart", "Cart.total"]


def test_a_jvm_frame_of_a_backticked_name_lands_on_it(tools):
    t, s = tools
    tb = ("java.lang.IllegalStateException: Check failed.\n"
          "\tat com.shop.CartTest.total applies discount(CartTest.kt:9)\n"
          "\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)\n")
    first = t.search(s, tb).items[0]
    assert first.qualname == "CartTest.total applies discount" and first.why.startswith("traceback frame"), first.why
