"""E4: retrieval at the paper's scale on a synthetic store (default 1,000,000 nodes, 5,000,000 edges).

Definitions (printed with the results):
- Vectors resemble real embeddings: A real functions from the Python standard library (path,
  qualified name, signature, docstring, start of the body: the text the pipeline embeds) are
  embedded with the project's MiniLM embedder, or with --model static the default static model
  ("anchors"; the store then records that model, so a serving shard embeds text queries with it). Each node's vector is a normalised
  mixture w*e_a + (1-w)*e_b + s*g of two anchors (w ~ Beta(5, 1.5)) plus noise g drawn from the
  anchors' own covariance (so noise follows the directions real embeddings vary in; isotropic
  noise would make every neighbour equally far, a case where no ANN index works).
- Nodes: dirs, files, functions, methods, classes and notes with paths in 16 top-level
  directories, 5 languages (correlated with the directory, as in real monorepos), names derived
  from the anchor's name (so names repeat, like real code) and the anchor's signature/doc/body as
  text. Edges: contains (dir->file->code), then imports, calls, cochange (weighted), tests, about,
  inherits between popularity-skewed endpoints, up to --edges in total.
- Queries (1,000 unless --queries): "text" queries are real docstring first sentences of stdlib
  functions that are not anchors, embedded by the same model (an agent describing what it wants);
  "synthetic" queries are fresh samples from the node distribution. Keyword queries: half
  identifier queries (an existing node's name), half the text queries.
- Latency: wall time of one in-process call (time.perf_counter), single-threaded search, reported
  as p50 / p99 over all queries after one untimed warm-up pass; "cold" is the first pass right
  after load (memory-mapped pages fault in). cpu = thread CPU time (time.thread_time), shown because
  the 2 cores are shared with other jobs; the load average during the run is printed.
- Hybrid latency excludes embedding the query (given as a vector; the query embedding time is
  reported on its own): vector + keyword + exact-name lists, RRF fusion, filters, id tie-breaks.
  Both lists run inline on the calling thread (the default, stratum.search.PARALLEL = 0); the
  no-filter case is also timed with the keyword list on a helper thread, interleaved query by query.
- recall@10: |found top-10 ∩ exact top-10| / 10, mean over queries; exact = brute-force cosine
  over the float32 vectors in numpy. Keyword exactness: the warm BM25 top-10 scores are compared
  with a brute-force scan of every posting of the query terms.
- Memory: VmRSS of the measuring process after loading the warm tier and after all queries
  (memory-mapped pages count once touched). Disk: bytes of the saved files.
- Walk: Graph.neighbors(row, all kinds, both directions) for random rows.
- Lance (cold tier): LanceSearcher over the same nodes table with the Lance vector index
  (IVF_PQ and/or IVF_HNSW_SQ, cosine) and the FTS index on code-aware tokens.

Usage:
  python benchmarks/e4_synthetic.py --nodes 1000000 --edges 5000000          # everything
  python benchmarks/e4_synthetic.py --nodes 50000 --edges 250000 --dir /tmp/e4s   # smoke run
Phases (run by "all" as separate processes, so memory and load times are those of a fresh reader):
  build, measure, lance-index TYPE, lance-measure TYPE
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import platform
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyarrow as pa  # noqa: E402

from stratum import schema as S  # noqa: E402

LANGS = [("python", "py"), ("typescript", "ts"), ("go", "go"), ("java", "java"), ("rust", "rs")]
TOPS = ["api", "billing", "core", "data", "deploy", "docs_gen", "frontend", "infra", "ml", "mobile",
        "payments", "platform", "search", "security", "storage", "tools"]
EDGE_MIX = [("imports", 0.30), ("calls", 0.40), ("cochange", 0.15), ("tests", 0.05), ("about", 0.05),
            ("inherits", 0.05)]
KIND_MIX = [("function", 0.50), ("method", 0.32), ("class", 0.15), ("rca", 0.01), ("failure", 0.01),
            ("insight", 0.01)]


# ---------------------------------------------------------------------------- real anchors
def stdlib_functions() -> list[dict]:
    root = Path(sysconfig.get_paths()["stdlib"])
    skip = {"test", "tests", "idlelib", "site-packages", "lib2to3", "__pycache__", "turtledemo", "ensurepip"}
    out = []
    for dp, dn, fn in os.walk(root):
        dn[:] = sorted(d for d in dn if d not in skip)
        for f in sorted(fn):
            if not f.endswith(".py"):
                continue
            p = Path(dp) / f
            try:
                src = p.read_text(encoding="utf-8")
                tree = ast.parse(src)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            rel = str(p.relative_to(root))
            for cls, node in _functions(tree):
                qual = f"{cls}.{node.name}" if cls else node.name
                seg = ast.get_source_segment(src, node) or ""
                sig = seg.split("\n", 1)[0].strip().rstrip(":")
                body = seg[:600]
                out.append({"path": rel, "name": node.name, "qualname": qual, "signature": sig,
                            "doc": (ast.get_docstring(node) or "")[:400], "full": body,
                            "kind": "method" if cls else "function"})
    return out


def _functions(tree):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield "", node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield node.name, sub


def first_sentence(doc: str) -> str:
    line = " ".join(doc.strip().split("\n\n")[0].split())
    return line.split(". ")[0].rstrip(".")[:200]


def embedder(model: str):
    """The embedder the anchors and text queries come from (``--model``)."""
    from stratum.config import EmbedConfig
    from stratum.embedder import MINILM, STATIC, get_embedder

    return get_embedder(EmbedConfig(model={"minilm": MINILM, "static": STATIC}[model]), threads=2)


def anchors_and_queries(n_anchors: int, n_queries: int, cache: Path, model: str = "minilm"):
    from stratum.codetokens import node_text

    funcs = stdlib_functions()
    rng = np.random.default_rng(0)
    order = rng.permutation(len(funcs))
    anchors = [funcs[i] for i in order[:n_anchors]]
    rest = [funcs[i] for i in order[n_anchors:] if len(first_sentence(funcs[i]["doc"]).split()) >= 4]
    qtexts = [first_sentence(f["doc"]) for f in rest[:max(n_queries, 1000)]]   # one cache for any --queries
    emb = embedder(model)
    key = hashlib.sha1(json.dumps([emb.model_info(), [node_text(a) for a in anchors], qtexts]).encode()).hexdigest()[:16]
    f = cache / f"anchors-{key}.npz"
    if f.exists():
        z = np.load(f)
        return anchors, qtexts[:n_queries], z["anchors"], z["queries"][:n_queries], emb
    t = time.perf_counter()
    ea = emb.embed([node_text(a) for a in anchors])
    eq = emb.embed(qtexts)
    print(f"embedded {len(anchors)} anchors + {len(qtexts)} queries in {time.perf_counter() - t:.1f}s", flush=True)
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(f, anchors=ea, queries=eq)
    return anchors, qtexts[:n_queries], ea, eq[:n_queries], emb


class Sampler:
    """Mixtures of two anchors plus noise shaped like the anchors' covariance."""

    def __init__(self, anchors: np.ndarray, noise: float, seed: int):
        self.e = anchors.astype(np.float32)
        c = self.e - self.e.mean(0)
        _, s, vt = np.linalg.svd(c, full_matrices=False)
        self.proj = (s[:, None] * vt / np.sqrt(len(self.e) - 1)).astype(np.float32)  # z @ proj ~ N(0, cov)
        self.noise = noise
        self.rng = np.random.default_rng(seed)

    def sample(self, m: int, a: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        r = self.rng
        a = r.integers(0, len(self.e), m) if a is None else a
        b = r.integers(0, len(self.e), m)
        w = r.beta(5, 1.5, m).astype(np.float32)[:, None]
        g = r.standard_normal((m, self.proj.shape[0]), dtype=np.float32) @ self.proj
        x = w * self.e[a] + (1 - w) * self.e[b] + self.noise * g
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        return x.astype(np.float32), a


# ---------------------------------------------------------------------------- the store
def pick(rng, mix, n):
    names = [k for k, _ in mix]
    p = np.array([w for _, w in mix])
    return np.array(names)[rng.choice(len(names), n, p=p / p.sum())]


def skewed(rng, count: int, m: int) -> np.ndarray:
    """Popularity-skewed picks in [0, count): a few nodes get many edges, as in real graphs."""
    perm = rng.permutation(count)
    return perm[(rng.random(m) ** 3 * count).astype(np.int64)]


def build(args) -> None:
    from stratum.graph import Graph
    from stratum.ids import node_id
    from stratum.keywordindex import KeywordIndex
    from stratum.codetokens import node_names, node_text, tokenize
    from stratum.store import Store
    from stratum.vectorindex import HnswParams, VectorIndex, exact_knn

    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    anchors, qtexts, ea, eq, emb = anchors_and_queries(args.anchors, args.queries, Path(args.cache), args.model)
    n, rng = args.nodes, np.random.default_rng(1)

    # ---- structure: dirs, files, code and note nodes
    t = time.perf_counter()
    n_files = max(1, n // 12)
    n_dirs = max(1, n_files // 10)
    top_lang = {top: LANGS[i % len(LANGS)] for i, top in enumerate(TOPS)}
    dir_paths = [f"{TOPS[i % len(TOPS)]}/pkg{i // len(TOPS):04d}" for i in range(n_dirs)]
    file_dir = rng.integers(0, n_dirs, n_files)
    words = sorted({w for a in anchors for w in tokenize(a["name"]) if w.isalpha()})
    file_lang = []
    file_paths = []
    for j, d in enumerate(file_dir):
        top = dir_paths[d].split("/")[0]
        lang, ext = top_lang[top] if rng.random() < 0.8 else LANGS[rng.integers(0, len(LANGS))]
        file_lang.append(lang)
        file_paths.append(f"{dir_paths[d]}/{words[rng.integers(0, len(words))]}_{j}.{ext}")
    n_code = n - n_dirs - n_files
    kinds = np.concatenate([np.full(n_dirs, "dir"), np.full(n_files, "file"), pick(rng, KIND_MIX, n_code)])
    code_file = rng.integers(0, n_files, n_code)

    # ---- vectors: code/note nodes around anchors; dirs/files around a random member's anchor
    sampler = Sampler(ea, args.noise, seed=2)
    X = np.empty((n, ea.shape[1]), dtype=np.float32)
    anchor_of = np.empty(n, dtype=np.int64)
    for s in range(0, n, 100_000):
        e = min(n, s + 100_000)
        X[s:e], anchor_of[s:e] = sampler.sample(e - s)
    timings["generate_vectors_s"] = time.perf_counter() - t

    t = time.perf_counter()
    cols = {k: [] for k in ("id", "kind", "path", "name", "qualname", "language", "signature", "doc", "full",
                            "summary", "parent_id")}
    texts, names = [], []
    for i in range(n):
        k = kinds[i]
        a = anchors[anchor_of[i]]
        if k == "dir":
            path, name, qual, lang, sig, doc, full = dir_paths[i], dir_paths[i].rsplit("/", 1)[1], "", "", "", "", ""
        elif k == "file":
            j = i - n_dirs
            path, lang = file_paths[j], file_lang[j]
            name, qual, sig, doc, full = path.rsplit("/", 1)[1], "", "", a["doc"][:200], ""
        else:
            j = code_file[i - n_dirs - n_files]
            path, lang = file_paths[j], file_lang[j]
            suffix = "" if rng.random() < 0.3 else "_" + words[rng.integers(0, len(words))]
            name = a["name"] + suffix
            if k == "method":
                qual = f"{a['qualname'].split('.')[0] if '.' in a['qualname'] else 'Handler'}{i % 97}.{name}"
            elif k == "class":
                name = "".join(p.capitalize() for p in name.split("_") if p) or "Thing"
                qual = name
            else:
                qual = name
            sig = a["signature"].replace(a["name"], name, 1)
            doc, full = a["doc"], a["full"]
            if k in S.NOTE_KINDS:
                name, qual, sig = "", "", ""
                full = f"{k}: {first_sentence(a['doc']) or a['name']} (seen in {path})"
        nid = node_id("e4", path, str(k), f"{qual}#{i}")
        rec = {"kind": str(k), "path": path, "name": name, "qualname": qual, "signature": sig, "doc": doc,
               "full": full, "summary": full if k in S.NOTE_KINDS else sig or name}
        texts.append(node_text(rec))
        names.append(node_names(rec))
        for c, v in (("id", nid), ("kind", str(k)), ("path", path), ("name", name), ("qualname", qual),
                     ("language", lang), ("signature", sig), ("doc", doc), ("full", full),
                     ("summary", rec["summary"]), ("parent_id", None)):
            cols[c].append(v)
    timings["generate_nodes_s"] = time.perf_counter() - t
    idx = out / "indexes"
    t = time.perf_counter()
    kw_col = pa.array([" ".join(tokenize(x)) for x in texts], pa.string())
    timings["keywords_column_s"] = time.perf_counter() - t
    t = time.perf_counter()
    ki = KeywordIndex.build(texts, names)
    timings["warm_keyword_build_s"] = time.perf_counter() - t
    ki.save(idx / "keyword")
    del ki, texts, names
    print(f"keyword index: {timings['warm_keyword_build_s']:.0f}s", flush=True)

    # ---- edges
    t = time.perf_counter()
    ids = np.array(cols["id"], dtype=object)
    src_l = [file_dir, n_dirs + code_file]                                   # parent -> child
    dst_l = [n_dirs + np.arange(n_files), n_dirs + n_files + np.arange(n_code)]
    kind_l = [np.full(n_files, "contains"), np.full(n_code, "contains")]
    w_l = [np.full(n_files, np.nan), np.full(n_code, np.nan)]
    rest = max(0, args.edges - n_files - n_code)
    file_rows = n_dirs + np.arange(n_files)
    code_rows = n_dirs + n_files + np.arange(n_code)
    for kind, share in EDGE_MIX:
        m = int(rest * share)
        pool = file_rows if kind in ("imports", "cochange", "tests") else code_rows
        s_ = pool[skewed(rng, len(pool), m)]
        d_ = pool[skewed(rng, len(pool), m)]
        src_l.append(s_)
        dst_l.append(d_)
        kind_l.append(np.full(m, kind))
        w_l.append(rng.random(m).astype(np.float32) if kind == "cochange" else np.full(m, np.nan))
    src = np.concatenate(src_l)
    dst = np.concatenate(dst_l)
    edges = pa.table({"src": pa.array(ids[src], pa.string()), "dst": pa.array(ids[dst], pa.string()),
                      "kind": pa.array(np.concatenate(kind_l).astype(str), pa.string()),
                      "weight": pa.array(np.concatenate(w_l).astype(np.float64), pa.float64(), from_pandas=True)})
    timings["generate_edges_s"] = time.perf_counter() - t
    print(f"generated {n} nodes, {len(edges)} edges", flush=True)

    # ---- cold store (Lance)
    store = Store(out / "store")
    vec = pa.FixedSizeListArray.from_arrays(pa.array(X.reshape(-1)), X.shape[1])
    nodes = pa.table({**{c: pa.array(v, pa.string()) for c, v in cols.items() if c != "id"},
                      "id": pa.array(cols["id"], pa.string()),
                      "repo": pa.array(["e4"] * n, pa.string()), "vector": vec, "keywords": kw_col})
    nodes = pa.table({f.name: nodes.column(f.name) if f.name in nodes.column_names else pa.nulls(n, f.type)
                      for f in S.NODES}, schema=S.NODES)
    for c in ("signature", "doc", "full", "summary"):
        del cols[c]
    t = time.perf_counter()
    store.write_dataset("nodes", nodes)
    timings["lance_write_nodes_s"] = time.perf_counter() - t
    t = time.perf_counter()
    etab = pa.table({f.name: edges.column(f.name) if f.name in edges.column_names else pa.nulls(len(edges), f.type)
                     for f in S.EDGES}, schema=S.EDGES)
    store.write_dataset("edges", etab)
    timings["lance_write_edges_s"] = time.perf_counter() - t
    del nodes, etab, vec, kw_col
    print(f"lance written: {timings['lance_write_nodes_s']:.0f}s + {timings['lance_write_edges_s']:.0f}s", flush=True)

    # ---- ground truth and queries
    t = time.perf_counter()
    qs_syn, _ = Sampler(ea, args.noise, seed=3).sample(args.queries)
    gt_text = exact_knn(X, eq, 10)
    gt_syn = exact_knn(X, qs_syn, 10)
    cls_rows = np.flatnonzero(kinds == "class")
    gt_cls = cls_rows[exact_knn(X[cls_rows], eq, 10)]
    timings["ground_truth_s"] = time.perf_counter() - t
    ident_rows = rng.choice(np.flatnonzero(np.isin(kinds, ["function", "method", "class"])), args.queries // 2,
                            replace=False)
    kw_queries = [cols["name"][i] for i in ident_rows] + qtexts[: args.queries - args.queries // 2]
    np.savez(out / "queries.npz", text=eq, syn=qs_syn, gt_text=gt_text, gt_syn=gt_syn, gt_cls=gt_cls,
             ident_rows=ident_rows)
    (out / "queries.json").write_text(json.dumps({"text": qtexts, "keyword": kw_queries}))

    # ---- warm tier
    idx = out / "indexes"
    t = time.perf_counter()
    g = Graph.from_edges(edges, pa.array(cols["id"], pa.string()))
    timings["warm_graph_build_s"] = time.perf_counter() - t
    g.save(idx / "graph")
    del g, edges, cols
    params = HnswParams(connectivity=args.connectivity, expansion_add=args.expansion_add,
                        expansion_search=args.expansion_search)
    t = time.perf_counter()
    c0 = time.process_time()
    vi = VectorIndex.build(X, params=params, threads=args.threads)
    timings["warm_vector_build_s"] = time.perf_counter() - t
    timings["warm_vector_build_cpu_s"] = time.process_time() - c0
    vi.save(idx / "vector")
    del vi
    print(f"vector index: {timings['warm_vector_build_s']:.0f}s", flush=True)
    (out / "build.json").write_text(json.dumps({"nodes": n, "edges": int(len(src)), "timings": timings,
                                                "noise": args.noise, "anchors": len(anchors),
                                                "embedding": emb.model_info(),
                                                "hnsw": params.__dict__}, indent=1))


# ---------------------------------------------------------------------------- measuring
def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def du(p: Path) -> int:
    return sum(f.stat().st_size for f in Path(p).rglob("*") if f.is_file())


def timed(fn, items, passes=2):
    """Run fn over items `passes` times; latency lists of the first (cold) and last pass."""
    res = []
    for _ in range(passes):
        wall, cpu, outs = [], [], []
        for it in items:
            t, c = time.perf_counter(), time.thread_time()
            outs.append(fn(it))
            cpu.append(time.thread_time() - c)
            wall.append(time.perf_counter() - t)
        res.append((np.array(wall) * 1e3, np.array(cpu) * 1e3, outs))
    return res[0], res[-1]


def stats(wall, cpu) -> dict:
    return {"p50_ms": round(float(np.percentile(wall, 50)), 3), "p99_ms": round(float(np.percentile(wall, 99)), 3),
            "cpu_p50_ms": round(float(np.percentile(cpu, 50)), 3), "n": len(wall)}


def measure(args) -> None:
    from stratum.graph import Graph
    from stratum.keywordindex import KeywordIndex
    from stratum.codetokens import tokenize
    from stratum.rowfilter import NodeMeta
    from stratum.search import HybridSearcher
    from stratum.store import Store
    from stratum.vectorindex import VectorIndex, recall_at_k

    out = Path(args.dir)
    idx = out / "indexes"
    res: dict = {"load_avg_start": os.getloadavg()}
    z = np.load(out / "queries.npz")
    qj = json.loads((out / "queries.json").read_text())
    t = time.perf_counter()
    tbl = Store(out / "store").db().open_table("nodes")
    meta_tab = tbl.search().select(["id", "kind", "path", "language"]).limit(None).to_arrow()
    res["load_meta_s"] = time.perf_counter() - t
    vmeta = json.loads((idx / "vector" / "vectors.json").read_text())
    if not vmeta.get("groups"):
        # per-kind graphs for mid-sized kinds (VectorIndex.build_groups); built here when the
        # build phase predates them, timed as build work
        t = time.perf_counter()
        vb = VectorIndex.load(idx / "vector", mmap=False)
        kinds_all = meta_tab.column("kind").to_numpy(zero_copy_only=False)
        res["warm_vector_groups_built"] = vb.build_groups(kinds_all, threads=args.threads)
        vb.save(idx / "vector")
        res["warm_vector_groups_build_s"] = time.perf_counter() - t
        del vb, kinds_all
        print("vector groups", res["warm_vector_groups_built"], f"{res['warm_vector_groups_build_s']:.0f}s", flush=True)
    rss0 = rss_mb()
    t = time.perf_counter()
    meta = NodeMeta(meta_tab)
    res["load_node_meta_index_s"] = time.perf_counter() - t
    t = time.perf_counter()
    vi = VectorIndex.load(idx / "vector", mmap=True)
    ki = KeywordIndex.load(idx / "keyword", mmap=True)
    g = Graph.load(idx / "graph", mmap=True)
    res["load_indexes_mmap_s"] = time.perf_counter() - t
    hs = HybridSearcher(meta, vi, ki, None)
    res["rss_after_load_mb"] = rss_mb() - rss0
    res["disk_mb"] = {k: du(idx / k) / 2**20 for k in ("vector", "keyword", "graph")}
    res["disk_mb"]["lance_nodes"] = du(out / "store" / "data-v1" / "nodes.lance") / 2**20
    print(f"loaded in {res['load_meta_s']:.2f}s (node columns from Lance) + {res['load_node_meta_index_s']:.2f}s "
          f"(filter/tie arrays) + {res['load_indexes_mmap_s']:.3f}s (indexes)", flush=True)

    # vector: ef sweep on text and synthetic queries
    res["vector"] = []
    for ef in args.ef_sweep:
        vi.expansion_search = ef
        row = {"ef": ef}
        for name in ("text", "syn"):
            cold, warm = timed(lambda q: vi.search(q, 10).rows, z[name])
            row[name] = {"recall@10": round(recall_at_k(warm[2], z[f"gt_{name}"]), 4), **stats(*warm[:2]),
                         "cold_p50_ms": round(float(np.median(cold[0])), 3)}
        res["vector"].append(row)
        print("vector", row, flush=True)
    good = [r["ef"] for r in res["vector"] if r["syn"]["recall@10"] >= 0.95]
    vi.expansion_search = min(good) if good else max(args.ef_sweep)
    res["ef_used_for_hybrid"] = vi.expansion_search      # smallest swept ef with recall >= 0.95
    cls = np.asarray(meta.kind_code == meta.kind_names.index("class"))
    _, warm = timed(lambda q: vi.search(q, 10, predicate=lambda r: cls[r], selectivity=cls.mean()).rows, z["text"])
    res["vector_filtered_class"] = {"recall@10": round(recall_at_k(warm[2], z["gt_cls"]), 4), **stats(*warm[:2]),
                                    "selectivity": round(float(cls.mean()), 4)}
    print("vector class filter", res["vector_filtered_class"], flush=True)
    if "class" in vi.groups:
        _, warm = timed(lambda q: vi.search_groups(q, 10, ["class"]).rows, z["text"])
        res["vector_class_own_graph"] = {"recall@10": round(recall_at_k(warm[2], z["gt_cls"]), 4), **stats(*warm[:2])}
        print("vector class own graph", res["vector_class_own_graph"], flush=True)

    # keyword: latency, and exactness against a brute-force scan of the postings
    kq = qj["keyword"]
    cold, warm = timed(lambda q: ki.search(q, 10), kq)
    res["keyword"] = {**stats(*warm[:2]), "cold_p50_ms": round(float(np.median(cold[0])), 3)}
    agree = checked = 0
    ident_first = 0
    for i, q in enumerate(kq):
        got = warm[2][i]
        if got.exact_name.any() or checked >= 200:
            continue
        checked += 1
        acc = np.zeros(ki.n_docs, np.float64)
        for tkn in tokenize(q):                     # repeated query words count again, as in search
            s = ki._term_slot(tkn)
            if s >= 0:
                a, b = int(ki.offsets[s]), int(ki.offsets[s + 1])
                acc[np.asarray(ki.rows[a:b])] += np.asarray(ki.impact[a:b], np.float64)
        best = np.sort(acc)[::-1][:len(got.scores)]
        agree += bool(np.allclose(got.scores, best, rtol=1e-4, atol=1e-5))
    n_ident = min(200, len(z["ident_rows"]))
    for i in range(n_ident):
        ident_first += int(len(warm[2][i].rows) > 0 and bool(warm[2][i].exact_name[0]))
    res["keyword"]["top10_scores_equal_bruteforce"] = f"{agree}/{checked}"
    res["keyword"]["identifier_query_top1_is_exact_name_match"] = f"{ident_first}/{n_ident}"
    from stratum.search import KEYWORD_ROUNDS
    _, warm2 = timed(lambda q: ki.search(q, 50, max_rounds=KEYWORD_ROUNDS).rows[:10], kq, passes=1)
    _, warm3 = timed(lambda q: ki.search(q, 50).rows[:10], kq, passes=1)
    res["keyword_hybrid_mode"] = {**stats(*warm2[:2]), "k": 50, "max_rounds": KEYWORD_ROUNDS,
                                  "top10_agreement_with_exact": round(float(np.mean(
                                      [len(np.intersect1d(a, b)) / max(1, len(b)) for a, b in zip(warm2[2], warm3[2])])), 4)}
    print("keyword", res["keyword"], flush=True)

    # hybrid (query vector given; embedding reported separately)
    text_q = qj["text"]
    pairs = list(zip(text_q, z["text"]))
    res["hybrid"] = {}
    top_dir = meta.path_names[len(meta.path_names) // 3].split("/")[0] + "/"
    for label, kw in (("no filter", {}), ("kind in (function, method)", {"kinds": ("function", "method")}),
                      (f"path {top_dir} + language", {"path_prefix": top_dir, "language": "python"}),
                      ("kind class", {"kinds": ("class",)}),
                      ("notes (rca, failure, insight)", {"kinds": ("rca", "failure", "insight")})):
        cold, warm = timed(lambda p: hs.search(p[0], query_vector=p[1], limit=10, **kw), pairs)
        ok = all(all(meta.kind_names[meta.kind_code[it.row]] in kw.get("kinds", meta.kind_names)
                     for it in page.items) for page in warm[2][:50])
        res["hybrid"][label] = {**stats(*warm[:2]), "cold_p50_ms": round(float(np.median(cold[0])), 3),
                                "filters_respected": ok}
        print("hybrid", label, res["hybrid"][label], flush=True)

    # the same no-filter hybrid with the keyword list on a helper thread, interleaved query by
    # query with the inline one (the default) so machine load falls on both alike
    hs_par = HybridSearcher(meta, vi, ki, None, parallel=2)
    par, seq = [], []
    for qtext, qvec in pairs:
        for searcher, acc in ((hs_par, par), (hs, seq)):
            t = time.perf_counter()
            searcher.search(qtext, query_vector=qvec, limit=10)
            acc.append((time.perf_counter() - t) * 1e3)
    res["hybrid_parallel_vs_sequential"] = {
        "parallel_p50_ms": round(float(np.median(par)), 3), "sequential_p50_ms": round(float(np.median(seq)), 3),
        "parallel_p99_ms": round(float(np.percentile(par, 99)), 3),
        "sequential_p99_ms": round(float(np.percentile(seq, 99)), 3)}
    print("hybrid parallel vs sequential", res["hybrid_parallel_vs_sequential"], flush=True)

    model = json.loads((out / "build.json").read_text()).get("embedding", {}).get("model", "")
    emb = embedder("static" if model.endswith("-static") else "minilm")
    emb.embed(["warm up"])
    _, warm = timed(lambda q: emb.embed([q]), text_q[:100], passes=1)
    res["query_embedding"] = {**stats(*warm[:2]), "model": emb.model_info()["model"]}

    # walk
    rng = np.random.default_rng(5)
    rows = rng.integers(0, g.n_rows, 1000)
    cold, warm = timed(lambda r: g.neighbors(int(r), (), "both"), rows)
    res["walk"] = {**stats(*warm[:2]), "cold_p50_ms": round(float(np.median(cold[0])), 3),
                   "mean_degree": float(np.mean([len(n) for n in warm[2]])), "edges": g.n_edges}
    _, warm = timed(lambda r: g.neighbors(int(r), ("calls",), "out"), rows)
    res["walk_calls_out"] = stats(*warm[:2])
    print("walk", res["walk"], flush=True)
    res["rss_after_queries_mb"] = rss_mb() - rss0
    res["load_avg_end"] = os.getloadavg()
    (out / "measure.json").write_text(json.dumps(res, indent=1, default=float))


def lance_index(args, kind: str) -> None:
    from benchmarks.lanceindex import LanceIndexParams, create_indexes
    from stratum.store import Store

    tbl = Store(Path(args.dir) / "store").db().open_table("nodes")
    t = time.perf_counter()
    rep = create_indexes(tbl, LanceIndexParams(vector_index=kind, fts=kind == args.lance[0],
                                               scalar=kind == args.lance[0]))
    rep["total_s"] = time.perf_counter() - t
    (Path(args.dir) / f"lance-index-{kind}.json").write_text(json.dumps(rep, indent=1, default=str))
    print("lance index", kind, rep["seconds"], flush=True)


def lance_measure(args, kind: str) -> None:
    from benchmarks.lanceindex import LanceSearcher, filter_clause
    from stratum.store import Store
    from stratum.vectorindex import recall_at_k

    out = Path(args.dir)
    z = np.load(out / "queries.npz")
    qj = json.loads((out / "queries.json").read_text())
    tbl = Store(out / "store").db().open_table("nodes")
    ids = tbl.search().select(["id"]).limit(None).to_arrow().column("id").to_pylist()
    row_of = {x: i for i, x in enumerate(ids)}
    res: dict = {"index": kind, "load_avg_start": os.getloadavg(), "vector": []}
    configs = [{"nprobes": 20}, {"nprobes": 50, "refine_factor": 5}] if kind == "IVF_PQ" else \
        [{"nprobes": 1, "ef": 64}, {"nprobes": 2, "ef": 128}, {"nprobes": 5, "ef": 128}, {"nprobes": 10, "ef": 128}]
    for cfg in configs:
        ls = LanceSearcher(tbl, **cfg)
        row = dict(cfg)
        for name in ("text", "syn"):
            cold, warm = timed(lambda q: [row_of[i] for i in ls.vector(q, 10)[0]], z[name])
            row[name] = {"recall@10": round(recall_at_k(warm[2], z[f"gt_{name}"]), 4), **stats(*warm[:2])}
        res["vector"].append(row)
        print("lance vector", row, flush=True)
    ls = LanceSearcher(tbl)
    if kind == args.lance[0]:
        cold, warm = timed(lambda q: ls.keyword(q, 10)[0], qj["keyword"])
        res["fts"] = stats(*warm[:2])
        where = filter_clause(kinds=["function", "method"])
        _, warm = timed(lambda q: ls.keyword(q, 10, where=where)[0], qj["keyword"][:300], passes=1)
        res["fts_kind_filter"] = stats(*warm[:2])
        print("lance fts", res["fts"], res["fts_kind_filter"], flush=True)
    (out / f"lance-measure-{kind}.json").write_text(json.dumps(res, indent=1, default=float))


def report(args) -> None:
    out = Path(args.dir)
    b = json.loads((out / "build.json").read_text())
    m = json.loads((out / "measure.json").read_text())
    print(json.dumps({"machine": machine(), "build": b, "measure": m}, indent=1, default=float))
    for kind in args.lance:
        for f in (out / f"lance-index-{kind}.json", out / f"lance-measure-{kind}.json"):
            if f.exists():
                print(f.name, f.read_text())


def machine() -> dict:
    return {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "python": platform.python_version(), "ram_gb": round(os.sysconf("SC_PAGE_SIZE") *
                                                                 os.sysconf("SC_PHYS_PAGES") / 2**30, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("phase", nargs="?", default="all",
                    choices=["all", "build", "measure", "lance-index", "lance-measure", "report"])
    ap.add_argument("kind", nargs="?", default=None, help="Lance vector index type for lance-* phases")
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--edges", type=int, default=5_000_000)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--anchors", type=int, default=4000)
    ap.add_argument("--model", choices=["minilm", "static"], default="minilm",
                    help="embedder of the anchors and text queries (static: the default serving model)")
    ap.add_argument("--noise", type=float, default=0.5, help="scale of the covariance-shaped noise")
    ap.add_argument("--connectivity", type=int, default=16)
    ap.add_argument("--expansion-add", type=int, default=128)
    ap.add_argument("--expansion-search", type=int, default=0, help="0: by size (auto_expansion)")
    ap.add_argument("--ef-sweep", type=lambda s: [int(x) for x in s.split(",")],
                    default=[16, 32, 48, 64, 96, 128, 192, 384])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lance", type=lambda s: s.split(","), default=["IVF_PQ", "IVF_HNSW_SQ"])
    ap.add_argument("--dir", default=str(ROOT / "benchmarks" / ".out" / "e4"))
    ap.add_argument("--cache", default=str(ROOT / "benchmarks" / ".out" / "e4-cache"))
    args = ap.parse_args()
    print(__doc__.split("Usage:")[0], flush=True)
    print("machine:", machine(), "load average:", os.getloadavg(), flush=True)
    if args.phase == "build":
        build(args)
    elif args.phase == "measure":
        measure(args)
    elif args.phase == "lance-index":
        lance_index(args, args.kind)
    elif args.phase == "lance-measure":
        lance_measure(args, args.kind)
    elif args.phase == "report":
        report(args)
    else:
        base = [sys.executable, __file__] + [a for a in sys.argv[1:] if a != "all"]
        steps = [["build"], ["measure"]]
        for kind in args.lance:
            steps += [["lance-index", kind], ["lance-measure", kind]]
        for step in steps:
            t = time.perf_counter()
            subprocess.run(base[:2] + step + base[2:], check=True)
            print(f"== {' '.join(step)} took {time.perf_counter() - t:.0f}s", flush=True)
        report(args)


if __name__ == "__main__":
    main()
