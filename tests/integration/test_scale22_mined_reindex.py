"""A re-index extends the previous version's mined nodes instead of judging the whole history again
(``fixes.mine_fixes``), and holds what a ``--full`` index of the same commit holds: a backport that
joins its fix's node, a rename its nodes follow, a plain one-file commit. Real git, the real job."""

from __future__ import annotations

import json

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.store import Store
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
FIX = "Fix a crash in discount when the code is unknown"


def _mined(store) -> tuple[list[dict], list[tuple]]:
    snap = Store(store).snapshot()
    nodes = snap.read("nodes", columns=["id", "kind", "path", "doc", "full", "meta", "summary_tokens"],
                      where="kind IN ('fix', 'change')").to_pylist()
    ids = {n["id"] for n in nodes}
    edges = [(e["src"], e["dst"], e["meta"]) for e in snap.read("edges", where="kind = 'about'").to_pylist()
             if e["src"] in ids]
    return sorted(nodes, key=lambda n: n["id"]), sorted(edges)


def test_a_reindex_after_a_backport_a_rename_and_a_one_file_commit_holds_the_full_indexs_mined_nodes(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    r.commit(FIX, {"shop/pricing.py": "PRICES = {}\n\n\ndef discount(total, code):\n    return total\n"})
    r.commit("Add a coupon list to the cart", {"shop/cart.py": "class Cart:\n    coupons = []\n"})
    inc = tmp_path / "inc"
    index_repository(r.path, inc, CFG)
    r.commit(FIX + "\n\n(cherry picked from commit 0123456)", {"shop/pricing.py": "PRICES = {}\n\n\ndef discount("
                                                                  "total, code):\n    return round(total, 2)\n"})
    r.mv("shop/cart.py", "shop/basket.py")
    r.commit("Rename the cart module to basket")
    r.commit("Render the invoice header in bold", {"shop/invoice.py": "def render_invoice(cart):\n    return '**'\n"})
    rep = index_repository(r.path, inc, CFG)
    assert rep.incremental and rep.history["commits"] == 3
    # the incremental path ran (the rename re-judges the commits on the renamed file; not all of them)
    assert rep.history["mined_incremental"] and rep.history["mined_judged"] < rep.history["commits_total"], rep.history
    index_repository(r.path, tmp_path / "full", IndexConfig(num_cpus=1, ray=False, full=True,
                                                            embed=EmbedConfig(enabled=False)))
    got, want = _mined(inc), _mined(tmp_path / "full")
    assert got == want
    nodes = {n["doc"].split("\n")[0]: n for n in got[0]}
    assert len(json.loads(nodes[FIX]["meta"])["commits"]) == 2                      # the backport joined it
    assert "shop/basket.py" in nodes["Add a coupon list to the cart"]["full"]       # the rename followed
    assert "Render the invoice header in bold" in nodes
