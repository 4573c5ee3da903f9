"""A store keeps the settings it was last indexed with: after `stratum index --no-changes` (or
`--model X`), a plain `stratum index` (what hooks and watch run) does not switch back."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from stratum.store import Store
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow


def stratum(*args: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "stratum.cli", *args, "--json"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _kinds(store) -> dict[str, int]:
    kinds = Store(store).snapshot().read("nodes", columns=["kind"]).column("kind").to_pylist()
    return {k: kinds.count(k) for k in set(kinds)}


def test_a_plain_reindex_keeps_the_stores_settings(tmp_path):
    repo = sample_python_repo(tmp_path / "shop")
    store = str(tmp_path / "store")
    stratum("index", str(repo.path), "--store", store, "--no-changes", "--no-embed")
    assert "change" not in _kinds(store)
    repo.commit("cart: a comment", {"shop/cart.py": (repo.path / "shop/cart.py").read_text() + "\n# c\n"})
    rep = stratum("index", str(repo.path), "--store", store)            # plain: the hook's command
    assert "change" not in _kinds(store) and Store(store).manifest().embedding in (None, {})
    assert any("kept the store's settings" in m for m in rep["messages"]), rep["messages"]
    assert Store(store).manifest().settings["changes"] is False
    rep = stratum("index", str(repo.path), "--store", store)            # nothing new: up to date
    assert rep["up_to_date"]
    stratum("index", str(repo.path), "--store", store, "--changes")     # the flag changes it
    assert _kinds(store).get("change", 0) > 0 and Store(store).manifest().settings["changes"] is True
