"""Integrity and repair on real stores: Lance datasets, warm files, a real delta log with notes.

Every warm file kind and a Lance data file get a flipped byte (or a cut); the store must refuse to
serve them with a StoreDamaged naming the file, `stratum repair` must bring it back, and every
note written through the delta log must still be there afterwards."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pipeline.merge import merge
from stratum import ids
from stratum import notes as N
from stratum import schema as S
from stratum.deltalog import DeltaLog
from stratum.errors import StoreDamaged
from stratum.shard import Shard
from stratum.store import Manifest, Store
from stratum.warm import build_warm

REPO = "shop"
N_FILES = 12


def code_nodes() -> list[dict]:
    rng = np.random.default_rng(7)
    out = [{"id": ids.node_id(REPO, "", "repo"), "repo": REPO, "kind": "repo", "path": "", "name": REPO, "qualname": ""}]
    for f in range(N_FILES):
        path = f"shop/mod{f}.py"
        out.append({"id": ids.node_id(REPO, path, "file"), "repo": REPO, "kind": "file", "path": path,
                    "name": f"mod{f}.py", "qualname": "", "language": "python", "doc": f"module {f} of the shop"})
        for g in range(4):
            q = f"compute_{['price', 'discount', 'tax', 'total'][g]}_{f}"
            src = f"def {q}(items):\n    return round(sum(i.amount for i in items), {g})\n"
            out.append({"id": ids.node_id(REPO, path, "function", q), "repo": REPO, "kind": "function",
                        "path": path, "name": q, "qualname": q, "language": "python", "full": src,
                        "signature": f"def {q}(items)", "content_hash": ids.content_hash(src)})
    for n in out:
        v = rng.standard_normal(S.EMBED_DIM).astype(np.float32)
        n["vector"] = (v / np.linalg.norm(v)).tolist()
    return out


def contains(nodes) -> list[dict]:
    files = {n["path"]: n["id"] for n in nodes if n["kind"] == "file"}
    return [{"src": files[n["path"]], "dst": n["id"], "kind": "contains", "repo": REPO}
            for n in nodes if n["kind"] == "function"]


def publish(store: Store, version: int, nodes, edges, merged=()) -> Manifest:
    ds = {"nodes": store.write_dataset("nodes", S.to_table(nodes, S.NODES)),
          "edges": store.write_dataset("edges", S.to_table(edges, S.EDGES))}
    info = build_warm(store.index_dir(version), nodes, edges, root=store.root)
    return store.publish(Manifest(version=version, published_at=float(version), repo_name=REPO, repo_path="",
                                  indexed_commit=None, history_watermark=None, datasets=ds, indexes=info,
                                  deltalog_merged=list(merged)))


def write_notes(log, code, n, start=0) -> list[str]:
    out = []
    for i in range(start, start + n):
        note = N.write_note(log, "rca", f"rounding bug number {i} in the discount path", [f"shop/mod{i % N_FILES}.py"],
                            author="agent-a", resolve=code)
        out.append(note.id)
    return out


@pytest.fixture(scope="module")
def base_store(tmp_path_factory):
    """v1: code; notes; v2: the notes merged (their segments retired); more notes, unmerged."""
    root = tmp_path_factory.mktemp("repair") / "store"
    store = Store(root)
    code = code_nodes()
    edges = contains(code)
    publish(store, 1, code, edges)
    log = DeltaLog(root / "deltalog")
    by_path = {n["path"]: n for n in code if n["kind"] == "file"}

    def resolve(target):
        n = by_path.get(target)
        return n and N.Resolved(n["id"], n.get("content_hash"), n["path"], "", "file")

    idx = resolve
    first = write_notes(log, idx, 25)
    log.seal()
    res = merge([], log.scan().records, code, repo=REPO)
    publish(store, 2, code + res.nodes, edges + res.edges, res.merged_record_ids)
    assert DeltaLog(root / "deltalog").retire(res.merged_record_ids).retired
    later = write_notes(log, idx, 5, start=100)
    log.seal()
    return root, first + later


@pytest.fixture
def store_copy(base_store, tmp_path):
    root, notes = base_store
    dst = tmp_path / "store"
    shutil.copytree(root, dst, ignore=shutil.ignore_patterns("readers"))
    return dst, notes


def flip(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    i = min(len(data) - 1, int(len(data) * at))
    data[i] ^= 0xFF
    path.write_bytes(bytes(data))


def answers(root) -> list[list[str]]:
    """What a user sees: keyword and vector rankings and a walk."""
    shard = Shard(Store(root))
    qv = np.asarray(code_nodes()[7]["vector"], np.float32)
    out = [[it.id for it in shard.warm.search(q, limit=5).items]
           for q in ("compute_discount_3", "rounding bug discount", "tax")]
    out.append([it.id for it in shard.warm.searcher.search("x", query_vector=qv, sources=("vector",), limit=5).items])
    out.append(sorted(r for r, *_ in shard.neighbors(shard.resolve("shop/mod2.py"), ("contains",))))
    assert all(out)
    return out


WARM_DAMAGE = {
    "keyword rows": ("keyword/kw.rows.npy", 0.6),
    "keyword impacts": ("keyword/kw.impact.npy", 0.5),
    "graph neighbours": ("graph/graph.out.nbr.npy", 0.7),
    "graph offsets": ("graph/graph.in.ptr.npy", 0.9),
    "hnsw graph": ("vector/vectors.usearch", 0.4),
    "vector matrix": ("vector/vectors.f16.npy", 0.5),
    "record file": ("warm.json", 0.3),
}


@pytest.mark.parametrize("kind", sorted(WARM_DAMAGE))
def test_damaged_warm_file_is_never_served_and_repair_rebuilds_it(store_copy, kind, monkeypatch):
    root, _ = store_copy
    want = answers(root)
    rel, at = WARM_DAMAGE[kind]
    flip(root / "indexes" / "v000002" / rel, at)
    import stratum.warm as W

    monkeypatch.setattr(W, "AUTO_REBUILD_ROWS", 0)          # as for a large store: no rebuild at load
    with pytest.raises(StoreDamaged) as e:
        Shard(Store(root))
    assert "stratum repair" in e.value.message and "v000002" in e.value.message
    from stratum.repair import repair

    rep = repair(root)
    assert rep.warm_damage and rep.warm_rebuilt and not rep.lance_damage and rep.version_after == 2
    assert answers(root) == want
    assert not repair(root, check_only=True).damaged


def test_cut_usearch_file_is_rebuilt_at_load_for_a_small_store(store_copy):
    root, _ = store_copy
    want = answers(root)
    g = root / "indexes" / "v000002" / "vector" / "vectors.usearch"
    g.write_bytes(g.read_bytes()[: g.stat().st_size // 3])
    assert answers(root) == want                             # rebuilt from Lance on the spot
    assert not repair_check(root).damaged


def repair_check(root):
    from stratum.repair import repair

    return repair(root, check_only=True)


def test_damaged_lance_file_rolls_back_and_keeps_every_note(store_copy, capsys):
    from stratum.cli import main
    from stratum.overlay import NotesOverlay

    root, notes = store_copy
    store = Store(root)
    m2 = store.manifest()
    data = sorted(f for f in m2.integrity["nodes"]["files"] if f.startswith("data/"))
    flip(root / "data-v1" / "nodes.lance" / data[0], 0.5)
    with pytest.raises(StoreDamaged) as e:
        Shard(store)
    assert "nodes" in e.value.message and "stratum repair" in e.value.message
    assert main(["tree", "--store", str(root)]) == 1
    err = capsys.readouterr().err
    assert "stratum repair" in err and "Traceback" not in err
    assert main(["repair", "--check", "--store", str(root)]) == 1
    assert "damaged: nodes" in capsys.readouterr().out
    assert main(["repair", "--store", str(root)]) == 0
    out = capsys.readouterr().out
    assert "rolled back to the data of version 1, published as version 3" in out
    assert f"agent notes kept (any status): {len(notes)}" in out
    shard = Shard(store)
    assert shard.version == 3
    overlay = NotesOverlay(shard)
    assert all(overlay.exists(n) for n in notes)
    assert len(list((root / "deltalog" / "retired").glob("*.seg"))) == 0
    assert shard.warm.search("compute_discount_3", limit=3)
    assert not repair_check(root).damaged


def test_lance_read_errors_become_store_damaged(store_copy):
    root, _ = store_copy
    store = Store(root)
    m = store.manifest()
    for f in m.integrity["nodes"]["files"]:
        if f.startswith("data/"):
            p = root / "data-v1" / "nodes.lance" / f
            p.write_bytes(p.read_bytes()[:64])
    from stratum.store import Snapshot

    snap = Snapshot(store, m, verify=False)                  # past the checksums: Lance itself fails
    with pytest.raises(StoreDamaged, match="stratum repair"):
        snap.read("nodes")


def test_prune_keeps_the_newest_and_what_readers_hold(tmp_path):
    store = Store(tmp_path / "s")
    code = code_nodes()[:9]
    edges = contains(code)
    for v in range(1, 6):
        publish(store, v, code, edges)
    held = store.snapshot(store.manifest(2))
    rep = store.prune(keep=2)
    assert rep["versions"] == [2, 4, 5]
    assert sorted(p.name for p in (tmp_path / "s" / "indexes").iterdir()) == ["v000002", "v000004", "v000005"]
    assert rep["lance"]["nodes"] == [1, 3]
    assert held.take("nodes", [0, 3], ["id"]).column("id").to_pylist() == [code[0]["id"], code[3]["id"]]
    assert Shard(store).version == 5 and not store.verify(store.manifest(), full=True)
    del held
    import gc

    gc.collect()
    assert store.prune(keep=2)["lance"]["nodes"] == [2]


def test_quick_checks_of_a_large_store_still_refuse_rows_out_of_range(store_copy, monkeypatch):
    """Above FULL_AT_LOAD a load reads sizes and first/last blocks only; the structure checks
    keep a flipped row number from being served, and `repair --check` reads every block."""
    import stratum.integrity as I
    import stratum.warm as W

    root, _ = store_copy
    d = root / "indexes" / "v000002"
    monkeypatch.setattr(I, "BLOCK", 64)                      # many blocks per file, as at 1M nodes
    shutil.rmtree(d)
    W.rebuild_warm(Store(root).snapshot(), d)
    monkeypatch.setattr(I, "FULL_AT_LOAD", 0)
    monkeypatch.setattr(W, "AUTO_REBUILD_ROWS", 0)
    for rel in ("keyword/kw.rows.npy", "graph/graph.out.nbr.npy"):
        shutil.copy(d / rel, d / (rel + ".bak"))
        flip(d / rel, 0.6)
        with pytest.raises(StoreDamaged, match="outside"):
            Shard(Store(root))
        shutil.move(d / (rel + ".bak"), d / rel)
    flip(d / "keyword" / "kw.impact.npy", 0.5)               # a score, not a row: only a full read sees it
    shard = Shard(Store(root))                               # loads; the full read runs in the background
    shard.warm.checker.join(30)
    with pytest.raises(StoreDamaged, match="kw.impact.npy"):
        shard.warm.search("tax", limit=3)
    rep = repair_check(root)
    assert rep.damaged and "kw.impact.npy" in rep.warm_damage[0]


def test_a_rust_panic_surfacing_as_base_exception_becomes_store_damaged(tmp_path):
    """pyo3's PanicException derives from BaseException; it must not escape as a traceback."""
    from stratum.store import lance_errors

    class PanicException(BaseException):
        pass

    with pytest.raises(StoreDamaged, match=r"PanicException: index out of bounds.*stratum repair"):
        with lance_errors("dataset nodes v3 in S", tmp_path):
            raise PanicException("index out of bounds: the len is 3 but the index is 7")
    with pytest.raises(KeyboardInterrupt):
        with lance_errors("dataset nodes v3 in S", tmp_path):
            raise KeyboardInterrupt


def test_prune_refuses_to_keep_nothing(tmp_path):
    from stratum.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="at least 1"):
        Store(tmp_path).prune(keep=0)


def test_a_damaged_new_version_is_not_switched_to_and_not_reread_every_reload(store_copy, caplog):
    """A server keeps answering from the version it has; the damaged one is refused once (one
    warning), not re-read and re-verified on every reload tick."""
    import logging

    from stratum import shard as shard_mod
    from stratum.shard import ShardSet

    root, _ = store_copy
    shards = ShardSet([str(root)])
    old = shards.shards[0].version
    store = Store(root)
    nodes = code_nodes()
    m = publish(store, old + 1, nodes, contains(nodes))
    files = sorted(f for f in m.integrity["nodes"]["files"] if f.startswith("data/"))
    flip(root / "data-v1" / "nodes.lance" / files[-1], 0.5)
    opened = []
    real = shard_mod.Shard

    def counting(*a, **kw):
        opened.append(1)
        return real(*a, **kw)

    shard_mod.Shard = counting
    try:
        with caplog.at_level(logging.WARNING, logger="stratum.shard"):
            assert shards.reload() == [] and shards.reload() == []
    finally:
        shard_mod.Shard = real
    assert shards.shards[0].version == old and len(opened) == 1
    assert sum("not switching" in r.message for r in caplog.records) == 1
    assert shards.shards[0].warm.search("compute_discount_3", limit=5).items   # the old version still answers
