"""``known_hashes`` on a real store (real git, tree-sitter, the static model, Lance) gives the same
answer whichever way the cache reaches it (the Lance column in place, or a plain dict's values)
and when every fingerprint collides (matches are confirmed by the vectors' bits)."""

from __future__ import annotations

import numpy as np

from pipeline import stages as st
from pipeline import vecmatch
from pipeline.job import index_repository
from pipeline.report import RunReport
from stratum.config import IndexConfig
from stratum.store import Store
from tests.gitrepo import sample_python_repo

CFG = IndexConfig(num_cpus=1)


def test_recovered_hashes_do_not_depend_on_fingerprints_or_the_cache_form(tmp_path, monkeypatch):
    store = tmp_path / "store"
    index_repository(sample_python_repo(tmp_path / "shop").path, store, CFG)
    snap = Store(store).snapshot()
    nodes = snap.read("nodes").to_pylist()
    code = {n["id"] for n in nodes if n["kind"] in ("file", "class", "function", "method")}
    reused = {n["path"] for n in nodes if n["id"] in code}
    rep = RunReport(repo="shop", store=str(store))
    work = st.embed_plan(CFG, snap.manifest, snap, nodes, rep, reused=reused)
    vectors = snap.read("embeddings", where=f"model = {work.key!r}")["vector"]
    streamed = st.known_hashes(snap, work.info, work.cached, reused, vectors=vectors)
    plain = st.known_hashes(snap, work.info, dict(work.cached), reused)
    assert streamed == plain and set(streamed) == code
    monkeypatch.setattr(vecmatch, "fingerprints", lambda rows: np.zeros(len(rows), np.uint64))
    assert st.known_hashes(snap, work.info, work.cached, reused, vectors=vectors) == streamed
    # a vector two hashes share names neither, collisions or not
    twin = next(iter(streamed.values()))
    cached = {**work.cached, "f" * 32: np.array(work.cached[twin], copy=True)}
    again = st.known_hashes(snap, work.info, cached, reused)
    assert twin not in again.values() and set(again) < set(streamed)
    # only the files asked about
    one = sorted(reused)[0]
    assert set(st.known_hashes(snap, work.info, work.cached, {one}, vectors=vectors)) == \
        {n["id"] for n in nodes if n["id"] in code and n["path"] == one}
