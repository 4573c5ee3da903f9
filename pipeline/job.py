"""The index job: the one module that imports Ray; it wires the pure stages together.

    discover -> read (driver) -> parse (Ray tasks) -> resolve imports, test links
             -> mine history, co-change -> merge notes -> embed (Ray actor pool) -> write Lance
             -> build warm indexes -> publish manifest (one atomic switch) -> retire merged log

Local Ray by default (``ray.init()`` on this machine); ``--ray-address``/``RAY_ADDRESS`` runs the
same job on a cluster. File contents travel to workers through the object store, so workers need
no shared checkout. Unchanged files (same content hash as the published version) keep their nodes
and vectors; history is mined from the last mined commit; only new text is embedded.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import pyarrow as pa

from pipeline import gitio
from pipeline.report import RunReport
from stratum import schema as S
from stratum.config import IndexConfig, default_store_path
from stratum.store import Manifest, Store

Progress = Callable[[str, int, int], None]   # (stage, done, total)

PARSE_BATCH_FILES = 48
PARSE_BATCH_BYTES = 2 << 20


def _noop(stage: str, done: int, total: int) -> None:
    return None


# ---- Ray ----------------------------------------------------------------------------------------

def ensure_ray(cfg: IndexConfig):
    """Join the cluster at cfg.ray_address / RAY_ADDRESS, or start a small local Ray."""
    import ray

    if ray.is_initialized():
        return ray
    address = cfg.ray_address or os.environ.get("RAY_ADDRESS") or None
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    kw = dict(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
              runtime_env={"env_vars": {"RAY_USAGE_STATS_ENABLED": "0"}})
    if address:
        ray.init(address=address, **kw)
    else:
        ray.init(num_cpus=cfg.num_cpus or os.cpu_count() or 1,
                 object_store_memory=int(os.environ.get("STRATUM_RAY_OBJECT_STORE", 256 << 20)), **kw)
    return ray


def _parse_batch(repo: str, items: list[tuple[str, bytes]], parse_cfg) -> list:
    """Parse a batch on a worker. One file that breaks the parser is counted (reason parse_error,
    with the error) and never fails the run: this is the run's isolation boundary per file."""
    from pipeline.parse import ParsedFile, parse_file

    out = []
    for path, data in items:
        try:
            out.append(parse_file(repo, path, data, parse_cfg))
        except Exception as e:  # noqa: BLE001 - recorded in the run report, not swallowed
            out.append(ParsedFile(path=path, language=None, skip_reason="parse_error",
                                  warnings=[f"parse_error: {path}: {type(e).__name__}: {e}"]))
    return out


class _Embedder:
    """Ray actor: one model load per actor, thread count set per actor."""

    def __init__(self, embed_cfg):
        from pipeline.embed import EmbedBatch

        self.fn = EmbedBatch(embed_cfg)

    def embed(self, texts: list[str]):
        return self.fn({"text": texts})["vector"].tolist()


# ---- the job ------------------------------------------------------------------------------------

def index_repository(repo_path: str | os.PathLike, store_path: str | os.PathLike | None = None,
                     config: IndexConfig | None = None, progress: Progress | None = None) -> RunReport:
    """Index (or re-index) one repository into a store and publish a new version."""
    cfg = config or IndexConfig()
    progress = progress or _noop
    root = gitio.repo_root(repo_path)
    store = Store(store_path or default_store_path(root))
    repo_name = root.name
    rep = RunReport(repo=str(root), store=str(store.root))
    t0 = time.perf_counter()

    with store.writer_lock():
        prev = store.manifest() if (store.exists() and not cfg.full) else None
        prev_snap = store.snapshot(prev) if prev else None
        rep.incremental = prev is not None
        version = store.next_version()
        rep.version = version

        # 1. discover and read
        from pipeline.files import discover, read_manifests, read_source
        from stratum.ids import content_hash

        t = time.perf_counter()
        disc = discover(root, cfg.parse)
        rep.files_seen = len(disc.files) + sum(disc.skipped.values())
        rep.skipped.update(disc.skipped)
        rep.skipped_samples = {k: list(v)[:5] for k, v in disc.samples.items()}
        rep.not_parsed = dict(disc.not_parsed)
        prev_files = _previous_files(prev_snap)
        to_parse: list[tuple[str, bytes]] = []
        reused_paths: set[str] = set()
        for sf in disc.files:
            src = read_source(root, sf, cfg.parse)
            if src.data is None:
                rep.skipped[src.skip_reason or "unreadable"] += 1
                rep.skipped_samples.setdefault(src.skip_reason or "unreadable", [])
                if len(rep.skipped_samples[src.skip_reason or "unreadable"]) < 5:
                    rep.skipped_samples[src.skip_reason or "unreadable"].append(sf.path)
                continue
            if prev_files.get(sf.path) == content_hash(src.data):
                reused_paths.add(sf.path)
            else:
                to_parse.append((sf.path, src.data))
        rep.seconds["discover"] = time.perf_counter() - t

        # 2. parse on Ray
        t = time.perf_counter()
        parsed = _parse_on_ray(cfg, repo_name, to_parse, progress)
        rep.files_parsed = len(parsed)
        rep.files_reused = len(reused_paths)
        rep.seconds["parse"] = time.perf_counter() - t

        nodes, edges, file_imports = _collect(parsed, rep)
        if reused_paths:
            old_nodes, old_edges, old_imports = _reuse(prev_snap, reused_paths)
            nodes.extend(old_nodes)
            edges.extend(old_edges)
            file_imports.update(old_imports)
        languages = {n["path"]: n.get("language") for n in nodes if n["kind"] == "file"}

        # 3. tree, imports, tests
        from pipeline.imports import FileImports, resolve
        from pipeline.parse import tree_nodes
        from pipeline.testlinks import link_tests

        t = time.perf_counter()
        all_paths = sorted(languages)
        tnodes, tedges = tree_nodes(repo_name, all_paths, cfg.parse, languages_by_path=languages)
        nodes.extend(tnodes)
        edges.extend(tedges)
        fi = [FileImports(p, lang, tuple(imps)) for p, (lang, imps) in sorted(file_imports.items())]
        imp_edges, externals = resolve(repo_name, fi, all_paths, read_manifests(root, all_paths))
        edges.extend(imp_edges)
        edges.extend(link_tests(repo_name, all_paths, imp_edges))
        rep.external_imports = len(externals)
        rep.seconds["link"] = time.perf_counter() - t

        # 4. history
        t = time.perf_counter()
        hist_tables, watermark = _history(root, cfg, prev, prev_snap, rep, progress)
        file_ids = {n["path"]: n["id"] for n in nodes if n["kind"] == "file"}
        if hist_tables.get("cochange") is not None:
            from pipeline.cochange import cochange_edges

            edges.extend(cochange_edges(hist_tables["cochange"], file_ids))
        rep.seconds["history"] = time.perf_counter() - t

        # 5. notes from the delta log
        t = time.perf_counter()
        merged_ids = _merge_notes(store, prev_snap, nodes, edges, rep)
        rep.seconds["notes"] = time.perf_counter() - t

        # 6. embed
        t = time.perf_counter()
        embed_info, cache_tab = _embed(cfg, store, prev, prev_snap, nodes, rep, progress)
        rep.seconds["embed"] = time.perf_counter() - t

        # 7. write + warm indexes + publish
        t = time.perf_counter()
        nodes.sort(key=lambda n: (n["path"], n.get("start_line") or 0, n["kind"], n["qualname"]))
        edges = _dedupe_edges(edges)
        rep.nodes = dict(Counter(n["kind"] for n in nodes))
        rep.edges = dict(Counter(e["kind"] for e in edges))
        datasets = {
            "nodes": store.write_dataset("nodes", S.to_table(nodes, S.NODES)),
            "edges": store.write_dataset("edges", S.to_table(edges, S.EDGES)),
            "external_imports": store.write_dataset("external_imports", S.to_table(externals, S.EXTERNAL_IMPORTS)),
        }
        for name, tab in hist_tables.items():
            if tab is not None:
                datasets[name] = store.write_dataset(name, tab)
        if cache_tab is not None:
            datasets["embeddings"] = store.write_dataset("embeddings", cache_tab)
        progress("write", 1, 1)
        index_files = _build_warm_indexes(store, version, nodes, edges, embed_info)
        rep.seconds["write"] = time.perf_counter() - t
        rep.seconds["total"] = time.perf_counter() - t0
        manifest = Manifest(
            version=version, published_at=time.time(), repo_name=repo_name, repo_path=str(root),
            indexed_commit=gitio.head_commit(root), history_watermark=watermark, datasets=datasets,
            token_encoding=cfg.parse.token_encoding, embedding=embed_info, indexes=index_files,
            deltalog_merged=merged_ids, report=rep.to_dict())
        store.publish(manifest)
        _retire_log(store, merged_ids)
    return rep


def _previous_files(snap) -> dict[str, str]:
    if snap is None:
        return {}
    tab = snap.read("nodes", columns=["path", "kind", "file_hash"], where="kind = 'file'")
    return dict(zip(tab.column("path").to_pylist(), tab.column("file_hash").to_pylist()))


def _parse_on_ray(cfg: IndexConfig, repo: str, items: list[tuple[str, bytes]], progress: Progress) -> list:
    if not items:
        return []
    ray = ensure_ray(cfg)
    remote = ray.remote(_parse_batch)
    batches, cur, size = [], [], 0
    for it in items:
        cur.append(it)
        size += len(it[1])
        if len(cur) >= PARSE_BATCH_FILES or size >= PARSE_BATCH_BYTES:
            batches.append(cur)
            cur, size = [], 0
    if cur:
        batches.append(cur)
    cfg_ref = ray.put(cfg.parse)
    pending = {remote.remote(repo, b, cfg_ref): len(b) for b in batches}
    done_files, out = 0, []
    progress("parse", 0, len(items))
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for r in ready:
            out.extend(ray.get(r))
            done_files += pending.pop(r)
        progress("parse", done_files, len(items))
    return out


def _collect(parsed: list, rep: RunReport) -> tuple[list[dict], list[dict], dict]:
    nodes, edges, imports = [], [], {}
    for pf in parsed:
        for w in pf.warnings:
            if w.startswith("parse_error:"):
                rep.messages.append(w)
            else:
                rep.warnings[w] += 1
        if pf.skip_reason and not pf.nodes:
            rep.skipped[pf.skip_reason] += 1
            continue
        nodes.extend(pf.nodes)
        edges.extend(pf.edges)
        imports[pf.path] = (pf.language, list(pf.imports))
        for n in pf.nodes:   # keep raw imports with the file so a re-index can re-resolve them
            if n["kind"] == "file":
                meta = json.loads(n.get("meta") or "{}")
                meta["imports"] = [asdict(i) for i in pf.imports]
                n["meta"] = json.dumps(meta)
    return nodes, edges, imports


def _reuse(snap, paths: set[str]):
    """Nodes, in-file contains edges and raw imports of unchanged files from the previous version."""
    from pipeline.imports import ImportRef

    tab = snap.read("nodes")
    keep = [r for r in tab.to_pylist() if r["path"] in paths and r["kind"] not in ("repo", "dir")
            and r["kind"] not in S.NOTE_KINDS]
    ids = {r["id"] for r in keep}
    etab = snap.read("edges", where="kind = 'contains'")
    old_edges = [e for e in etab.to_pylist() if e["src"] in ids and e["dst"] in ids]
    imports = {}
    for r in keep:
        if r["kind"] == "file":
            meta = json.loads(r.get("meta") or "{}")
            imports[r["path"]] = (r["language"], [ImportRef(**{**i, "names": tuple(i.get("names") or ())})
                                                   for i in meta.get("imports", [])])
    return keep, old_edges, imports


def _history(root: Path, cfg: IndexConfig, prev, prev_snap, rep: RunReport, progress: Progress):
    from pipeline.cochange import compute_with_stats
    from pipeline.history import combine, mine

    since = prev.history_watermark if prev else None
    progress("history", 0, 1)
    res = mine(root, cfg.history, since=since)
    if res.rewritten:
        rep.messages.append(f"history was rewritten since {since[:12]} (force push?): re-mined in full")
    if res.incremental and prev_snap is not None and prev_snap.has("commits"):
        commits, changes = combine(prev_snap.read("commits"), prev_snap.read("file_changes"), res)
    else:
        commits, changes = res.commits, res.file_changes
    cochange, stats = compute_with_stats(changes, commits, cfg.history, head_paths=res.head_paths)
    rep.history = {**res.summary(), **{f"cochange_{k}": v for k, v in stats.items()},
                   "commits_total": commits.num_rows, "cochange_pairs": cochange.num_rows}
    if res.shallow:
        rep.messages.append("repository is a shallow clone: history mined from what exists")
    progress("history", 1, 1)
    tables = {"commits": commits, "file_changes": changes, "cochange": cochange}
    if cfg.history.symbols:
        tables["symbol_cochange"] = _symbols_on_ray(root, cfg, commits, changes, res.head_paths, rep, progress)
    return tables, (res.head or (prev.history_watermark if prev else None))


def _symbols_on_ray(root: Path, cfg: IndexConfig, commits: pa.Table, changes: pa.Table, head_paths,
                    rep: RunReport, progress: Progress) -> pa.Table:
    """Symbol-level co-change: the commits' diffs mapped to function spans, batches on Ray."""
    from pipeline.symbols import changed_symbols, compute, plan

    ray = ensure_ray(cfg)
    n = max(1, (cfg.num_cpus or os.cpu_count() or 1) * 4)
    batches = [b for b in plan(changes, commits, cfg.history, batches=n) if b]
    remote = ray.remote(changed_symbols)
    pending = [remote.remote(str(root), b) for b in batches]
    parts, done = [], 0
    progress("symbols", 0, len(pending))
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        parts.extend(ray.get(ready))
        done += 1
        progress("symbols", done, done + len(pending))
    if not parts:
        return S.to_table([], S.SYMBOL_COCHANGE)
    out = compute(pa.concat_tables(parts), changes, commits, cfg.history, head_paths=head_paths)
    rep.history["symbol_pairs"] = out.num_rows
    return out


def _merge_notes(store: Store, prev_snap, nodes: list[dict], edges: list[dict], rep: RunReport) -> list[str]:
    from pipeline.merge import merge
    from stratum.deltalog import DeltaLog

    log = DeltaLog(store.root / "deltalog")
    scan = log.scan()
    prev_nodes = prev_snap.read("nodes", where="kind IN ('rca', 'failure', 'insight')") if prev_snap else []
    code = [n for n in nodes if n["kind"] not in S.NOTE_KINDS]
    result = merge(prev_nodes, scan.records, code, repo=code[0]["repo"] if code else None)
    nodes.extend(result.nodes)
    edges.extend(result.edges)
    rep.notes = {**result.summary(), "log_damage": len(scan.damage)}
    for d in scan.damage:
        rep.messages.append(f"delta log damage skipped: {d}")
    return result.merged_record_ids


def _embed(cfg: IndexConfig, store: Store, prev, prev_snap, nodes: list[dict], rep: RunReport, progress):
    """Vectors for every node; only text never embedded with this model goes to the model."""
    if not cfg.embed.enabled:
        return None, None
    from stratum.embedder import cache_key_for, model_info_for
    from stratum.textprep import embed_text, text_hash

    info = model_info_for(cfg.embed)
    key = cache_key_for(cfg.embed)
    info["cache_key"] = key
    if prev is not None and prev.embedding and prev.embedding.get("cache_key") != key:
        rep.messages.append(f"embedding model changed ({prev.embedding.get('cache_key')} -> {key}): "
                            "text is re-embedded")
    cache: dict[str, list] = {}
    if prev_snap is not None and prev_snap.has("embeddings"):
        tab = prev_snap.read("embeddings", where=f"model = '{key}'")
        cache = dict(zip(tab.column("text_hash").to_pylist(), tab.column("vector").to_pylist()))
    texts: dict[str, str] = {}
    hashes: list[str | None] = []
    for n in nodes:
        if n["kind"] == "repo":
            hashes.append(None)
            continue
        txt = embed_text(n)
        h = text_hash(key, txt)
        hashes.append(h)
        if h not in cache:
            texts[h] = txt
    rep.embed_cached = sum(1 for h in hashes if h and h in cache)
    if texts:
        vecs = _embed_on_ray(cfg, list(texts.values()), progress)
        for h, v in zip(texts, vecs):
            cache[h] = v
    rep.embedded = len(texts)
    used = set()
    for n, h in zip(nodes, hashes):
        if h:
            n["vector"] = cache[h]
            used.add(h)
    rows = [{"model": key, "text_hash": h, "vector": cache[h]} for h in sorted(used)]
    return info, S.to_table(rows, S.EMBEDDINGS)


def _embed_on_ray(cfg: IndexConfig, texts: list[str], progress: Progress) -> list:
    ray = ensure_ray(cfg)
    from ray.util import ActorPool

    n_actors = max(1, cfg.embed.actors)
    cpus = max(1, (cfg.num_cpus or os.cpu_count() or 1) // n_actors) if not cfg.ray_address else 1
    actor = ray.remote(num_cpus=cpus)(_Embedder)
    pool = ActorPool([actor.remote(cfg.embed) for _ in range(n_actors)])
    bs = cfg.embed.batch_size
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))   # similar lengths: less padding
    batches = [[texts[i] for i in order[k:k + bs]] for k in range(0, len(order), bs)]
    out: list = [None] * len(texts)
    done = 0
    progress("embed", 0, len(texts))
    for vecs in pool.map(lambda a, b: a.embed.remote(b), batches):   # results come back in order
        for v in vecs:
            out[order[done]] = v
            done += 1
        progress("embed", done, len(texts))
    return out


def _dedupe_edges(edges: list[dict]) -> list[dict]:
    seen, out = set(), []
    for e in edges:
        k = (e["src"], e["dst"], e["kind"])
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


def _build_warm_indexes(store: Store, version: int, nodes: list[dict], edges: list[dict], embed_info) -> dict:
    """Warm-tier indexes saved beside the shard so a server loads them in seconds."""
    from stratum.warm import build_warm

    out_dir = store.index_dir(version)
    return build_warm(out_dir, nodes, edges, root=store.root)


def _retire_log(store: Store, merged_ids: list[str]) -> None:
    from stratum.deltalog import DeltaLog

    if merged_ids:
        DeltaLog(store.root / "deltalog").retire(merged_ids)
