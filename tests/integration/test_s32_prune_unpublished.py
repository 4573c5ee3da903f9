"""A run killed after it wrote its datasets and before it published leaves each dataset's newest
Lance version unpublished; `repair --prune` / ``Store.prune`` removes it (an index-lifecycle probe:
16 MB of flask's stayed until the next run that published, "pruned 0 Lance version(s)", because Lance
keeps a dataset's newest version). Here the killed writer's version is written as the job writes
one (a real Lance append to the real dataset, no manifest switch)."""

from __future__ import annotations

import lance

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.shard import Shard
from stratum.store import Store
from tests.gitrepo import Repo

FAST = IndexConfig(num_cpus=1, ray=False)


def _bytes(path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def test_prune_removes_a_killed_runs_unpublished_versions(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("one", {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20)})
    root = tmp_path / "store"
    index_repository(r.path, root, FAST)
    store = Store(root)
    published = store.manifest().datasets["nodes"]
    path = str(store.data_dir / "nodes.lance")
    rows = lance.dataset(path).to_table()
    before = _bytes(store.data_dir / "nodes.lance")
    lance.write_dataset(rows, path, mode="append")          # the killed run's write: never published
    killed = lance.dataset(path).version
    assert killed > published
    grown = _bytes(store.data_dir / "nodes.lance")
    assert grown > before
    gone = store.prune(1)
    assert gone["lance"].get("nodes"), gone
    versions = [v["version"] for v in lance.dataset(path).versions()]
    assert published in versions and killed not in versions
    assert _bytes(store.data_dir / "nodes.lance") < grown                      # its files went too
    newest = lance.dataset(path).version
    assert not store.prune(1)["lance"] and lance.dataset(path).version == newest   # once: no restore again
    assert Shard(store).manifest.datasets["nodes"] == published                 # the store reads as before
    r.commit("two", {"m0.py": "def f0():\n    return 100\n"})
    rep = index_repository(r.path, root, FAST)                                  # and indexes on
    ids = Store(root).snapshot().read("nodes").column("id").to_pylist()
    assert rep.version == 2 and len(ids) == len(set(ids)) >= rows.num_rows    # none of the killed write
