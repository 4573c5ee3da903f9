"""A Java file importing a class that a Kotlin or Scala file declares (session 28, f1): the import
reaches that file as a Kotlin import of it does (``languages.jvmpackages``: the package's file
declaring the name, whatever the file is called), and the Java caller's call reaches the Kotlin
method. Before, Java's rules looked for ``.java`` files only: the import was external."""

from __future__ import annotations

import json

from pipeline.calls import resolve as resolve_calls
from pipeline.imports import FileImports, resolve, resolve_paths
from pipeline.parse import parse_file

J = "app/src/main/java/com/shop/"
K = "app/src/main/kotlin/com/shop/"
FILES = {
    J + "Checkout.java": ("package com.shop;\n\nimport com.shop.money.Money;\nimport com.shop.money.Currency;\n"
                          "import static com.shop.money.FormatKt.formatPrice;\nimport com.shop.pricing.Rules;\n"
                          "import java.util.List;\n\npublic class Checkout {\n"
                          "  String total(Money m) { return m.plus(m).show(); }\n}\n"),
    J + "Wild.java": "package com.shop;\n\nimport com.shop.money.*;\n\nclass Wild {}\n",
    J + "money/Legacy.java": "package com.shop.money;\n\npublic class Legacy {}\n",
    K + "money/Money.kt": ("package com.shop.money\n\ndata class Money(val cents: Long) {\n"
                           "    fun plus(o: Money) = Money(cents + o.cents)\n    fun show() = \"$cents\"\n}\n"
                           "enum class Currency { EUR, USD }\n"),
    K + "money/Format.kt": "package com.shop.money\n\nfun formatPrice(m: Money) = m.show()\n",
    "core/src/main/scala/com/shop/pricing/AllRules.scala": "package com.shop.pricing\n\nclass Rules\n",
}


def _parsed() -> list[FileImports]:
    return [parse_file("r", p, code.encode()).file_imports() for p, code in FILES.items()]


def test_a_java_import_of_a_kotlin_or_scala_class_reaches_the_file_declaring_it():
    got = resolve_paths(_parsed(), set(FILES))
    assert {t for s, t in got if s == J + "Checkout.java"} == {
        K + "money/Money.kt",                                   # Money and Currency, declared in Money.kt
        K + "money/Format.kt",                                  # FormatKt: Format.kt's top-level functions
        "core/src/main/scala/com/shop/pricing/AllRules.scala"}  # a Scala class, not named by its file
    assert {t for s, t in got if s == J + "Wild.java"} == {      # a wildcard: the package's files, all languages
        J + "money/Legacy.java", K + "money/Money.kt", K + "money/Format.kt"}
    _, ext = resolve("r", _parsed(), set(FILES))
    assert {e["target"] for e in ext} == {"java.util.List"}


def test_a_java_caller_reaches_the_kotlin_method():
    nodes = [n for p, s in FILES.items() for n in parse_file("r", p, s.encode()).nodes]
    bindings: dict = {}
    edges, _ = resolve("r", _parsed(), set(FILES), bindings=bindings)
    name = {n["id"]: f"{n['path'].rsplit('/', 1)[-1]}::{n['qualname']}" for n in nodes}
    calls = {(name[e["src"]], name[e["dst"]]) for e in resolve_calls(nodes, edges, bindings)
             if e["kind"] == "calls" and json.loads(e.get("meta") or "{}").get("how") != "name"}
    assert ("Checkout.java::Checkout.total", "Money.kt::Money.plus") in calls
