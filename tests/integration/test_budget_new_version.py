"""What the agent holds is charged at its new size once a re-index changed it: the controller
took "held at that level" for "already in context" whatever the version, so the new text of a
re-indexed function was served free and the ledger kept the old size (a session probe)."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
TARGET = "shop/cart.py::cart_total"


def test_a_reindexed_function_read_again_is_charged_at_its_new_size(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": "def cart_total(items):\n    return sum(items)\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    sid = t.open_session(budget=4000).data["session"]
    first = t.get(sid, TARGET, level="full")
    used = first.envelope.budget.used
    again = t.get(sid, TARGET, level="full")             # the same content: nothing more
    assert again.envelope.budget.used == used

    body = "\n".join(f"    total += item.price * item.quantity  # line {i}" for i in range(12))
    r.commit("bigger", {"shop/cart.py": f"def cart_total(items):\n    total = 0\n{body}\n    return total\n"})
    index_repository(r.path, store, CFG)
    t.reload()
    now = t.get(sid, TARGET, level="full")
    grew = now.items[0].tokens - first.items[0].tokens
    assert grew > 0 and "line 11" in now.items[0].text
    assert now.envelope.budget.used == used + grew, (used, grew, now.envelope.budget.used)
    held = {e["node_id"]: e for e in t.status(sid).data["session"]["entries"]}
    assert held[now.items[0].id]["tokens"] == now.items[0].tokens
    t.close()
