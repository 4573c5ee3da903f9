"""Kotlin and Scala tests link to what they test by their convention, as Java's do (session 27: they
were parsed, but `CartTest.kt` and `PricerSpec.scala` were no tests). Kotlin names tests as Java does
(and a Kotlin test may test a Java class: one family); Scala's ScalaTest/specs2/MUnit suffixes
Spec and Suite count in a test folder only. Real git repository, the real index job, the real Tools."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "src/main/kotlin/shop/Cart.kt": "package shop\n\nclass Cart {\n    fun total(): Int {\n        return 1\n    }\n}\n",
    "src/test/kotlin/shop/CartTest.kt": ("package shop\n\nclass CartTest {\n    fun totals() {\n"
                                         "        Cart().total()\n    }\n}\n"),
    "src/main/java/shop/Legacy.java": "package shop;\n\npublic class Legacy {\n    public int run() { return 1; }\n}\n",
    "src/test/kotlin/shop/LegacyTest.kt": "package shop\n\nclass LegacyTest {\n    fun runs() {\n    }\n}\n",
    "src/main/scala/shop/Pricer.scala": "package shop\n\nclass Pricer {\n  def of(n: Int): Int = n * 2\n}\n",
    "src/test/scala/shop/PricerSpec.scala": ("package shop\n\nclass PricerSpec {\n  def doubles(): Unit = {\n"
                                             "    new Pricer().of(1)\n  }\n}\n"),
    "src/main/scala/shop/Api.scala": "package shop\n\nclass Api {\n  def get(): Int = 1\n}\n",
    "src/main/scala/shop/ApiSpec.scala": "package shop\n\nclass ApiSpec {\n  def version(): Int = 3\n}\n",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s27jvmtests"), FILES, "jvm") as got:
        yield got


def _tests_of(tools, path: str) -> list[str]:
    t, s = tools
    return sorted(i.path for i in t.walk(s, path, edges=["tests"], direction="in").items)


def test_kotlin_and_scala_tests_link_to_their_subjects(tools):
    assert _tests_of(tools, "src/main/kotlin/shop/Cart.kt") == ["src/test/kotlin/shop/CartTest.kt"]
    assert _tests_of(tools, "src/main/java/shop/Legacy.java") == ["src/test/kotlin/shop/LegacyTest.kt"]
    assert _tests_of(tools, "src/main/scala/shop/Pricer.scala") == ["src/test/scala/shop/PricerSpec.scala"]


def test_a_spec_among_the_code_is_no_test(tools):
    assert _tests_of(tools, "src/main/scala/shop/Api.scala") == []
