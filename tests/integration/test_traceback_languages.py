"""A JVM stack trace and a Go panic pasted into search lead to the code their frames name, on a real
git repository with Java and Go code indexed by the real pipeline (tree-sitter's Java and Go
grammars): the frame where it was raised first, a JVM frame found under its class's package folder."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

CART_JAVA = """package com.shop;

public class Cart {
    private final java.util.List<Integer> prices = new java.util.ArrayList<>();

    public int total() {
        if (prices.isEmpty()) {
            throw new IllegalStateException("cart is empty");
        }
        return prices.stream().mapToInt(Integer::intValue).sum();
    }
}
"""
MAIN_JAVA = """package com.shop;

public class Main {
    public static void main(String[] args) {
        System.out.println(new Cart().total());
    }
}
"""
OTHER_CART_JAVA = """package com.legacy;

public class Cart {
    public int total() {
        return 0;
    }
}
"""
CART_GO = """package shop

func Total(prices []int) int {
\tsum := 0
\tfor i := 0; i <= len(prices); i++ {
\t\tsum += prices[i]
\t}
\treturn sum
}
"""
MAIN_GO = """package main

import "example.com/shop"

func main() {
\tprintln(shop.Total([]int{1, 2, 3}))
}
"""

JAVA_TRACE = """Exception in thread "main" java.lang.IllegalStateException: cart is empty
\tat com.shop.Cart.total(Cart.java:8)
\tat com.shop.Main.main(Main.java:5)
"""
GO_TRACE = """panic: runtime error: index out of range [3] with length 3

goroutine 1 [running]:
example.com/shop.Total(...)
\t/home/dev/go/src/example.com/shop/cart.go:6
main.main()
\t/home/dev/go/src/example.com/cmd/main.go:6 +0x1d
exit status 2
"""


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("langs"), {
            "src/main/java/com/shop/Cart.java": CART_JAVA, "src/main/java/com/shop/Main.java": MAIN_JAVA,
            "src/main/java/com/legacy/Cart.java": OTHER_CART_JAVA, "shop/cart.go": CART_GO,
            "cmd/main.go": MAIN_GO}, "java and go shop") as got:
        yield got


def test_a_jvm_trace_leads_with_the_method_that_threw(tools):
    t, s = tools
    items = t.search(s, JAVA_TRACE, page_size=4).items
    # two files are named Cart.java: the frame's package folder tells them apart
    assert [(i.path, i.name) for i in items[:2]] == [("src/main/java/com/shop/Cart.java", "total"),
                                                      ("src/main/java/com/shop/Main.java", "main")]
    assert items[0].why.startswith("traceback frame: src/main/java/com/shop/Cart.java:8 in total")


def test_a_go_panic_leads_with_the_function_that_panicked(tools):
    t, s = tools
    items = t.search(s, GO_TRACE, page_size=4).items
    assert [(i.path, i.name) for i in items[:2]] == [("shop/cart.go", "Total"), ("cmd/main.go", "main")]
    assert items[0].why.startswith("traceback frame: shop/cart.go:6 in Total")
