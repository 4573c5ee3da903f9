"""A running `stratum watch` over a store that gets damaged and repaired: real git, real index,
real damaged Lance file, the real CLI in processes of its own.

A probe: the watch's re-index failed on the damaged nodes file (reported once, HEAD then taken
as indexed); `stratum repair` rolled the store back two commits; the watch never indexed again,
and neither it nor repair said the store was behind HEAD."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_watch import COUPON, Watch, stratum

pytestmark = pytest.mark.slow


def flip_newest_nodes_file(store) -> str:
    """A flipped byte in a data file of the published version's nodes that no older version has."""
    m = json.loads((store / "manifest.json").read_text())
    older = json.loads((store / "manifests" / f"{m['version'] - 1:06d}.json").read_text())
    files = sorted(set(m["integrity"]["nodes"]["files"]) - set(older["integrity"]["nodes"]["files"]))
    f = store / "data-v1" / "nodes.lance" / next(x for x in files if x.startswith("data/"))
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0xFF
    f.write_bytes(bytes(b))
    return f.name


def test_watch_indexes_to_head_again_after_repair_rolled_the_store_back(tmp_path):
    from tests.gitrepo import sample_python_repo

    repo = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    w = Watch(repo.path, store, "--debounce", "0.2", "--no-embed")
    try:
        assert "start: v1 published" in w.next_run()
        repo.commit("coupons", {"shop/pricing.py": (repo.path / "shop/pricing.py").read_text() + COUPON})
        assert "v2 published" in w.next_run()
        flip_newest_nodes_file(store)
        head = repo.commit("a helper", {"shop/util.py": "def helper():\n    return 1\n"})
        failed = w.next_run()
        assert "index failed: StoreDamaged" in failed, failed
        assert [x for x in w.quiet_for(1.0) if " in " in x] == []     # reported once, not retried meanwhile

        p = stratum("repair", "--store", str(store))
        assert p.returncode == 0, p.stderr
        assert "rolled back to the data of version 1, published as version 3" in p.stdout
        assert "2 commit(s) behind HEAD" in p.stdout and f"`stratum index {repo.path} --store {store}`" in p.stdout

        line = w.next_run(timeout=30)       # it had never come: the failed HEAD was taken as indexed
        assert "store changed since the failed index; HEAD -> refs/heads/main: v4 published" in line, line
        assert json.loads((store / "manifest.json").read_text())["indexed_commit"] == head
        assert "indexed again once HEAD moves or the store changes" in failed     # what the failure said
    finally:
        rc, _ = w.stop()
    assert rc == 0
    p = stratum("repair", "--store", str(store))
    assert p.returncode == 0 and "behind HEAD" not in p.stdout and "not at HEAD" not in p.stdout, p.stdout
