"""Kotlin's and Scala's call sites, supertypes, typed variables and return types as the parse
records them in each definition's ``meta`` (session 27, h9): the syntax ``pipeline.calls`` links
(the links themselves: tests/integration/test_s27_jvm_calls.py). Real tree-sitter grammars, the
real parse; the forms a reader must not mistake (``x!!``, ``this@Outer``, a companion's
``Companion``, a variable retyped or unknown after a loop, a type parameter)."""

from __future__ import annotations

import json

from pipeline.parse import parse_file

KT = """\
class Outer : a.b.Base(), Api by impl {
    private val saved: Cart? = null
    fun f(cart: Cart) {
        cart!!.total()
        Pricer.Companion.of(1)
        this@Outer.g()
        super.h()
        var c = Cart()
        c = other()
        val r = thing as Cart
        val (p, q) = pair
        for (x in items) x.q()
    }
    fun <T> pick(): T = TODO()
    fun made(): Cart? = null
}

fun List<Item>.total(): Money = Money(0)

data class Item(val n: Int)
"""
SCALA = """\
class Engine(rule: Rule) extends a.b.Base, T with U[Int] {
  def run(): Unit = {
    val n = new a.b.Cart[Int](1)
    val m = new Cart with T
    val w: Option[Cart] = None
    this.rule.apply(1)
  }
  def g: a.b.Cart = ???
  def id[X](x: X): X = x
}

case class Item(n: Int)
"""


def _metas(path: str, text: str) -> dict[str, dict]:
    out = parse_file("r", path, text.encode())
    return {n["qualname"]: json.loads(n["meta"]) if n.get("meta") else {} for n in out.nodes[1:]}


def test_kotlin_calls_as_written():
    calls = [(c[0], c[1]) for c in _metas("a.kt", KT)["Outer.f"]["calls"]]
    assert calls == [("total", "cart"), ("of", "Pricer"), ("g", "."), ("h", "super"), ("Cart", ""),
                     ("other", ""), ("q", "x")]


def test_kotlin_supertypes_types_and_returns():
    m = _metas("a.kt", KT)
    assert m["Outer"]["bases"] == [["Base", "a.b"], ["Api", ""]]
    assert m["Outer"]["types"][0][:3] == ["self.saved", "Cart", ""]
    types = [t[:3] for t in m["Outer.f"]["types"]]
    assert types == [["cart", "Cart", ""], ["c", "Cart", ""], ["c", "other", ""], ["r", "Cart", ""],
                     ["p", "", ""], ["q", "", ""], ["x", "", ""]]
    assert m["Outer.made"]["returns"] == ["Cart", ""]
    assert "returns" not in m["Outer.pick"]                 # T: whatever the caller picks
    assert m["List.total"]["returns"] == ["Money", ""]      # the return type, not the receiver's
    assert "decl" not in m["Item"]                          # a body-less class is whole, not a prototype


def test_scala_calls_supertypes_types_and_returns():
    m = _metas("a.scala", SCALA)
    assert m["Engine"]["bases"] == [["Base", "a.b"], ["T", ""], ["U", ""]]
    assert [t[:3] for t in m["Engine"]["types"]] == [["rule", "Rule", ""], ["self.rule", "Rule", ""]]
    assert [(c[0], c[1]) for c in m["Engine.run"]["calls"]] == [("Cart", "a.b"), ("Cart", ""), ("apply", "this.rule")]
    assert [t[:3] for t in m["Engine.run"]["types"]] == [["n", "Cart", "a.b"], ["m", "Cart", ""], ["w", "Cart", ""]]
    assert m["Engine.g"]["returns"] == ["Cart", "a.b"]
    assert "returns" not in m["Engine.id"]
    assert "decl" not in m["Item"]
