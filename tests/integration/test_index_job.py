"""The index job end to end: real git repos, real Ray, real Lance, published versions."""

from __future__ import annotations

import json

import pytest

from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.errors import NotARepository
from stratum.store import Store
from tests.gitrepo import Repo, sample_python_repo

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
NO_EMBED = IndexConfig(num_cpus=2, embed=EmbedConfig(enabled=False))


def test_report_counts_what_was_indexed(indexed_store):
    repo, store, rep = indexed_store
    assert rep.version == 1 and not rep.incremental
    assert rep.nodes["file"] == 6 and rep.nodes["class"] == 1 and rep.nodes["method"] == 3
    assert rep.edges["imports"] == 3 and rep.edges["tests"] >= 1 and rep.edges["cochange"] >= 2
    assert rep.history["commits_total"] == 4
    m = Store(store).manifest()
    assert m.version == 1 and m.indexed_commit and m.history_watermark == m.indexed_commit
    assert set(m.datasets) >= {"nodes", "edges", "commits", "file_changes", "cochange", "external_imports"}
    nodes = Store(store).snapshot().read("nodes")
    ids = nodes.column("id").to_pylist()
    assert len(ids) == len(set(ids))


def test_reindex_is_incremental_and_old_readers_keep_their_version(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    store = Store(tmp_path / "store")
    from pipeline.job import index_repository

    index_repository(r.path, store.root, NO_EMBED)
    old = store.snapshot()
    old_nodes = old.read("nodes").num_rows
    r.commit("invoice: add currency", {"shop/invoice.py": (
        '"""Render invoices as text."""\n\nfrom shop.cart import Cart\n\n\n'
        'def render_invoice(cart: Cart, currency: str = "EUR") -> str:\n    """One line per item and the total."""\n'
        '    return f"total {cart.total():.2f} {currency}"\n\n\ndef header() -> str:\n    return "INVOICE"\n')})
    rep = index_repository(r.path, store.root, NO_EMBED)
    assert rep.incremental and rep.version == 2
    assert rep.files_parsed == 1 and rep.files_reused == 5   # README.md is a plain file node
    assert rep.history["incremental"] and rep.history["commits"] == 1
    assert store.manifest().version == 2
    # a reader holding version 1 still reads version 1
    assert old.read("nodes").num_rows == old_nodes
    old_ids = old.read("nodes", columns=["id"]).column("id").to_pylist()
    assert old.take("nodes", list(range(old_nodes)), ["id"]).column("id").to_pylist() == old_ids
    new = store.snapshot().read("nodes")
    assert new.num_rows == old_nodes + 2          # header() and the commit's mined change node
    assert "shop/invoice.py::header" in {f"{p}::{q}" for p, q in zip(new.column("path").to_pylist(),
                                                                      new.column("qualname").to_pylist())}
    # ids are stable across versions
    o = {(p, q): i for p, q, i in zip(*(old.read("nodes").column(c).to_pylist() for c in ("path", "qualname", "id")))}
    n = {(p, q): i for p, q, i in zip(*(new.column(c).to_pylist() for c in ("path", "qualname", "id")))}
    assert all(n[k] == v for k, v in o.items() if k in n)


def test_not_a_repository_is_a_clear_error(tmp_path):
    from pipeline.job import index_repository

    (tmp_path / "plain").mkdir()
    with pytest.raises(NotARepository, match="not inside a git repository"):
        index_repository(tmp_path / "plain", tmp_path / "s", NO_EMBED)


def test_empty_repository_completes(tmp_path):
    from pipeline.job import index_repository

    Repo(tmp_path / "empty")
    rep = index_repository(tmp_path / "empty", tmp_path / "s", NO_EMBED)
    assert rep.files_parsed == 0 and rep.history["commits_total"] == 0
    assert Store(tmp_path / "s").manifest().version == 1


def test_bad_files_are_skipped_with_reasons_and_never_fail_the_run(tmp_path):
    from pipeline.job import index_repository

    r = Repo(tmp_path / "bad")
    r.commit("mixed bag", {
        "ok.py": "def fine():\n    return 1\n",
        "broken.py": "def broken(:\n    pass\n\ndef after():\n    return 2\n",
        "latin1.py": b"# caf\xe9\ndef bonjour():\n    return 'hi'\n",
        "blob.bin": b"\x00\x01\x02" * 100,
        "big.py": "x = 1\n" * (1 << 20),
        "node_modules/lib/index.js": "export const a = 1;\n",
    })
    (r.path / "loop").symlink_to(r.path / "loop")
    rep = index_repository(r.path, tmp_path / "s", NO_EMBED)
    d = rep.to_dict()
    assert d["skipped"].get("oversized") == 1
    assert d["skipped"].get("binary", 0) + d["skipped"].get("binary_extension", 0) >= 1
    assert any("vendor" in k for k in d["skipped"])
    assert d["warnings"].get("syntax_error") == 1 and d["warnings"].get("invalid_utf8") == 1
    names = set(Store(tmp_path / "s").snapshot().read("nodes").column("qualname").to_pylist())
    assert {"fine", "after", "bonjour"} <= names
    json.loads(rep.to_json())


def test_symbol_cochange_opt_in(tmp_path):
    from dataclasses import replace

    from pipeline.job import index_repository

    r = sample_python_repo(tmp_path / "shop")
    cfg = replace(NO_EMBED, history=replace(NO_EMBED.history, symbols=True))
    rep = index_repository(r.path, tmp_path / "s", cfg)
    tab = Store(tmp_path / "s").snapshot().read("symbol_cochange")
    pairs = {(a, b): s for a, b, s in zip(*(tab.column(c).to_pylist() for c in ("a", "b", "support")))}
    assert pairs[("shop/cart.py::Cart.total", "shop/pricing.py::discount")] == 2
    assert rep.history["symbol_pairs"] == tab.num_rows


def _index_view(store) -> tuple[set, set]:
    snap = Store(store).snapshot()
    nodes = snap.read("nodes", columns=["id", "content_hash", "full_tokens"])
    edges = snap.read("edges", columns=["src", "dst", "kind"])
    return (set(zip(*(nodes.column(c).to_pylist() for c in nodes.column_names))),
            set(zip(*(edges.column(c).to_pylist() for c in edges.column_names))))


def test_in_process_and_ray_build_the_same_index(tmp_path):
    """Small work stays in-process (no cluster start); --ray, or work over the threshold, runs the
    same stages on a real local Ray, with the same result."""
    from dataclasses import replace

    from pipeline.job import index_repository

    r = sample_python_repo(tmp_path / "shop")
    cfg = replace(NO_EMBED, history=replace(NO_EMBED.history, symbols=True))
    small = index_repository(r.path, tmp_path / "local", cfg)
    assert small.engine.startswith("in-process") and "MiB to parse" in small.engine
    forced = index_repository(r.path, tmp_path / "ray", replace(cfg, ray=True))
    assert forced.engine == "ray (--ray)"
    large = index_repository(r.path, tmp_path / "auto", replace(cfg, ray_min_parse_bytes=1, num_cpus=2))   # 2 CPUs: one would stay in-process
    assert large.engine.startswith("ray") and "pays off" in large.engine
    assert _index_view(tmp_path / "local") == _index_view(tmp_path / "ray") == _index_view(tmp_path / "auto")
    assert small.history["symbol_pairs"] == forced.history["symbol_pairs"] > 0
    no_ray = index_repository(r.path, tmp_path / "off", replace(cfg, ray=False, ray_min_parse_bytes=1))
    assert no_ray.engine == "in-process (--no-ray)"


def test_many_repositories_on_ray_one_broken(tmp_path):
    """Three real repositories on a real Ray, one task each; the broken one (a corrupt .git) is
    reported and the others are indexed."""
    from dataclasses import replace

    from pipeline.many import index_many

    good = [sample_python_repo(tmp_path / "shop"), Repo(tmp_path / "tiny")]
    good[1].commit("one", {"m.py": "def f():\n    return 1\n"})
    broken = Repo(tmp_path / "broken")
    broken.commit("one", {"x.py": "x = 1\n"})
    (broken.path / ".git" / "HEAD").write_text("garbage\n")
    targets = [(str(good[0].path), str(tmp_path / "stores" / "shop")), (str(broken.path), str(tmp_path / "stores" / "broken")),
               (str(good[1].path), str(tmp_path / "stores" / "tiny"))]
    multi = index_many(targets, replace(NO_EMBED, ray=True))
    assert multi.engine == "ray (--ray)" and not multi.ok
    ok = {o.repo: o for o in multi.outcomes}
    assert [o.repo for o in multi.outcomes] == [t[0] for t in targets]
    assert ok[str(good[0].path)].ok and ok[str(good[1].path)].ok
    bad = ok[str(broken.path)]
    assert not bad.ok and bad.error["type"] == "NotARepository"
    assert Store(tmp_path / "stores" / "shop").manifest().version == 1
    assert Store(tmp_path / "stores" / "tiny").snapshot().count("nodes") >= 3
    assert not (tmp_path / "stores" / "broken" / "manifest.json").exists()
    assert ok[str(good[0].path)].report["nodes"]["file"] == 6
    text = multi.summary()
    assert "indexed 2 of 3 repositories" in text and "FAILED" in text
    json.loads(multi.to_json())


def test_no_change_is_up_to_date_without_a_new_version(tmp_path):
    """A re-index with nothing changed publishes nothing; a dirty tree, a new commit, a new note
    or other settings do re-index. A store inside the repository is never indexed as code."""
    from dataclasses import replace

    from pipeline.job import index_repository
    from stratum import notes as N
    from stratum.codelookup import CodeLookup
    from stratum.deltalog import DeltaLog

    r = sample_python_repo(tmp_path / "shop")
    store = default_store_path(r.path)                              # the default place
    first = index_repository(r.path, None, NO_EMBED)
    assert not first.up_to_date and first.worktree == "clean"
    assert store.parent.name == ".git" and not first.skipped.get("gitignored")     # git never sees it
    again = index_repository(r.path, None, NO_EMBED)
    assert again.up_to_date and again.version == 1 and Store(store).manifest().version == 1
    assert "up to date" in again.summary()
    paths = set(Store(store).snapshot().read("nodes", columns=["path"]).column("path").to_pylist())
    assert not any(p.startswith(".stratum") for p in paths)
    assert not index_repository(r.path, None, replace(NO_EMBED, parse=replace(NO_EMBED.parse, max_file_bytes=1 << 19))).up_to_date
    assert index_repository(r.path, None, replace(NO_EMBED, parse=replace(NO_EMBED.parse, max_file_bytes=1 << 19))).up_to_date
    (r.path / "shop" / "cart.py").write_text((r.path / "shop" / "cart.py").read_text() + "\n\ndef extra():\n    return 1\n")
    dirty = index_repository(r.path, None, NO_EMBED)
    assert not dirty.up_to_date and dirty.worktree == "dirty" and dirty.files_parsed == 1
    assert index_repository(r.path, None, NO_EMBED).up_to_date       # the same uncommitted edit, untouched
    (r.path / "shop" / "cart.py").write_text((r.path / "shop" / "cart.py").read_text() + "\n")
    assert not index_repository(r.path, None, NO_EMBED).up_to_date           # edited again: re-checked
    r.commit("cart: extra", {})
    assert not index_repository(r.path, None, NO_EMBED).up_to_date           # a new HEAD
    assert index_repository(r.path, None, NO_EMBED).up_to_date
    code = CodeLookup(Store(store).snapshot().read("nodes"))
    log = DeltaLog(store / "deltalog")
    N.write_note(log, "insight", "cart totals are cached", ["shop/cart.py"], "a", resolve=code.resolve)
    noted = index_repository(r.path, None, NO_EMBED)
    assert not noted.up_to_date and noted.notes["new"] == 1
    held = index_repository(r.path, None, NO_EMBED)                  # a live writer holds its segment: nothing
    assert held.up_to_date and held.version == noted.version and log.segments()   # new, and it stays
    log.seal()                                                       # the writer is gone
    done = index_repository(r.path, None, NO_EMBED)
    assert done.up_to_date and done.notes["notes"] == 1 and done.notes["new"] == 0
    assert log.segments() == []                                      # its merged segment retired


def test_mined_fixes_by_default(tmp_path):
    """The history's bug-fix commits become fix nodes about the files they touched, carried (token
    counts reused) by an incremental run; --no-fixes leaves them out."""
    from dataclasses import replace

    from pipeline.job import index_repository

    r = sample_python_repo(tmp_path / "shop")
    assert "fix" not in index_repository(r.path, tmp_path / "s", replace(NO_EMBED, mine_fixes=False)).nodes
    cfg = NO_EMBED
    assert cfg.mine_fixes
    rep = index_repository(r.path, tmp_path / "s", cfg)          # other settings: not "up to date"
    assert not rep.up_to_date
    assert rep.nodes["fix"] == rep.history["mined_fixes"] == 1
    snap = Store(tmp_path / "s").snapshot()
    fix = [n for n in snap.read("nodes").to_pylist() if n["kind"] == "fix"][0]
    about = {e["dst"] for e in snap.read("edges").to_pylist() if e["src"] == fix["id"] and e["kind"] == "about"}
    files = {n["id"] for n in snap.read("nodes").to_pylist() if n["kind"] == "file"}
    assert about and about <= files and fix["author"] == "history"
    r.commit("docs: readme", {"README.md": "# shop\n\nmore\n"})
    again = index_repository(r.path, tmp_path / "s", cfg)
    assert again.nodes["fix"] == 1 and again.history["mined_fixes"] == 1


def test_old_versions_are_pruned_after_each_publish_but_a_readers_version_stays(tmp_path):
    """A nightly index must not grow the disk: after each publish only the newest ``keep_versions``
    (and what an open reader holds) remain, as Lance versions and warm folders."""
    from dataclasses import replace

    from pipeline.job import index_repository

    r = sample_python_repo(tmp_path / "shop")
    store = Store(tmp_path / "store")
    cfg = replace(NO_EMBED, keep_versions=2)
    index_repository(r.path, store.root, cfg)
    held = store.snapshot()                                   # a reader on version 1
    for k in range(3):
        r.commit(f"cart: step {k}", {"shop/step.py": f"def step_{k}():\n    return {k}\n"})
        rep = index_repository(r.path, store.root, cfg)
    assert rep.version == 4 and store.manifest().version == 4
    warm = sorted(p.name for p in (store.root / "indexes").iterdir() if p.name.startswith("v"))
    assert warm == ["v000001", "v000003", "v000004"]          # 1 is held by the open reader
    assert any("pruned" in m for m in rep.messages)
    assert held.read("nodes").num_rows > 0                    # the reader still reads its version
    import lance

    kept = {m.datasets["nodes"] for m in (store.manifest(v) for v in (1, 3, 4))}
    versions = {v["version"] for v in lance.dataset(str(store.data_dir / "nodes.lance")).versions()}
    assert versions == kept
    del held
    import gc

    gc.collect()
    r.commit("cart: step 4", {"shop/step.py": "def step_4():\n    return 4\n"})
    index_repository(r.path, store.root, replace(NO_EMBED, keep_versions=0))   # 0: keep every version
    assert len([p for p in (store.root / "indexes").iterdir() if p.name.startswith("v")]) == 4
