"""Kotlin and Scala definitions have ``calls`` and ``inherits`` edges (session 27, h9): they were
parsed, but their call sites and supertypes were never recorded, so ``walk --edge calls`` /
``--edge inherits`` of a JVM monorepo's Kotlin and Scala code found nothing. On a real git
repository through the real index job and the real Tools:

- a call by simple name in the file, and of an imported top-level function;
- a constructor call (Kotlin ``Cart("ada")``, Scala ``new Discount(3)`` / ``Discount(5)``);
- ``this.f()``, and a method of a typed local (``val cart = Cart()``, ``val e: Discount``, a
  parameter ``cart: Cart``, a value a function declares it returns: ``val x = Rules.default()``,
  a class's ``val`` or constructor parameter read as ``this.rule``), where the method's name alone
  is ambiguous (two classes define ``total``, ``apply``);
- an object's or a companion object's member (``Pricer.of``, ``Money.of``, ``Rules.default``);
- supertypes (``class Cart(...) : Base(), Priced``, ``class Discount extends BaseRule with
  Serializable``): a class's bases, an interface's or trait's implementers; an outside type
  (``Serializable``) links to nothing.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

K = "shop/src/main/kotlin/com/shop/"
S = "pricing/src/main/scala/com/shop/"
MONEY_KT = """\
package com.shop.money

class Money(val cents: Long) {
    fun plus(other: Money): Money = Money(cents + other.cents)

    companion object {
        fun of(cents: Long): Money = Money(cents)
    }
}

fun formatPrice(m: Money): String = m.cents.toString()
"""
CART_KT = """\
package com.shop.cart

import com.shop.money.Money

interface Priced {
    fun total(): Money
}

abstract class Base {
    fun audit(): Int = 1
}

class Cart(val owner: String) : Base(), Priced {
    fun add(sku: String) {
        this.audit()
    }

    fun subtotal(): Money = Money.of(1)

    override fun total(): Money {
        val fee = Money.of(2)
        return this.subtotal().plus(fee)
    }
}

object Pricer {
    fun of(n: Int): Money = Money.of(n.toLong())
}
"""
WISH_KT = """\
package com.shop.wish

import com.shop.money.Money

class Wishlist {
    fun add(sku: String) {}
    fun total(): Money = Money.of(0)
}
"""
CHECKOUT_KT = """\
package com.shop.checkout

import com.shop.cart.Cart
import com.shop.cart.Pricer
import com.shop.money.formatPrice
import com.shop.money.Money

class Checkout {
    private val saved: Cart = Cart("bob")

    fun run(): String {
        val cart = Cart("ada")
        cart.add("apple")
        return formatPrice(cart.total())
    }

    fun typed(cart: Cart): Money = cart.total()

    fun priced(): Money = Pricer.of(3)

    fun banner(): String = label()

    fun savedTotal(): Money = this.saved.total()
}

fun label(): String = "checkout"
"""
RULES_SCALA = """\
package com.shop.pricing

trait Rule {
  def apply(n: Int): Int
}

abstract class BaseRule extends Rule {
  def name(): String = "base"
}

class Discount(pct: Int) extends BaseRule with Serializable {
  def apply(n: Int): Int = n - pct
  def describe(): String = this.name()
}

object Rules {
  def default(): Discount = Discount(5)
}
"""
OTHER_SCALA = """\
package com.shop.other

class Doubler {
  def apply(n: Int): Int = n * 2
  def describe(): String = "x2"
}
"""
ENGINE_SCALA = """\
package com.shop.engine

import com.shop.pricing.{Discount, Rules}

class Engine(rule: Discount) {
  def run(n: Int): Int = {
    val d = new Discount(3)
    val e: Discount = Rules.default()
    d.apply(n) + e.describe().length + this.rule.apply(n)
  }

  def viaField(n: Int): Int = this.rule.apply(n)

  def made(): String = {
    val x = Rules.default()
    x.describe()
  }
}
"""
FILES = {K + "money/Money.kt": MONEY_KT, K + "cart/Cart.kt": CART_KT, K + "wish/Wishlist.kt": WISH_KT,
         K + "checkout/Checkout.kt": CHECKOUT_KT, S + "pricing/Rules.scala": RULES_SCALA,
         S + "other/Doubler.scala": OTHER_SCALA, S + "engine/Engine.scala": ENGINE_SCALA}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s27jvmcalls"), FILES, "kotlin and scala calls") as got:
        yield got


def _walk(tools, target: str, edge: str, direction: str = "out") -> list[tuple[str, str, str]]:
    """(path::qualname, as, how) of each edge the target has."""
    t, sid = tools
    items = t.walk(sid, target, edges=[edge], direction=direction, page_size=50).items
    return sorted((f"{i.path.rsplit('/', 1)[-1]}::{i.qualname}", i.meta.get("as"), i.meta.get("how")) for i in items)


def _callees(tools, target: str) -> list[tuple[str, str]]:
    return [(q, a) for q, a, _ in _walk(tools, target, "calls")]


def test_kotlin_constructor_imported_function_and_typed_local(tools):
    assert _callees(tools, K + "checkout/Checkout.kt::Checkout.run") == [
        ("Cart.kt::Cart", "Cart"), ("Cart.kt::Cart.add", "cart.add"), ("Cart.kt::Cart.total", "cart.total"),
        ("Money.kt::formatPrice", "formatPrice")]
    assert _walk(tools, K + "checkout/Checkout.kt::Checkout.typed", "calls") == [
        ("Cart.kt::Cart.total", "cart.total", "variable's class")]
    assert _walk(tools, K + "checkout/Checkout.kt::Checkout.savedTotal", "calls") == [
        ("Cart.kt::Cart.total", "this.saved.total", "attribute's class")]


def test_kotlin_object_and_companion_members_and_names_in_the_file(tools):
    assert _callees(tools, K + "checkout/Checkout.kt::Checkout.priced") == [("Cart.kt::Pricer.of", "Pricer.of")]
    assert _callees(tools, K + "cart/Cart.kt::Pricer.of") == [("Money.kt::Money.of", "Money.of")]
    assert _callees(tools, K + "money/Money.kt::Money.of") == [("Money.kt::Money", "Money")]
    assert _walk(tools, K + "checkout/Checkout.kt::Checkout.banner", "calls") == [
        ("Checkout.kt::label", "label", "same file")]


def test_kotlin_this_calls_reach_the_own_class_and_its_base(tools):
    assert _walk(tools, K + "cart/Cart.kt::Cart.add", "calls") == [("Cart.kt::Base.audit", "this.audit", "own class")]
    assert ("Cart.kt::Cart.subtotal", "this.subtotal", "own class") in \
        _walk(tools, K + "cart/Cart.kt::Cart.total", "calls")


def test_who_calls_a_kotlin_method(tools):
    assert _callees(tools, K + "cart/Cart.kt::Cart.total") == [     # plus: the one method of its name
        ("Cart.kt::Cart.subtotal", "this.subtotal"), ("Money.kt::Money.of", "Money.of"), ("Money.kt::Money.plus", "?.plus")]
    assert [q for q, _, _ in _walk(tools, K + "cart/Cart.kt::Cart.total", "calls", "in")] == \
        ["Checkout.kt::Checkout.run", "Checkout.kt::Checkout.savedTotal", "Checkout.kt::Checkout.typed"]


def test_kotlin_supertypes_and_implementers(tools):
    assert _walk(tools, K + "cart/Cart.kt::Cart", "inherits") == [
        ("Cart.kt::Base", "Base", "same file"), ("Cart.kt::Priced", "Priced", "same file")]
    assert [q for q, _, _ in _walk(tools, K + "cart/Cart.kt::Priced", "inherits", "in")] == ["Cart.kt::Cart"]


def test_scala_constructors_typed_values_and_object_members(tools):
    assert _callees(tools, S + "engine/Engine.scala::Engine.run") == [
        ("Rules.scala::Discount", "Discount"), ("Rules.scala::Discount.apply", "d.apply"),
        ("Rules.scala::Discount.describe", "e.describe"), ("Rules.scala::Rules.default", "Rules.default")]
    made = _walk(tools, S + "engine/Engine.scala::Engine.made", "calls")
    assert made[0] == ("Rules.scala::Discount.describe", "x.describe", "variable's class")
    assert [(q, a) for q, a, _ in made[1:]] == [("Rules.scala::Rules.default", "Rules.default")]
    assert _walk(tools, S + "engine/Engine.scala::Engine.viaField", "calls") == [
        ("Rules.scala::Discount.apply", "this.rule.apply", "attribute's class")]
    assert _callees(tools, S + "pricing/Rules.scala::Rules.default") == [("Rules.scala::Discount", "Discount")]
    assert _walk(tools, S + "pricing/Rules.scala::Discount.describe", "calls") == [
        ("Rules.scala::BaseRule.name", "this.name", "own class")]


def test_scala_supertypes_and_implementers(tools):
    assert _walk(tools, S + "pricing/Rules.scala::Discount", "inherits") == [
        ("Rules.scala::BaseRule", "BaseRule", "same file")]
    assert [q for q, _, _ in _walk(tools, S + "pricing/Rules.scala::Rule", "inherits", "in")] == \
        ["Rules.scala::BaseRule"]


BARE_KT = """\
package com.shop.bare

class Repo {
    fun find(): Int = 1
}

class Store {
    fun find(): Int = 2
}

class Service(val repo: Repo) {
    private val store = Store()

    fun helper(): Int = 1

    fun run(): Int = helper() + repo.find() + store.find()

    companion object {
        fun create(): Service = Service(Repo())
    }

    fun again(): Service = create()
}
"""
BARE_SCALA = """\
package com.shop.bare

class Tax {
  def rate(): Int = 1
}

class Vat {
  def rate(): Int = 2
}

class Book(tax: Tax) {
  def helper(): Int = 1
  def run(): Int = helper() + tax.rate()
}
"""


def test_bare_names_in_a_class_are_its_methods_and_fields(tmp_path):
    from tests.gitrepo import indexed_tools

    files = {K + "bare/Service.kt": BARE_KT, S + "bare/Book.scala": BARE_SCALA}
    with indexed_tools(tmp_path, files, "bare names") as got:
        assert _walk(got, K + "bare/Service.kt::Service.run", "calls") == [
            ("Service.kt::Repo.find", "repo.find", "attribute's class"),
            ("Service.kt::Service.helper", "helper", "own class"),
            ("Service.kt::Store.find", "store.find", "attribute's class")]
        assert _walk(got, K + "bare/Service.kt::Service.again", "calls") == [
            ("Service.kt::Service.create", "create", "own class")]
        assert _walk(got, S + "bare/Book.scala::Book.run", "calls") == [
            ("Book.scala::Book.helper", "helper", "own class"), ("Book.scala::Tax.rate", "tax.rate", "attribute's class")]


ALIAS_KT = """\
package com.shop.alias

import com.shop.money.Money as Cash
import java.util.UUID

class Till {
    fun open(): Cash = Cash.of(1)
    fun id(): String = UUID.randomUUID().toString()
}
"""
UUID_KT = """\
package com.shop.fake

object UUID {
    fun randomUUID(): Int = 4
}
"""


def test_imported_alias_and_outside_class(tmp_path):
    from tests.gitrepo import indexed_tools

    files = {K + "money/Money.kt": MONEY_KT, K + "alias/Till.kt": ALIAS_KT, K + "fake/UUID.kt": UUID_KT}
    with indexed_tools(tmp_path, files, "aliases") as got:
        assert _callees(got, K + "alias/Till.kt::Till.open") == [("Money.kt::Money.of", "Cash.of")]
        assert _callees(got, K + "alias/Till.kt::Till.id") == []
