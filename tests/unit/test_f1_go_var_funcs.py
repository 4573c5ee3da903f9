"""Go ``var a, b = func() {...}, func() {...}`` (session 28, f1): each name bound to a function
literal is a function, as the single ``var f = func...`` is; names and values pair element by
element (``var x, y = f()`` binds none), and each function's calls are its own literal's. Before,
a spec with several names defined none of them."""

from __future__ import annotations

import json

from pipeline.parse import parse_file

SRC = """package shop

var encode, decode = func(s string) string { return wrap(s) }, func(s string) string { return unwrap(s) }

var (
\tlimit, check = 3, func() bool { return ok() }
\tsingle       = func() {}
)

var x, y = pair()

func run() {
\tvar p, q = func() {}, func() {}
\tp()
\tq()
}
"""


def test_each_name_a_var_spec_binds_to_a_func_literal_is_a_function():
    nodes = {n["qualname"]: n for n in parse_file("r", "shop.go", SRC.encode()).nodes if n["kind"] != "file"}
    assert [(n["kind"], q, n["start_line"]) for q, n in nodes.items()] == [
        ("function", "encode", 3), ("function", "decode", 3), ("function", "check", 6),
        ("function", "single", 7), ("function", "run", 12)]       # p, q: run's own code
    calls = {q: [c[0] for c in json.loads(n.get("meta") or "{}").get("calls", [])] for q, n in nodes.items()}
    assert calls["encode"] == ["wrap"] and calls["decode"] == ["unwrap"] and calls["check"] == ["ok"]
