"""stratum.tracebacks: the frames a pasted traceback holds (the search over a real index is in
tests/integration/test_traceback_search.py)."""

from __future__ import annotations

from stratum.tracebacks import Frame, frames

PY = '''Traceback (most recent call last):
  File "/home/u/venv/lib/python3.11/site-packages/flask/app.py", line 1511, in wsgi_app
    response = self.full_dispatch_request()
  File "/usr/lib/python3.11/json/__init__.py", line 231, in dumps
  File "src/flask/json/provider.py", line 120, in _default
TypeError: Object of type Decimal is not JSON serializable'''


def test_python_frames_innermost_first():
    assert frames(PY) == [
        Frame("src/flask/json/provider.py", 120, "_default"),
        Frame("/usr/lib/python3.11/json/__init__.py", 231, "dumps"),
        Frame("/home/u/venv/lib/python3.11/site-packages/flask/app.py", 1511, "wsgi_app"),
    ]


def test_pytest_javascript_and_bare_places():
    q = ("tests/test_json.py:88: in test_decimal\nsrc/flask/app.py:1511: KeyError\n"
         "    at render (src/view.js:40:7)\nC:\\proj\\src\\app.py:12")
    assert frames(q) == [Frame("C:\\proj\\src\\app.py", 12, ""), Frame("src/flask/app.py", 1511, ""),
                         Frame("tests/test_json.py", 88, "test_decimal"), Frame("src/view.js", 40, "render")]


def test_a_javascript_stack_is_innermost_first_already():
    q = "TypeError: x is undefined\n    at render (src/view.js:40:7)\n    at Object.main (src/app.js:10:3)\n" \
        "    at src/boot.js:2:1"
    assert frames(q) == [Frame("src/view.js", 40, "render"), Frame("src/app.js", 10, "main"),
                         Frame("src/boot.js", 2, "")]


def test_no_frames_in_plain_words_urls_or_times():
    assert frames("session cookie is not saved after redirect") == []
    assert frames("see http://localhost:5000/login at 12:30, ratio 3:2") == []


def test_a_place_printed_twice_counts_once_at_its_innermost():
    q = 'File "a.py", line 3, in f\nFile "b.py", line 9, in g\nFile "a.py", line 3, in f'
    assert frames(q) == [Frame("a.py", 3, "f"), Frame("b.py", 9, "g")]


def test_a_whole_failure_condenses_to_its_names_and_error_lines():
    from stratum.tracebacks import condensed

    q = ("    def test_total():\n>       assert cart.total() == 1\n\nsrc/shop/cart.py:18: in total\n"
         "    return sum(unit_price(s) * q for s, q in self.lines)\nsrc/shop/prices.py:8: in unit_price\n"
         "    return PRICES[sku]\nE   KeyError: 'pear'\n\nDuring handling of the above exception\n"
         "shop.errors.OutOfStockError: pear is gone\n")
    head = "unit_price total\nKeyError: 'pear'\nshop.errors.OutOfStockError: pear is gone"
    c = condensed(q, frames(q), 2000)       # then the paste's end, as much as fits (here all of it)
    assert c == f"{head}\n{q}"
    long = "x = 1\n" * 1000 + q
    assert condensed(long, frames(long), 2000) == f"{head}\n{long[-(2000 - len(head) - 1):]}"
    # when not every error line fits, the last ones printed are kept (the exception raised last)
    assert condensed(q, frames(q), 58) == "unit_price total\nshop.errors.OutOfStockError: pear is gone"
    assert condensed("a wall of prose with no traceback in it " * 80, [], 2000) == ""
    bare = "log line\n" * 300 + "src/shop/prices.py:8\n"       # a frame naming no function: its file's name
    assert condensed(bare, frames(bare), 2000).split("\n")[0] == "prices"
    group = ("  + Exception Group Traceback (most recent call last):\n  | ExceptionGroup: two (2 sub-exceptions)\n"
             "  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n"
             '    |   File "src/shop/prices.py", line 8, in unit_price\n    | KeyError: \'pear\'\n')
    assert condensed(group, frames(group), 2000).split("\n")[:2] == ["unit_price", "KeyError: 'pear'"]


def test_jvm_and_go_stacks_are_innermost_first_and_a_cause_leads():
    from stratum.tracebacks import condensed

    java = ('Exception in thread "main" java.lang.IllegalStateException: cart is empty\n'
            "\tat com.shop.Cart.total(Cart.java:42)\n\tat com.shop.Main.main(Main.java:9)\n"
            "Caused by: java.io.IOException: disk\n\tat com.shop.Store.load(Store.java:5)\n\t... 1 more")
    assert frames(java) == [Frame("com/shop/Store.java", 5, "load"), Frame("com/shop/Cart.java", 42, "total"),
                            Frame("com/shop/Main.java", 9, "main")]
    assert condensed(java, frames(java), 2000).splitlines()[1:3] == [
        "java.lang.IllegalStateException: cart is empty", "java.io.IOException: disk"]
    go = ("panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n"
          "main.total(...)\n\t/home/u/shop/cart.go:12\n"
          "github.com/u/shop/pkg.(*Cart).Add(0xc000010000, {0x1, 0x2})\n\t/home/u/shop/pkg/cart.go:30 +0x1d\n"
          "main.main.func1()\n\t/home/u/shop/main.go:20 +0x1d\nexit status 2")
    assert frames(go) == [Frame("/home/u/shop/cart.go", 12, "total"), Frame("/home/u/shop/pkg/cart.go", 30, "Add"),
                          Frame("/home/u/shop/main.go", 20, "")]       # a closure names no definition
    assert condensed(go, frames(go), 2000).splitlines()[:2] == [
        "total Add main", "panic: runtime error: index out of range [3] with length 3"]
    rust = "thread 'main' panicked at src/cart.rs:5:5:\nindex out of bounds"
    assert frames(rust) == [Frame("src/cart.rs", 5, "")]


def test_the_names_a_tracebacks_lines_call_last_printed_first():
    from stratum.tracebacks import called

    q = ('  File "src/shop/cart.py", line 18, in total\n    return sum(unit_price(s) * q for s in self.lines)\n'
         "    self.__init__()\n    rows = self.load_rows(path)\n"
         "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'")
    assert called(q) == ["load_rows", "unit_price"]         # builtins (sum, type) and dunders left out
    assert called("no call here") == []


def test_colour_codes_are_read_as_the_terminal_shows_them():
    from stratum.tracebacks import read

    q = ('\x1b[1m\x1b[31msrc/shop/prices.py\x1b[0m:8: in \x1b[92munit_price\x1b[0m\n'
         '\x1b[1m\x1b[31mE   KeyError: \'pear\'\x1b[0m')
    p = read(q, 2000)
    assert p.frames == [Frame("src/shop/prices.py", 8, "unit_price")] and "\x1b" not in p.text
    # 10,000 characters, 1,060 of them shown: within a query's limit as shown, so read whole
    long = read(q + "\n" + "\x1b[32m.\x1b[0m" * 1000, 2000)
    assert long.frames == p.frames and long.text == p.text + "\n" + "." * 1000
