"""Kotlin and Scala files of a JVM monorepo are parsed (session 27, h6): they were file nodes alone
("not parsed"; a traceback frame was the only way to a line of them). On a real git repository
through the real index job and the real Tools:

- classes, interfaces, objects, enums, type aliases, Scala traits and case classes, functions and
  methods are nodes with qualified names (``Cart.Line.total``); an unnamed companion object's and a
  Scala companion object's members are their class's (``Cart.create``, ``Cart.apply``); an
  extension function is named by its receiver's type (``List.total``, Scala 3 ``String.shout``);
- a KDoc / Scaladoc block is the node's doc, the head its signature;
- search finds a Kotlin function and a Scala trait by name;
- imports land on the file that declares the name in its package (``import com.shop.money.Money``
  from ``Currency.kt``, which holds ``Money``: no file is named after it), a wildcard on the
  package's files, a Scala selector's names each on its own file.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

K = "shop/src/main/kotlin/com/shop/"
S = "pricing/src/main/scala/com/shop/pricing/"
CART_KT = """\
package com.shop.cart

import com.shop.money.Money
import com.shop.money.formatPrice
import com.shop.util.*
import kotlinx.coroutines.launch

/**
 * A shopping cart.
 *
 * Holds the items a customer picked.
 */
class Cart(val owner: String) : Checkout {
    private val items = mutableListOf<Item>()

    /** Adds an item; false when it was there. */
    fun add(item: Item): Boolean {
        fun local() = 1
        return items.add(item)
    }

    override fun pay(amount: Money): Boolean {
        return formatPrice(amount).isNotEmpty()
    }

    companion object {
        fun create(owner: String): Cart = Cart(owner)
    }

    inner class Line(val n: Int) {
        fun total() = n * 2
    }
}

interface Checkout {
    fun pay(amount: Money): Boolean
}

data class Item(val name: String, val price: Long)

enum class Color {
    RED, GREEN;

    fun hex(): String = ""
}

object Registry {
    fun all(): List<Cart> = emptyList()
}

/** Sum of the prices. */
fun List<Item>.total(): Long = sumOf { it.price }

typealias Carts = List<Cart>
"""
CURRENCY_KT = """\
package com.shop.money

/** An amount in cents. */
data class Money(val cents: Long)

/** The amount as a price tag. */
fun formatPrice(m: Money): String = "$" + m.cents / 100
"""
UTIL_KT = "package com.shop.util\n\nfun slug(s: String): String = s.lowercase()\n"
STRINGS_KT = "package com.shop.util\n\nobject Strings {\n    fun pad(s: String): String = s\n}\n"
PRICING_SCALA = """\
package com.shop.pricing

import com.shop.pricing.rules.{Discount, Tax => T}
import scala.collection.mutable

/** Prices a basket.
  *
  * Rules apply in order.
  */
trait PricingRule {
  def apply(cents: Long): Long
}

case class Basket(items: List[Long])

class Pricer(rules: List[PricingRule]) extends PricingRule {
  /** The total after every rule. */
  def apply(cents: Long): Long = rules.foldLeft(cents)((c, r) => r.apply(c))

  object Defaults {
    def none: Pricer = new Pricer(Nil)
  }
}

object Pricer {
  def of(rules: PricingRule*): Pricer = new Pricer(rules.toList)
}

enum Currency:
  case Eur, Usd

extension (s: String)
  def shout: String = s.toUpperCase
"""
RULES_SCALA = """\
package com.shop.pricing.rules

class Discount(pct: Int)

trait Tax {
  def rate: Double
}
"""
FILES = {K + "cart/Cart.kt": CART_KT, K + "money/Currency.kt": CURRENCY_KT, K + "util/Util.kt": UTIL_KT,
         K + "util/Strings.kt": STRINGS_KT, S + "Pricing.scala": PRICING_SCALA, S + "rules/Rules.scala": RULES_SCALA}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s27jvm"), FILES, "kotlin and scala") as got:
        yield got


def _get(tools, target: str, level: str = "summary"):
    t, sid = tools
    return t.get(sid, target, level=level).items[0]


def _contains(tools, target: str) -> list[str]:
    t, sid = tools
    return sorted(i.qualname for i in t.walk(sid, target, edges=["contains"], page_size=50).items)


def _imports(tools, path: str) -> list[str]:
    t, sid = tools
    return sorted(i.path for i in t.walk(sid, path, edges=["imports"], page_size=50).items)


def test_kotlin_definitions_are_nodes_with_qualified_names(tools):
    assert _contains(tools, K + "cart/Cart.kt") == [
        "Cart", "Carts", "Checkout", "Color", "Item", "List.total", "Registry"]
    assert _contains(tools, K + "cart/Cart.kt::Cart") == ["Cart.Line", "Cart.add", "Cart.create", "Cart.pay"]
    assert _contains(tools, K + "cart/Cart.kt::Cart.Line") == ["Cart.Line.total"]
    kinds = {q: (_get(tools, K + "cart/Cart.kt::" + q).kind, _get(tools, K + "cart/Cart.kt::" + q).text.split()[0])
             for q in ("Cart", "Checkout", "Color", "Registry", "Carts", "Cart.add", "List.total")}
    assert kinds == {"Cart": ("class", "class"), "Checkout": ("class", "interface"), "Color": ("class", "enum"),
                     "Registry": ("class", "class"), "Carts": ("class", "type"), "Cart.add": ("method", "method"),
                     "List.total": ("method", "method")}
    assert _get(tools, K + "cart/Cart.kt:19").qualname == "Cart.add"      # its local fun is its own code


def test_kotlin_get_gives_signature_and_kdoc(tools):
    assert _get(tools, K + "cart/Cart.kt::Cart.add").text == \
        "method Cart.add: fun add(item: Item): Boolean \u2014 Adds an item; false when it was there."
    api = _get(tools, K + "cart/Cart.kt::Cart", "api").text
    assert api.startswith("class Cart(val owner: String) : Checkout\n    A shopping cart.\n")
    assert "    fun create(owner: String): Cart\n" in api
    assert _get(tools, K + "cart/Cart.kt::List.total").text == \
        "method List.total: fun List<Item>.total(): Long \u2014 Sum of the prices."
    full = _get(tools, K + "money/Currency.kt::formatPrice", "full")
    assert (full.kind, full.start_line, full.text) == (
        "function", 7, 'fun formatPrice(m: Money): String = "$" + m.cents / 100')


def test_scala_definitions_are_nodes_with_qualified_names(tools):
    assert _contains(tools, S + "Pricing.scala") == ["Basket", "Currency", "Pricer", "PricingRule", "String.shout"]
    # the companion object's members are the class's; a nested object stays its own node
    assert _contains(tools, S + "Pricing.scala::Pricer") == ["Pricer.Defaults", "Pricer.apply", "Pricer.of"]
    assert _get(tools, S + "Pricing.scala::Pricer.Defaults.none").text == "method Pricer.Defaults.none: def none: Pricer"
    trait = _get(tools, S + "Pricing.scala::PricingRule", "api")
    assert (trait.kind, trait.text) == ("class", "trait PricingRule\n    Prices a basket.\n\n    Rules apply in order.\n"
                                                 "    def apply(cents: Long): Long")
    assert _get(tools, S + "Pricing.scala::Basket").text == "class Basket: case class Basket(items: List[Long])"
    assert _get(tools, S + "Pricing.scala::Pricer.apply").text == \
        "method Pricer.apply: def apply(cents: Long): Long \u2014 The total after every rule."
    assert _get(tools, S + "Pricing.scala::String.shout").kind == "function"


def test_search_finds_a_kotlin_function_and_a_scala_trait(tools):
    t, sid = tools
    got = t.search(sid, "formatPrice", page_size=3).items
    assert (got[0].path, got[0].qualname, got[0].kind) == (K + "money/Currency.kt", "formatPrice", "function")
    got = t.search(sid, "PricingRule trait", page_size=3).items
    assert (got[0].path, got[0].qualname) == (S + "Pricing.scala", "PricingRule")
    got = t.search(sid, "Tax", kinds=["class"], language="scala", page_size=3).items
    assert [(i.path, i.qualname) for i in got][:1] == [(S + "rules/Rules.scala", "Tax")]


def test_imports_land_on_the_file_declaring_the_name_in_its_package(tools):
    # Money and formatPrice live in Currency.kt; util.* is both files of com.shop.util; kotlinx is outside
    assert _imports(tools, K + "cart/Cart.kt") == [K + "money/Currency.kt", K + "util/Strings.kt", K + "util/Util.kt"]
    # a Scala selector's names: Discount and Tax (renamed T) are both in Rules.scala
    assert _imports(tools, S + "Pricing.scala") == [S + "rules/Rules.scala"]
    t, sid = tools
    assert sorted(i.path for i in t.walk(sid, K + "money/Currency.kt", edges=["imports"], direction="in").items) == \
        [K + "cart/Cart.kt"]
