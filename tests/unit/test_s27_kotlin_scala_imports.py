"""Kotlin and Scala imports (session 27, h6): the records a real parse reads, and where they resolve
against path sets (``languages.jvmpackages``: the file declaring the name in its package; no
class per file there)."""

from __future__ import annotations

from pipeline.imports import FileImports, resolve, resolve_paths
from pipeline.parse import parse_file

K = "app/src/main/kotlin/"
S = "core/src/main/scala/"


def _parsed(files: dict[str, str]) -> list[FileImports]:
    return [parse_file("r", p, code.encode()).file_imports() for p, code in files.items()]


def _records(path: str, code: str) -> list[tuple]:
    return [(r.kind, r.target, r.names, r.bound) for r in parse_file("r", path, code.encode()).imports]


def test_kotlin_import_records_and_its_package():
    code = ("package com.shop.cart\n\nimport com.shop.money.Money\nimport com.shop.util.*\n"
            "import com.shop.money.Money as M\n\nclass Cart\nobject Registry\nfun List<Int>.total() = 1\n"
            "val limit = 3\ntypealias Carts = List<Cart>\n")
    assert _records("Cart.kt", code) == [
        ("package", "com.shop.cart", ("Cart", "Registry", "total", "limit", "Carts"), ()),
        ("import", "com.shop.money.Money", (), ()),
        ("import", "com.shop.util", ("*",), ()),
        ("import", "com.shop.money.Money", (), ("M",))]


def test_scala_import_records_selectors_and_packages():
    code = ("package com.shop\npackage pricing\n\nimport a.b.{C, D => E, F as G, H => _}\nimport a.b._\n"
            "import x.Y, z.W\n\ntrait Rule\nobject Rules\ndef top = 1\n")
    assert _records("Rules.scala", code) == [
        ("package", "com.shop.pricing", ("Rule", "Rules", "top"), ()),       # chained clauses: one package
        ("import", "a.b.C", (), ()), ("import", "a.b.D", (), ("E",)), ("import", "a.b.F", (), ("G",)),
        ("import", "a.b", ("*",), ()),
        ("import", "x.Y", (), ()), ("import", "z.W", (), ())]
    nested = "package a {\n  class X\n  package b {\n    class Y\n  }\n}\n"
    assert [r for r in _records("N.scala", nested) if r[0] == "package"] == [
        ("package", "a", ("X",), ()), ("package", "a.b", ("Y",), ())]


def test_a_kotlin_import_lands_on_the_file_declaring_the_name_in_its_package():
    files = {
        K + "shop/Cart.kt": ("package com.shop\n\nimport com.shop.money.Money\nimport com.shop.money.formatPrice\n"
                             "import com.shop.money.Money.Companion.ZERO\nimport kotlinx.coroutines.launch\n"),
        K + "shop/money/Currency.kt": "package com.shop.money\n\ndata class Money(val c: Long)\n",
        K + "shop/money/Format.kt": "package com.shop.money\n\nfun formatPrice(m: Money) = \"\"\n",
        K + "shop/money/Other.kt": "package com.shop.money\n\nclass Other\n",
    }
    assert resolve_paths(_parsed(files), set(files)) == {
        (K + "shop/Cart.kt", K + "shop/money/Currency.kt"),          # Money, and Money's member ZERO
        (K + "shop/Cart.kt", K + "shop/money/Format.kt")}            # a top-level function
    _, ext = resolve("r", _parsed(files), set(files))
    assert {e["target"] for e in ext} == {"kotlinx.coroutines.launch"}


def test_wildcards_take_the_package_and_what_no_record_declares_is_found_by_path():
    files = {
        S + "app/Main.scala": ("package app\n\nimport com.shop.model._\nimport com.shop.legacy.Order\n"
                               "import com.shop.model.Item.Line\n"),
        S + "com/shop/model/Item.scala": "package com.shop.model\n\nclass Item\n",
        S + "com/shop/model/Basket.scala": "package com.shop.model\n\nclass Basket\n",
        "legacy/src/main/java/com/shop/legacy/Order.java": "package com.shop.legacy;\n\npublic class Order {}\n",
        K + "Plain.kt": "import com.shop.legacy.*\n",        # no package record of com.shop.legacy: its folder
    }
    got = resolve_paths(_parsed(files), set(files))
    assert got == {
        (S + "app/Main.scala", S + "com/shop/model/Item.scala"),
        (S + "app/Main.scala", S + "com/shop/model/Basket.scala"),
        (S + "app/Main.scala", "legacy/src/main/java/com/shop/legacy/Order.java"),     # a Java class, by its path
        (K + "Plain.kt", "legacy/src/main/java/com/shop/legacy/Order.java")}


def test_a_files_own_package_record_is_no_import():
    files = {K + "a/A.kt": "package a\n\nclass A\n"}
    edges, ext = resolve("r", _parsed(files), set(files))
    assert (edges, ext) == ([], [])
