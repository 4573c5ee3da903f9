"""Kotlin and Scala calls that name what their package, a package path or an extension puts in
scope (session 28, f5; found on kotlinpoet and scopt). On a real git repository through the real
index job and the real Tools:

- ``cart.itemCount()`` (``cart: Cart``) reaches ``fun Cart.itemCount()`` of the same package
  without an import, though another package's ``fun Order.itemCount()`` shares its name; an
  imported extension of a type not ours (``t.asCash()``, ``t: Int``); Scala 3 ``extension (c:
  Cart) def isEmpty2`` and an ``implicit class``'s method brought in by ``import shop.Syntax._``;
- a leading package path is the package: ``a.b.Square(2.0)``, ``a.b.Registry.register(s)``,
  ``a.b.makeSquare(1.0)``, Scala ``new shop.Cart(Nil)``, ``shop.Cart.empty()`` and an anonymous
  subclass ``new shop.Parser[Int]("p") { ... }`` (scopt's tests write it 74 times);
- a file that failed to parse (TypeSpec.kt hides its ``Builder.addThing``) makes the "method
  name" rule give no edge for that name, where it guessed ``FunSpec.Builder.addThing`` before;
- a re-index after a touched file gives the same edges as a ``--full`` index.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

K = "src/main/kotlin/"
S = "src/main/scala/shop/"
FILES = {
    K + "com/shop/Cart.kt": "package com.shop\n\nclass Cart(val items: List<String>) {\n"
                            "    fun total(): Int = items.size\n}\n",
    K + "com/shop/Pricing.kt": "package com.shop\n\n/** How many items the cart holds. */\n"
                               "fun Cart.itemCount(): Int = items.size\n",
    K + "com/other/Order.kt": "package com.other\n\nclass Order\n\nfun Order.itemCount(): Int = 0\n",
    K + "com/shop/util/Money.kt": "package com.shop.util\n\nfun Int.asCash(): String = \"$\" + this\n",
    K + "com/shop/Checkout.kt": """\
package com.shop

import com.shop.util.asCash

class Checkout {
    fun run(cart: Cart): String {
        val n = cart.itemCount()
        val t: Int = cart.total()
        return t.asCash() + n
    }
}
""",
    K + "a/b/Shapes.kt": """\
package a.b

class Square(val side: Double)

object Registry {
    fun register(s: Square): Int = 1
}

fun makeSquare(n: Double): Square = Square(n)
""",
    K + "c/Fq.kt": """\
package c

class Fq {
    fun go(): Int {
        val s = a.b.Square(2.0)
        return a.b.Registry.register(s) + a.b.makeSquare(1.0).side.toInt()
    }
}
""",
    S + "Cart.scala": """\
package shop

class Cart(val items: List[String]) {
  def total: Int = items.size
}

object Cart {
  def empty(): Cart = new Cart(Nil)
}
""",
    S + "Syntax.scala": """\
package shop

object Syntax {
  implicit class CartOps(val c: Cart) extends AnyVal {
    def count(): Int = c.items.size
  }
}
""",
    S + "Modern.scala": """\
package shop

extension (c: Cart)
  def isEmpty2(): Boolean = c.items.isEmpty

object Main:
  def main(args: Array[String]): Unit =
    val c = Cart.empty()
    println(c.isEmpty2())
""",
    S + "Parser.scala": """\
package shop

abstract class Parser[C](name: String) {
  def head(s: String): Unit = ()
}
""",
    "src/main/scala/app/Checkout.scala": """\
package app

import shop.Syntax._

class Checkout {
  def run(cart: shop.Cart): Int = {
    val c2 = shop.Cart.empty()
    val c3 = new shop.Cart(Nil)
    val p = new shop.Parser[Int]("p") {
      head("x")
    }
    cart.count() + c2.total + c3.total
  }
}
""",
    K + "com/shop/spec/TypeSpec.kt": """\
package com.shop.spec

class TypeSpec {
    val x = listOf(1, 2

    class Builder {
        fun addThing(n: Int): Builder = this
    }
}
""",
    K + "com/shop/spec/FunSpec.kt": """\
package com.shop.spec

class FunSpec {
    class Builder {
        fun addThing(n: Int): Builder = this
        fun seal(): FunSpec = FunSpec()
    }
}
""",
    K + "com/shop/gen/Gen.kt": """\
package com.shop.gen

import com.shop.spec.FunSpec

fun make(): Any = FunSpec.Builder().addThing(1)

fun sealed(): Any = FunSpec.Builder().seal()
""",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("f5jvm"), FILES, "kotlin and scala scope") as got:
        yield got


def _walk(tools, target: str, direction: str = "out", edge: str = "calls") -> list[tuple[str, str, str]]:
    """(file::qualname, as, how) of each edge of the target."""
    t, sid = tools
    items = t.walk(sid, target, edges=[edge], direction=direction, page_size=50).items
    return sorted((f"{i.path.rsplit('/', 1)[-1]}::{i.qualname}", i.meta.get("as"), i.meta.get("how")) for i in items)


def test_a_kotlin_extension_in_the_package_or_imported_has_its_callers(tools):
    assert _walk(tools, K + "com/shop/Pricing.kt::Cart.itemCount", "in") == [
        ("Checkout.kt::Checkout.run", "cart.itemCount", "extension")]
    assert _walk(tools, K + "com/other/Order.kt::Order.itemCount", "in") == []
    assert ("Money.kt::Int.asCash", "t.asCash", "extension") in _walk(tools, K + "com/shop/Checkout.kt::Checkout.run")


def test_scala_extensions_and_implicit_classes_have_their_callers(tools):
    assert _walk(tools, S + "Modern.scala::Cart.isEmpty2", "in") == [("Modern.scala::Main.main", "c.isEmpty2", "extension")]
    assert _walk(tools, S + "Syntax.scala::Syntax.CartOps.count", "in") == [
        ("Checkout.scala::Checkout.run", "cart.count", "extension")]


def test_a_leading_package_path_is_read_as_the_package(tools):
    assert _walk(tools, K + "c/Fq.kt::Fq.go") == [
        ("Shapes.kt::Registry.register", "a.b.Registry.register", "package path"),
        ("Shapes.kt::Square", "a.b.Square", "package path"),
        ("Shapes.kt::makeSquare", "a.b.makeSquare", "package path")]
    got = _walk(tools, "src/main/scala/app/Checkout.scala::Checkout.run")
    assert ("Cart.scala::Cart", "shop.Cart", "package path") in got
    assert ("Cart.scala::Cart.empty", "shop.Cart.empty", "package path") in got
    assert ("Parser.scala::Parser", "shop.Parser", "package path") in got     # an anonymous subclass


def test_a_file_that_failed_to_parse_withholds_a_method_name_guess(tools):
    builder = ("FunSpec.kt::FunSpec.Builder", "FunSpec.Builder", "imported module")
    assert _walk(tools, K + "com/shop/gen/Gen.kt::make") == [builder]       # TypeSpec.Builder.addThing is hidden
    assert _walk(tools, K + "com/shop/gen/Gen.kt::sealed") == [
        builder, ("FunSpec.kt::FunSpec.Builder.seal", "?.seal", "method name")]


def _edges(store) -> list[tuple]:
    from stratum.store import Store

    snap = Store(store).snapshot()
    label = {n["id"]: (n["path"], n["qualname"]) for n in
             snap.read("nodes", columns=["id", "path", "qualname"]).to_pylist()}
    rows = snap.read("edges", columns=["src", "dst", "kind", "weight", "meta"],
                     where="kind IN ('calls', 'inherits', 'imports', 'tests')").to_pylist()
    return sorted((label[e["src"]], label[e["dst"]], e["kind"], e["weight"], e["meta"]) for e in rows)


def test_a_touched_file_links_as_a_full_index_does(tmp_path):
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from tests.gitrepo import Repo

    cfg = IndexConfig(ray=False, num_cpus=1, embed=EmbedConfig(enabled=False))
    r = Repo(tmp_path / "repo")
    r.commit("init", FILES)
    index_repository(r.path, tmp_path / "inc", cfg)
    r.commit("touch", {K + "com/shop/Pricing.kt": FILES[K + "com/shop/Pricing.kt"].replace("items.size", "items.size + 0"),
                       K + "com/shop/spec/TypeSpec.kt": FILES[K + "com/shop/spec/TypeSpec.kt"] + "\n"})
    index_repository(r.path, tmp_path / "inc", cfg)
    index_repository(r.path, tmp_path / "full", cfg)
    got = _edges(tmp_path / "inc")
    assert got == _edges(tmp_path / "full")
    assert any(e[1] == (K + "com/shop/Pricing.kt", "Cart.itemCount") and e[2] == "calls" for e in got)
