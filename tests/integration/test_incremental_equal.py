"""The one-file re-index's shortcuts give what the long way gives: real git repositories, real
tree-sitter, the real (static) model, real Lance.

The shortcuts: kept rows read back without their vectors, co-change over the current paths
``combine`` already resolved, and text hashes recovered for unchanged files instead of their texts
built again (``pipeline.stages.known_hashes``)."""

from __future__ import annotations

import shutil

import numpy as np

from pipeline import stages as st
from pipeline.embed import plan
from pipeline.job import index_repository
from pipeline.report import RunReport
from stratum.config import IndexConfig
from stratum.store import Store
from tests.gitrepo import sample_python_repo

CFG = IndexConfig(num_cpus=1)
CHANGE = {"shop/invoice.py": ('"""Render invoices as text."""\n\nfrom shop.cart import Cart\n\n\n'
                              'def render_invoice(cart: Cart, currency: str = "EUR") -> str:\n'
                              '    """One line per item and the total."""\n'
                              '    return f"total {cart.total():.2f} {currency}"\n\n\n'
                              'def header() -> str:\n    return "INVOICE"\n')}


def _rows(store, name: str, key: list[str]) -> list[tuple]:
    tab = Store(store).snapshot().read(name)
    cols = [c for c in tab.column_names]
    rows = [tuple(_plain(v) for v in r.values()) for r in tab.select(cols).to_pylist()]
    at = [cols.index(k) for k in key]
    return sorted(rows, key=lambda r: tuple(str(r[i]) for i in at))


def _plain(v):
    return tuple(np.asarray(v, np.float32).tolist()) if isinstance(v, list) and v and isinstance(v[0], float) else \
        (tuple(v) if isinstance(v, list) else v)


def test_incremental_reindex_holds_what_a_full_index_of_the_same_commit_holds(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    inc = tmp_path / "inc"
    index_repository(r.path, inc, CFG)
    r.commit("invoice: add a header", CHANGE)
    full = tmp_path / "full"
    shutil.copytree(inc, full)
    rep = index_repository(r.path, inc, CFG)
    assert rep.incremental and rep.files_parsed == 1 and rep.embedded >= 1
    index_repository(r.path, full, IndexConfig(num_cpus=1, full=True))
    for name, key in (("nodes", ["id"]), ("edges", ["src", "dst", "kind"]), ("embeddings", ["text_hash"]),
                      ("cochange", ["a", "b"]), ("commits", ["sha"]), ("file_changes", ["sha", "path"])):
        assert _rows(inc, name, key) == _rows(full, name, key), name


def test_recovered_text_hashes_are_the_texts_own(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    snap = Store(store).snapshot()
    nodes = snap.read("nodes", columns=st.node_columns(False)).to_pylist()
    reused = {n["path"] for n in nodes if n["kind"] == "file"}
    rep = RunReport(repo="shop", store=str(store))
    work = st.embed_plan(CFG, snap.manifest, snap, nodes, rep, reused=reused)
    known = st.known_hashes(snap, work.info, work.cached, reused)
    code = [n for n in nodes if n["kind"] in ("file", "class", "function", "method")]
    assert code and set(known) == {n["id"] for n in code}      # every vector here is one text's
    assert work.plan.hashes == plan(nodes, work.cached, model=work.key).hashes   # the long way agrees
    # a vector two cached hashes share names neither: those texts are built as usual
    twin = next(iter(known.values()))
    cached = {**work.cached, "f" * 32: np.array(work.cached[twin], copy=True)}
    again = st.known_hashes(snap, work.info, cached, reused)
    assert twin not in again.values() and len(again) < len(known)
    # no shortcut from a version made under other text rules or another model
    assert st.known_hashes(snap, {**work.info, "text_rules": "other"}, work.cached, reused) == {}
    assert st.known_hashes(snap, {**work.info, "cache_key": "other"}, work.cached, reused) == {}


CLI_CHILD = r"""
import json, sys
from stratum.cli import main
sys.argv = ["stratum", "index", sys.argv[1], "--store", sys.argv[2], "--json"]
code = main()
print(json.dumps({"code": code, "lance": "lance" in sys.modules, "dataset": "pyarrow.dataset" in sys.modules,
                  "pandas": "pandas" in sys.modules}))
"""


def _cli(repo, store) -> dict:
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", CLI_CHILD, str(repo), str(store)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_an_up_to_date_index_process_loads_no_lance_and_a_working_one_no_pandas(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    assert _cli(r.path, store) == {"code": 0, "lance": True, "dataset": True, "pandas": False}
    assert _cli(r.path, store) == {"code": 0, "lance": False, "dataset": False, "pandas": False}
    r.commit("invoice: add a header", CHANGE)
    assert _cli(r.path, store) == {"code": 0, "lance": True, "dataset": True, "pandas": False}
