"""Names a Python chain or tuple binds to lambdas are functions, one per name, as the single form
``f = lambda x: ...`` is (real tree-sitter parse; the index-level view: the integration test of
the same name)."""

from __future__ import annotations

import json

from pipeline.parse import definition_spans, parse_file

CODE = (
    "a = b = lambda x: x\n"                                     # 1
    "c, d = len, lambda y: y\n"                                 # 2
    "[e, (f, g)] = [lambda: 1, (2, lambda: 3)]\n"               # 3: nested, element by element
    "h = (i, j) = lambda: 4, lambda: 5\n"                       # 4: h holds the tuple: no function
    "k, l = (lambda: 6,\n"                                      # 5
    "        # a comment between\n"
    "        lambda: 7)\n"                                      # 7
    "m, *n = lambda: 8, 9\n"                                    # 8: starred: not paired
    "o, p = lambda: 10\n"                                       # 9: one value for two names
    "\n"
    "\n"
    "def outer():\n"                                            # 12
    "    q = r = lambda: 11\n"                                  # 13: in a body: the function's code
    "    s, t = lambda: 12, lambda: 13\n"
    "    return q, r, s, t\n"
    "\n"
    "\n"
    "class K:\n"                                                # 18
    "    u = v = lambda self: 14\n"
)


def test_chains_and_tuples_bind_one_function_per_name_bound_to_a_lambda():
    pf = parse_file("r", "m.py", CODE.encode())
    got = [(n["kind"], n["subkind"], n["qualname"], n["start_line"], n["end_line"]) for n in pf.nodes[1:]]
    assert got == [
        ("function", "lambda", "a", 1, 1), ("function", "lambda", "b", 1, 1),
        ("function", "lambda", "d", 2, 2),
        ("function", "lambda", "e", 3, 3), ("function", "lambda", "g", 3, 3),
        ("function", "lambda", "i", 4, 4), ("function", "lambda", "j", 4, 4),
        ("function", "lambda", "k", 5, 7), ("function", "lambda", "l", 5, 7),
        ("function", None, "outer", 12, 15),
        ("class", "class", "K", 18, 19), ("method", "lambda", "K.u", 19, 19), ("method", "lambda", "K.v", 19, 19),
    ]
    by = {n["qualname"]: n for n in pf.nodes[1:]}
    assert (by["a"]["signature"], by["b"]["signature"]) == ("a = lambda x", "b = lambda x")
    assert by["d"]["signature"] == "d = lambda y"
    assert by["b"]["full"] == "a = b = lambda x: x"
    assert by["K.u"]["parent_id"] == by["K.v"]["parent_id"] == by["K"]["id"]
    # the symbol miner's view has the same definitions and spans
    assert [(q, s, e) for s, e, q, _ in definition_spans("m.py", CODE.encode())] == \
        [(q, s, e) for _, _, q, s, e in got]


def test_each_name_owns_its_own_lambdas_calls():
    pf = parse_file("r", "m.py", (
        "p, q = f(), lambda v: g(v)\n"
        "r = s = lambda: h()\n").encode())
    calls = {n["qualname"]: [c[0] for c in json.loads(n.get("meta") or "{}").get("calls", [])]
             for n in pf.nodes}
    assert calls == {"": ["f"], "q": ["g"], "r": ["h"], "s": ["h"]}
