"""A shallow clone (CI checkouts, `git clone --depth 1`): its boundary commit is no fix or change of
every file, and a clone deepened or unshallowed since its last index has its older history mined.
Real git clones, the real index job, the store's mined nodes and history tables."""

from __future__ import annotations

import json

from stratum import schema as S
from stratum.config import EmbedConfig, IndexConfig
from stratum.store import Store
from tests.gitrepo import Repo, git

NO_EMBED = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False))
PRICING = 'def price(x: float) -> float:\n    """Unit price."""\n    return x\n'
CART = 'def total(items: list) -> float:\n    """Sum of the items."""\n    return sum(items)\n'


def _origin(path) -> Repo:
    r = Repo(path)
    r.commit("initial shop", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/cart.py": CART})
    r.commit("Fix a crash when the cart is empty",
             {"shop/cart.py": CART.replace("sum(items)", "sum(items or [])")})
    r.commit("Round the unit price to cents", {"shop/pricing.py": PRICING.replace("return x", "return round(x, 2)")})
    return r


def _mined(store) -> dict[str, dict]:
    """Mined node subject -> (kind, the paths it is about)."""
    out = {}
    for n in Store(store).snapshot().read("nodes").to_pylist():
        if n["kind"] in S.MINED_NOTE_KINDS:
            meta = json.loads(n["meta"])
            out[n["doc"].split("\n")[0]] = (n["kind"], sorted(t["path"] for t in meta["about"]))
    return out


def test_a_shallow_clone_mines_no_boundary_diff_and_an_unshallowed_one_mines_its_history(tmp_path):
    from pipeline.job import index_repository

    origin = _origin(tmp_path / "origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin.path}", str(clone))
    store = tmp_path / "store"

    first = index_repository(clone, store, NO_EMBED)
    assert first.history["shallow"] and first.history["commits_total"] == 1
    assert first.history["boundary_commits"] == 1
    # git shows the boundary commit adding the whole tree: the pricing change is not about cart.py
    assert _mined(store) == {}
    assert Store(store).snapshot().read("file_changes").num_rows == 0

    git(clone, "fetch", "-q", "--unshallow")
    again = index_repository(clone, store, NO_EMBED)        # the same HEAD: not "up to date"
    assert not again.up_to_date
    assert any("shallow boundary moved" in m for m in again.messages)
    assert not again.history["shallow"] and again.history["commits_total"] == 3
    assert _mined(store) == {
        "Fix a crash when the cart is empty": ("fix", ["shop/cart.py"]),
        "Round the unit price to cents": ("change", ["shop/pricing.py"]),
        "initial shop": ("change", ["shop/__init__.py", "shop/cart.py", "shop/pricing.py"]),
    }
    assert index_repository(clone, store, NO_EMBED).up_to_date


def test_a_deepened_clone_mines_the_commits_it_fetched(tmp_path):
    from pipeline.job import index_repository

    origin = _origin(tmp_path / "origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin.path}", str(clone))
    store = tmp_path / "store"
    index_repository(clone, store, NO_EMBED)

    git(clone, "fetch", "-q", "--deepen", "1")
    rep = index_repository(clone, store, NO_EMBED)
    assert rep.history["shallow"] and rep.history["commits_total"] == 2
    # the new boundary (the fix) has no recorded diff; the commit above it does
    assert _mined(store) == {"Round the unit price to cents": ("change", ["shop/pricing.py"])}
