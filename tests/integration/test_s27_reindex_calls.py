"""A re-index links again only the changed files' callers when no other caller's links can differ
(``pipeline.callkeep``), and every caller when they can: a name added or removed that an unchanged
file calls. Either way the store equals ``--full`` of the same commit, edge for edge. Real git
repository, real tree-sitter, real index job, real Lance."""

from __future__ import annotations

import shutil

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.store import Store
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1)
PRICING = ('"""Prices."""\n\n\ndef price_of(sku: str) -> float:\n    return 1.0\n\n\n'
           'def discount(total: float) -> float:\n    return total * 0.9\n')
FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": PRICING,
    "shop/util.py": 'def helper() -> int:\n    return 1\n',
    "shop/cart.py": ('from shop.pricing import discount, price_of\n\n\n'
                     'class Cart:\n    def total(self) -> float:\n'
                     '        return discount(price_of("a")) + helper()\n'),
    "shop/report.py": 'from shop import pricing\n\n\ndef report() -> float:\n    return pricing.discount(2.0)\n',
}


def _rows(store, name: str, key: list[str]) -> list[tuple]:
    tab = Store(store).snapshot().read(name)
    rows = [tuple(str(v) for v in r.values()) for r in tab.to_pylist()]
    at = [tab.column_names.index(k) for k in key]
    return sorted(rows, key=lambda r: tuple(r[i] for i in at))


def _calls(store) -> set[tuple[str, str]]:
    snap = Store(store).snapshot()
    n = {r["id"]: r for r in snap.read("nodes", columns=["id", "path", "qualname"]).to_pylist()}
    return {(n[e["src"]]["qualname"], f'{n[e["dst"]]["path"]}:{n[e["dst"]]["qualname"]}')
            for e in snap.read("edges", where="kind = 'calls'").to_pylist()}


def _reindex_equals_full(tmp_path, r: Repo, inc, tag: str):
    full = tmp_path / f"full-{tag}"
    shutil.copytree(inc, full)
    rep = index_repository(r.path, inc, CFG)
    index_repository(r.path, full, IndexConfig(num_cpus=1, full=True))
    for name, key in (("nodes", ["id"]), ("edges", ["src", "dst", "kind"])):
        assert _rows(inc, name, key) == _rows(full, name, key), (tag, name)
    return rep


def test_calls_of_unchanged_files_are_kept_until_a_name_they_call_changes(tmp_path):
    r = Repo(tmp_path / "shop")
    r.commit("shop", FILES)
    inc = tmp_path / "inc"
    index_repository(r.path, inc, CFG)
    first = _calls(inc)
    assert {("Cart.total", "shop/pricing.py:discount"), ("Cart.total", "shop/pricing.py:price_of"),
            ("Cart.total", "shop/util.py:helper"), ("report", "shop/pricing.py:discount")} <= first

    # a line above everything and a body edit: no name, import or signature changes
    r.commit("pricing: a comment, a rate", {"shop/pricing.py": "# prices\n" + PRICING.replace("0.9", "0.8")})
    rep = _reindex_equals_full(tmp_path, r, inc, "kept")
    assert rep.files_parsed == 1 and rep.link["callers_files"] == 1 and rep.link["calls_kept"] >= 4
    assert _calls(inc) == first

    # discount removed, a second helper added: cart.py and report.py are unchanged, their links are not
    r.commit("pricing: no discount; its own helper", {"shop/pricing.py": (
        '"""Prices."""\n\n\ndef price_of(sku: str) -> float:\n    return 1.0\n\n\n'
        'def helper() -> int:\n    return 2\n')})
    rep = _reindex_equals_full(tmp_path, r, inc, "renamed")
    assert rep.files_parsed == 1 and rep.link["calls_kept"] == 0 and rep.link["callers_files"] == 5
    now = _calls(inc)
    assert {("Cart.total", "shop/pricing.py:price_of"), ("Cart.total", "shop/pricing.py:helper")} <= now
    assert not {("Cart.total", "shop/pricing.py:discount"), ("report", "shop/pricing.py:discount"),
                ("Cart.total", "shop/util.py:helper")} & now    # helper(): the imported file's now

    # after a full link, keeping again
    r.commit("util: a comment", {"shop/util.py": '# util\ndef helper() -> int:\n    return 1\n'})
    rep = _reindex_equals_full(tmp_path, r, inc, "after")
    assert rep.link["calls_kept"] > 0 and rep.link["callers_files"] == 1


def _one_commit_equals_full(tmp_path, files: dict, change: dict, tag: str):
    r = Repo(tmp_path / tag)
    r.commit("base", files)
    inc = tmp_path / f"inc-{tag}"
    index_repository(r.path, inc, CFG)
    r.commit("change", change)
    return _reindex_equals_full(tmp_path, r, inc, tag)


OTHERS = {f"lib/u{i}.js": f"function u{i}() {{ return {i}; }}\nmodule.exports = {{ u{i} }};\n" for i in range(1, 4)}
APP = "import build from './make';\n\nexport function start() {\n  return build();\n}\n"


def test_a_js_function_that_stops_or_starts_being_its_modules_value_links_its_importers_again(tmp_path):
    """``export default function make`` -> ``export function make``: app.js's `build()` reaches make
    no more, and the other way; callkeep compared no signature, so the old edge was kept (review r2)."""
    plain, default = "export function make() {\n  return 1;\n}\n", "export default function make() {\n  return 1;\n}\n"
    _one_commit_equals_full(tmp_path, {**OTHERS, "lib/make.js": default, "lib/app.js": APP},
                            {"lib/make.js": plain}, "dropped")
    _one_commit_equals_full(tmp_path, {**OTHERS, "lib/make.js": plain, "lib/app.js": APP},
                            {"lib/make.js": default}, "added")
    _one_commit_equals_full(tmp_path, {
        **OTHERS, "lib/make.js": "module.exports = function make() {\n  return 1;\n};\n",
        "lib/app.js": "const build = require('./make');\n\nfunction start() {\n  return build();\n}\nmodule.exports = { start };\n",
    }, {"lib/make.js": "exports.make = function make() {\n  return 1;\n};\n"}, "cjs")


def test_two_imports_of_one_name_split_from_one_line_change_which_binds(tmp_path):
    """`from pkg.b import f; from pkg.c import f` on one line binds b's f (a tie goes to the first);
    split on two lines, c's: callkeep compared imports without their lines (review r2)."""
    files = {"pkg/__init__.py": "", "pkg/b.py": "def f():\n    return 1\n", "pkg/c.py": "def f():\n    return 2\n",
             "pkg/x.py": "def x():\n    return 0\n", "pkg/y.py": "def y():\n    return 0\n",
             "pkg/m.py": "from pkg.b import f; from pkg.c import f\n",
             "pkg/use.py": "from pkg.m import f\n\n\ndef go():\n    return f()\n"}
    _one_commit_equals_full(tmp_path, files, {"pkg/m.py": "from pkg.b import f\nfrom pkg.c import f\n"}, "split")
