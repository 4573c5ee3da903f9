"""A re-indexed function read again is new content: the controller took "held at that level" for
"already in context" whatever the version, so the new text was served free and the ledger kept the
old size (a session probe); then it charged only the growth, and a shorter version nothing (session
27's probe). The held entry knows its version (``content_hash``): another is charged whole."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
TARGET = "shop/cart.py::cart_total"


def test_a_reindexed_function_read_again_is_charged_whole(tmp_path):
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
    assert now.items[0].tokens > first.items[0].tokens and "line 11" in now.items[0].text
    # the agent's context holds the old text and the new one: the new version is charged whole
    assert now.envelope.budget.used == used + now.items[0].tokens, (used, now.envelope.budget.used)
    held = {e["node_id"]: e for e in t.status(sid).data["session"]["entries"]}
    assert held[now.items[0].id]["tokens"] == first.items[0].tokens + now.items[0].tokens
    t.close()
