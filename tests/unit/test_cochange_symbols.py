"""pipeline.symbols: functions changed per commit, and symbol co-change, on a scripted history."""

from __future__ import annotations

import pytest

from pipeline import symbols
from pipeline.history import mine
from stratum import schema as S
from stratum.config import HistoryConfig
from tests.historyrepo import GitRepo

V1 = '''import os


def alpha():
    return 1


def beta():
    return 2


class K:
    x = 1

    def gamma(self):
        return 3

    @property
    def delta(self):
        return 4
'''


def edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    g = GitRepo(tmp_path_factory.mktemp("sym") / "r")
    shas = {}
    src = V1
    g.write("m.py", src)
    shas["add"] = g.commit("add m")
    src = edit(edit(src, "return 1", "return 10"), "return 3", "return 30")
    g.write("m.py", src)
    shas["alpha+gamma"] = g.commit("alpha and gamma")
    src = edit(edit(edit(src, "return 10", "return 11"), "return 30", "return 31"), "return 2", "return 22")
    g.write("m.py", src)
    shas["alpha+gamma+beta"] = g.commit("three functions")
    src = edit(src, "x = 1", "x = 2")
    g.write("m.py", src)
    shas["attribute"] = g.commit("class attribute only")
    src = edit(src, "def beta():\n    return 22\n\n\n", "")
    g.write("m.py", src)
    shas["drop beta"] = g.commit("remove beta")
    src = edit(src, "class K:", "def eps():\n    return 5\n\n\nclass K:")
    g.write("m.py", src)
    shas["add eps"] = g.commit("insert eps")
    src = edit(src, "@property", "@property  # cached")
    g.write("m.py", src)
    shas["decorator"] = g.commit("decorator line")
    g.mv("m.py", "pkg/m.py")
    src = edit(edit(src, "return 11", "return 12"), "return 31", "return 32")
    g.write("pkg/m.py", src)
    g.write("other.py", "def f():\n    return 0\n")
    shas["move"] = g.commit("move m into pkg, touch alpha, gamma")
    g.write("notes.txt", "not code\n")
    g.write("other.py", "def f():\n    return 1\n")
    src = edit(src, "return 12", "return 13")
    g.write("pkg/m.py", src)
    shas["cross"] = g.commit("f and alpha")
    return g, shas


def changed(table, sha):
    return {(r["path"], r["qualname"], r["kind"]) for r in table.to_pylist() if r["sha"] == sha}


def test_changed_symbols_per_commit(history):
    g, shas = history
    r = mine(g.root)
    batches = symbols.plan(r.file_changes, r.commits, HistoryConfig())
    assert [s for b in batches for s in b] == [shas[k] for k in shas]     # oldest first, all eligible
    t = symbols.changed_symbols(g.root, batches[0])
    assert t.schema == symbols.SYMBOL_CHANGES
    m = "m.py"
    assert changed(t, shas["add"]) == {(m, "alpha", "function"), (m, "beta", "function"),
                                       (m, "K.gamma", "method"), (m, "K.delta", "method")}
    assert changed(t, shas["alpha+gamma"]) == {(m, "alpha", "function"), (m, "K.gamma", "method")}
    assert changed(t, shas["alpha+gamma+beta"]) == {(m, "alpha", "function"), (m, "K.gamma", "method"),
                                                    (m, "beta", "function")}
    assert changed(t, shas["attribute"]) == set()                       # outside every function
    assert changed(t, shas["drop beta"]) == {(m, "beta", "function")}    # found in the old version
    assert changed(t, shas["add eps"]) == {(m, "eps", "function")}
    assert changed(t, shas["decorator"]) == {(m, "K.delta", "method")}   # decorators are in the span
    assert changed(t, shas["move"]) == {("pkg/m.py", "alpha", "function"), ("pkg/m.py", "K.gamma", "method"),
                                        ("other.py", "f", "function")}
    assert changed(t, shas["cross"]) == {("pkg/m.py", "alpha", "function"), ("other.py", "f", "function")}


def test_batches_give_the_same_rows_as_one_run(history):
    g, shas = history
    r = mine(g.root)
    one = symbols.changed_symbols(g.root, symbols.plan(r.file_changes, r.commits)[0])
    parts = symbols.plan(r.file_changes, r.commits, batches=3)
    assert len(parts) == 3
    many = [row for b in parts for row in symbols.changed_symbols(g.root, b).to_pylist()]
    assert sorted(many, key=str) == sorted(one.to_pylist(), key=str)


def test_symbol_cochange_exact_values(history):
    g, shas = history
    r = mine(g.root)
    table = symbols.mine_symbols(g.root, r.file_changes, r.commits, HistoryConfig(), r.head_paths)
    assert table.schema == S.SYMBOL_COCHANGE
    pairs = {(x["a"], x["b"]): x for x in table.to_pylist()}
    # alpha: add, alpha+gamma, three, move, cross = 5; K.gamma: add, alpha+gamma, three, move = 4
    ag = pairs[("pkg/m.py::K.gamma", "pkg/m.py::alpha")]
    assert (ag["support"], ag["revs_a"], ag["revs_b"]) == (4, 4, 5)
    assert ag["confidence_ab"] == pytest.approx(1.0) and ag["confidence_ba"] == pytest.approx(4 / 5)
    # f changed with alpha twice (move, cross): kept; beta with alpha twice (add, three)
    fa = pairs[("other.py::f", "pkg/m.py::alpha")]
    assert (fa["support"], fa["revs_a"], fa["revs_b"]) == (2, 2, 5)
    assert ("pkg/m.py::alpha", "pkg/m.py::beta") in pairs
    assert ("pkg/m.py::K.delta", "pkg/m.py::alpha") not in pairs       # support 1 (the add)
    capped = symbols.mine_symbols(g.root, r.file_changes, r.commits, HistoryConfig(max_symbols_per_commit=3),
                                  r.head_paths)
    capped_pairs = {(x["a"], x["b"]): x for x in capped.to_pylist()}
    assert capped_pairs[("pkg/m.py::K.gamma", "pkg/m.py::alpha")]["support"] == 3   # add (4) skipped


def test_agrees_with_pydriller_changed_methods(history):
    """Same functions as pydriller (lizard) names them (bare names), except where spans differ by
    design: our spans include decorators (the code node's span), lizard's start at ``def``."""
    pydriller = pytest.importorskip("pydriller")
    g, shas = history
    r = mine(g.root)
    ours = symbols.changed_symbols(g.root, symbols.plan(r.file_changes, r.commits)[0])
    compared = 0
    for c in pydriller.Repository(str(g.root), only_no_merge=True).traverse_commits():
        theirs = {f.name.split("::")[-1] for m in c.modified_files for f in m.changed_methods
                  if (m.new_path or m.old_path).endswith(".py")}
        mine_ = {q.split(".")[-1] for _, q, _ in changed(ours, c.hash)}
        if c.hash == shas["decorator"]:
            assert mine_ == {"delta"} and theirs == set()
            continue
        assert mine_ == theirs, c.msg
        compared += 1
    assert compared == len(shas) - 1


def test_empty_inputs(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.change("README.md")
    r = mine(g.root)
    assert symbols.plan(r.file_changes, r.commits) == []
    assert symbols.changed_symbols(g.root, []).num_rows == 0
    assert symbols.mine_symbols(g.root, r.file_changes, r.commits).num_rows == 0


@pytest.mark.parametrize("path,src", [
    ("m.py", V1 + "\n\ndef outer():\n    def inner():\n        pass\n    return inner\n"),
    ("w.js", "export function a() {\n  return 1;\n}\n\nclass B {\n  m() {\n    return 2;\n  }\n}\n"),
    ("g.go", "package p\n\ntype S struct{}\n\nfunc (s S) Run() int {\n\treturn 1\n}\n\nfunc F() {}\n"),
])
def test_spans_are_the_code_node_spans(path, src):
    """definitions() is a cheap path to exactly the function/method nodes parse_file emits."""
    from pipeline.parse import parse_file

    data = src.encode()
    nodes = parse_file("r", path, data).nodes
    want = {(n["start_line"], n["end_line"], n["qualname"], n["kind"]) for n in nodes
            if n["kind"] in ("function", "method")}
    assert set(symbols.definitions(path, data)) == want and want
