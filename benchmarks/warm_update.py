"""Warm-tier update after a small change vs a full build (issue 13 item 3).

Definitions (printed with the results):
- Nodes: --nodes synthetic code nodes (functions in files of 20, text from a 4,000-word
  vocabulary of code-like identifiers, 384-d vectors drawn around 2,000 cluster centres and
  normalised) and 2 random ``calls`` edges per node; each version's nodes in the pipeline's
  order (sorted by path, then qualified name), as ``pipeline.stages.write`` hands them over.
- Change: --change (default 1%) of the nodes each get a new docstring, a new vector, or are
  removed, and as many new nodes are added inside existing files (so rows shift, as they do
  when the pipeline sorts nodes by path).
- full: ``build_warm(dir, nodes, edges)`` of the changed version; update: the same call with
  ``previous=`` the first version's folder. Wall seconds per part (prepare = node text and
  hashes, keyword, vector, graph, checksums) from the build's own ``info["seconds"]``.
- Equal answers: every keyword array of the update equals the full build's (np.array_equal);
  recall@10 of both HNSW indexes against exact cosine top-10 over 200 random queries; the CSR
  arrays compared.

    python benchmarks/warm_update.py --nodes 100000 [--change 0.01] [--dir DIR] [--parts]
    python benchmarks/warm_update.py --nodes 1000000 --dir DIR --update-only   # again, after a change
        to the update code: reuses DIR/v1, DIR/v2full and the full build's time in DIR/result.json
        (the same generated nodes: the generator is seeded), times and checks the update only
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def vocabulary(rng, n=4000) -> list[str]:
    parts = ["get", "set", "load", "save", "parse", "render", "cart", "price", "tax", "user", "token", "cache",
             "index", "shard", "merge", "query", "http", "json", "file", "path", "node", "edge", "graph", "sort"]
    return sorted({"_".join(rng.choice(parts, size=rng.integers(1, 4))) + str(rng.integers(0, 50))
                   for _ in range(n * 2)})[:n]


def nodes_for(n: int, seed: int, vocab, centres, tag: str = "") -> list[dict]:
    from stratum.ids import node_id

    rng = np.random.default_rng(seed)
    c = centres[rng.integers(0, len(centres), n)]
    x = c + 0.35 * rng.standard_normal(c.shape).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    out = []
    for i in range(n):
        w = [vocab[j] for j in rng.integers(0, len(vocab), 12)]
        path = f"pkg/d{i // 2000:03d}/m{i // 20:05d}.py"
        q = f"{w[0]}{tag}_{i}"
        out.append({"id": node_id("b", path, "function", q), "repo": "b", "kind": "function", "path": path,
                    "name": q, "qualname": q, "signature": f"def {q}({w[1]}, {w[2]})",
                    "doc": " ".join(w[3:8]), "full": f"def {q}():\n    return {w[8]}({w[9]}, {w[10]})\n",
                    "vector": x[i]})
    return out


def edges_for(nodes, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, len(nodes), 2 * len(nodes))
    b = rng.integers(0, len(nodes), 2 * len(nodes))
    return [{"src": nodes[i]["id"], "dst": nodes[j]["id"], "kind": "calls", "repo": "b"} for i, j in zip(a, b) if i != j]


def changed(nodes, frac, seed, vocab, centres):
    rng = np.random.default_rng(seed)
    k = max(1, int(len(nodes) * frac))
    pick = rng.choice(len(nodes), 3 * k, replace=False)
    out = list(nodes)
    for i in pick[:k]:
        out[i] = dict(out[i], doc="retry timeout " + out[i]["doc"])
    fresh = nodes_for(k, seed + 7, vocab, centres, tag="v")
    for j, i in enumerate(pick[k:2 * k]):
        out[i] = dict(out[i], vector=fresh[j]["vector"])
    gone = set(pick[2 * k:].tolist())
    out = [x for i, x in enumerate(out) if i not in gone]
    added = nodes_for(k, seed + 11, vocab, centres, tag="n")
    for j, x in enumerate(added):
        x["path"] = nodes[int(rng.integers(0, len(nodes)))]["path"]
    out += added
    out.sort(key=lambda x: (x["path"], x["qualname"]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--change", type=float, default=0.01)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--update-only", action="store_true", help="reuse v1, v2full and result.json in --dir")
    ap.add_argument("--parts", action="store_true", help="also time the update with its parts in turn (after it)")
    args = ap.parse_args()
    from stratum.graph import Graph
    from stratum.keywordindex import KeywordIndex
    from stratum.vectorindex import VectorIndex, exact_knn, recall_at_k
    from stratum.warm import build_warm

    rng = np.random.default_rng(0)
    vocab = vocabulary(rng)
    centres = rng.standard_normal((2000, 384)).astype(np.float32)
    base = Path(args.dir or tempfile.mkdtemp(prefix="warm_update."))
    base.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    v1 = sorted(nodes_for(args.nodes, 1, vocab, centres), key=lambda x: (x["path"], x["qualname"]))  # as the pipeline writes
    v2 = changed(v1, args.change, 2, vocab, centres)
    e1, e2 = edges_for(v1, 1), edges_for(v2, 2)
    gen = time.perf_counter() - t
    res = {"nodes": args.nodes, "change": args.change, "generate_s": round(gen, 1), "machine": platform.machine(),
           "cpus": os.cpu_count(), "load_avg": os.getloadavg()[0]}
    if args.update_only:
        if not args.dir or not (base / "result.json").is_file():
            raise SystemExit("--update-only needs --dir with the v1, v2full and result.json of an earlier run")
        before = json.loads((base / "result.json").read_text())
        res.update({k: before[k] for k in ("v1_full_s", "full_s")}, full_measured_at_load_avg=before["load_avg"])
        full = {"seconds": before["full_parts"]}
        shutil.rmtree(base / "v2", ignore_errors=True)
    else:
        t = time.perf_counter()
        build_warm(base / "v1", v1, e1, root=base)
        res["v1_full_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        full = build_warm(base / "v2full", v2, e2, root=base)
        res["full_s"] = round(time.perf_counter() - t, 2)
    res["load_avg_at_update"] = os.getloadavg()[0]

    def in_turn() -> None:                      # the update with its parts one after the other
        import stratum.warm as warm_mod

        warm_mod.OVERLAP = False
        t = time.perf_counter()
        seq = build_warm(base / "v2seq", v2, e2, root=base, previous=base / "v1")
        res["update_in_turn_s"] = round(time.perf_counter() - t, 2)
        res["update_in_turn_parts"] = seq["seconds"]
        res["update_in_turn_vector_parts"] = seq.get("vector_seconds")
        shutil.rmtree(base / "v2seq", ignore_errors=True)
        warm_mod.OVERLAP = True

    if args.update_only:                        # in turn first, then overlapped (the headline)
        in_turn()
    t = time.perf_counter()
    upd = build_warm(base / "v2", v2, e2, root=base, previous=base / "v1")
    res["update_s"] = round(time.perf_counter() - t, 2)
    res["load_avg_after_update"] = os.getloadavg()[0]
    if args.parts and not args.update_only:     # after the headline: where each part's time goes
        in_turn()
    res["full_parts"], res["update_parts"] = full["seconds"], upd["seconds"]
    res["update_over_full"] = round(res["update_s"] / res["full_s"], 3)
    res["keyword_docs_redone"] = upd.get("keyword_docs_redone")
    res["vectors_changed"] = upd.get("vectors_changed")
    res["full_vector_parts"], res["update_vector_parts"] = full.get("vector_seconds"), upd.get("vector_seconds")
    a, b = KeywordIndex.load(base / "v2" / "keyword"), KeywordIndex.load(base / "v2full" / "keyword")
    res["keyword_equal"] = all(np.array_equal(getattr(a, n), getattr(b, n)) for n in KeywordIndex._ARRAYS)
    va, vb = VectorIndex.load(base / "v2" / "vector"), VectorIndex.load(base / "v2full" / "vector")
    qs = nodes_for(200, 99, vocab, centres)
    q = np.stack([x["vector"] for x in qs]).astype(np.float32)
    truth = exact_knn(np.asarray(vb.matrix, np.float32), q, 10)
    res["recall_update"] = round(recall_at_k([va.search(x, 10).rows for x in q], truth), 4)
    res["recall_full"] = round(recall_at_k([vb.search(x, 10).rows for x in q], truth), 4)
    ga, gb = Graph.load(base / "v2" / "graph"), Graph.load(base / "v2full" / "graph")
    res["graph_equal"] = all(np.array_equal(ga.a[k], gb.a[k]) for k in gb.a)
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    print(json.dumps(res, indent=1))
    if args.dir and not args.update_only:
        (base / "result.json").write_text(json.dumps(res, indent=1))
    if not args.dir:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
