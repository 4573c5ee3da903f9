"""Embedding models side by side: throughput, query latency and retrieval quality on real history.

    .venv/bin/python benchmarks/embed_models.py [--candidates a,b] [--minilm-nodes 256] [--n 200]

Prints its definitions first; the tables in docs/bench/embed.md come from this script's output.
Stores are built in benchmarks/.out/embed/<candidate>/ (git-ignored, reused by later runs).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import common as C  # noqa: E402
import retrieval_quality as RQ  # noqa: E402
from embed_throughput import QUERIES  # noqa: E402

from stratum.config import EmbedConfig, IndexConfig, ParseConfig  # noqa: E402
from stratum.embedder import MINILM, STATIC, get_embedder, model_info_for  # noqa: E402

OUT = HERE / ".out" / "embed"
CANDIDATES = {
    "minilm-int8": EmbedConfig(model=MINILM),
    "static-d384": EmbedConfig(model=STATIC, recipe="d384-s0.0001-w"),
    "static-d256": EmbedConfig(model=STATIC, recipe="d256-s0.0001-w"),
    "static-punct": EmbedConfig(model=STATIC, recipe="d384-s0.0001-p"),
    "static-nosif": EmbedConfig(model=STATIC, recipe="d384-s0-w"),
    "static-sif1e-3": EmbedConfig(model=STATIC, recipe="d384-s0.001-w"),
    "static-sif1e-5": EmbedConfig(model=STATIC, recipe="d384-s1e-05-w"),
}

DEFINITIONS = """\
Definitions (embed_models)
- Candidates: minilm-int8 = all-MiniLM-L6-v2, our int8 ONNX graph (today's default); static-* = the
  static model distilled from the same packaged weights (stratum.static_embed), recipe
  d<PCA dims>-s<SIF coefficient>-<w: punctuation dropped | p: kept>; d384 = centring only.
- Throughput: every embeddable node (EMBED_KINDS) that pipeline.parse (real tree-sitter) finds in
  the repository's *.py files at its checked-out HEAD, text = stratum.textprep.embed_text; nodes/s =
  nodes / wall seconds of Embedder.embed on all texts in chunks of 64 (MiniLM: the first
  --minilm-nodes texts, in one process with 2 onnxruntime threads); cpu ms/node = process CPU time
  (all threads) / nodes. Model load excluded (load s: get_embedder with the cache filled).
- Query latency: Embedder.embed([q]) for each of embed_throughput's 15 short queries, 40 rounds after
  a warm-up; p50 / p95 over the 600 calls.
- Retrieval: benchmarks/retrieval_quality.py's evaluate (definitions printed by it and by common.py)
  on a store of the repository at C indexed with the candidate (IndexConfig(num_cpus=2,
  embed=candidate)); hybrid = vector + keyword + name by RRF, what `search` serves; vector = the
  candidate's vectors alone. Index wall seconds and the embed stage's seconds come from the run
  report of that one index run.
"""


def repo_nodes(repo: Path) -> list[dict]:
    from pipeline.parse import parse_file
    from stratum.textprep import EMBED_KINDS

    cfg, nodes = ParseConfig(), []
    for p in sorted(repo.rglob("*.py")):
        if ".git" in p.parts or not p.is_file():
            continue
        data = p.read_bytes()
        if len(data) <= cfg.max_file_bytes:
            nodes += [x for x in parse_file(repo.name, str(p.relative_to(repo)), data, cfg).nodes
                      if x["kind"] in EMBED_KINDS]
    return nodes


def throughput(emb, texts: list[str]) -> tuple[float, float]:
    """(nodes per wall second, CPU ms per node): CPU time moves less with the machine's load."""
    t0, c0 = time.perf_counter(), time.process_time()
    for s in range(0, len(texts), 64):
        emb.embed(texts[s:s + 64])
    return len(texts) / (time.perf_counter() - t0), (time.process_time() - c0) * 1e3 / max(len(texts), 1)


def query_latency(emb, rounds: int = 40) -> tuple[float, float]:
    for q in QUERIES:
        emb.embed([q])
    ts = []
    for _ in range(rounds):
        for q in QUERIES:
            t0 = time.perf_counter()
            emb.embed([q])
            ts.append(time.perf_counter() - t0)
    return float(np.percentile(ts, 50) * 1e3), float(np.percentile(ts, 95) * 1e3)


def build_store(repo: Path, sha: str, cfg: EmbedConfig, out: Path) -> dict:
    """The candidate's store of ``repo`` at ``sha`` where retrieval_quality's store_at looks for it."""
    from pipeline.job import index_repository
    from stratum.store import Store

    base = out / f"{repo.name}-{sha[:12]}"
    store = base / "store"
    st = Store(store)
    want = model_info_for(cfg)
    if st.exists() and st.manifest().indexed_commit == sha:
        got = st.manifest().embedding or {}
        if all(got.get(k) == v for k, v in want.items()):
            return {"index_s": None, "embed_s": None}
    src = C.checkout_at(repo, sha, base / repo.name)
    t0 = time.perf_counter()
    rep = index_repository(src, store, IndexConfig(num_cpus=2, full=True, embed=cfg))
    return {"index_s": round(time.perf_counter() - t0, 1), "embed_s": rep.seconds.get("embed"),
            "embedded": rep.embedded}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--candidates", default=",".join(CANDIDATES))
    ap.add_argument("--throughput-repos", default="flask,werkzeug")
    ap.add_argument("--retrieval-repos", default="flask,requests")
    ap.add_argument("--minilm-nodes", type=int, default=256)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--out-tag", default="", help="suffix of the store folders (e.g. for a scratch $STRATUM_CACHE)")
    args = ap.parse_args()
    print(DEFINITIONS)
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\ndate: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n")
    from stratum.textprep import embed_text

    texts = {r: [embed_text(n) for n in repo_nodes(HERE / ".repos" / r)] for r in args.throughput_repos.split(",") if r}
    for r, t in texts.items():
        print(f"{r}: {len(t)} embeddable nodes, {np.mean([len(x) for x in t]):.0f} chars mean")
    results = {}
    for name in args.candidates.split(","):
        cfg = CANDIDATES[name]
        t0 = time.perf_counter()
        emb = get_embedder(cfg, threads=2)
        row: dict = {"candidate": name, "model_info": emb.model_info(), "load_s": round(time.perf_counter() - t0, 2)}
        for r, t in texts.items():
            sub = t[:args.minilm_nodes] if cfg.model == MINILM else t
            row[f"{r}_nodes"] = len(sub)
            rate, cpu = throughput(emb, sub)
            row[f"{r}_nodes_per_s"], row[f"{r}_cpu_ms_per_node"] = round(rate, 1), round(cpu, 3)
        row["query_p50_ms"], row["query_p95_ms"] = (round(x, 3) for x in query_latency(emb))
        for r in args.retrieval_repos.split(","):
            if not r:
                continue
            repo = (HERE / ".repos" / r).resolve()
            at = C.DEFAULT_AT.get(r, "HEAD~200")
            sha = C.resolve_commit(repo, at)
            out = OUT / (name + args.out_tag)
            built = build_store(repo, sha, cfg, out)
            s = RQ.evaluate(repo, at, args.n, out=out, results=out / "results", log=lambda *_: None)
            row[r] = {"index": built, "nodes": s["store_nodes"], "embedding": s["store_embedding"],
                      **{m: s["modes"][m] for m in ("hybrid", "vector", "keyword")},
                      "prose_hybrid_mrr": s["prose_queries"]["hybrid"]["mrr"],
                      "identifier_hybrid_mrr": s["identifier_queries"]["hybrid"]["mrr"]}
        results[name] = row
        print(json.dumps(row))
        sys.stdout.flush()
    print("\n" + table(results, args))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"summary{args.out_tag}.json").write_text(json.dumps({"command": " ".join(sys.argv), "machine": C.machine(),
                                                 "results": results}, indent=1) + "\n")
    return 0


def table(results: dict, args) -> str:
    tr = [r for r in args.throughput_repos.split(",") if r]
    rr = [r for r in args.retrieval_repos.split(",") if r]
    head = (["candidate"] + [f"{r} nodes/s (cpu ms/node)" for r in tr] + ["query p50 / p95 ms"]
            + [f"{r} {m}" for r in rr for m in ("hybrid MRR", "hybrid hit@5", "vector MRR", "index s (embed s)")])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, row in results.items():
        cells = [name] + [f"{row[f'{r}_nodes_per_s']:,.1f} ({row.get(f'{r}_cpu_ms_per_node', float('nan')):.2f})"
                          for r in tr]
        cells.append(f"{row['query_p50_ms']:.3f} / {row['query_p95_ms']:.3f}")
        for r in rr:
            x = row[r]
            ix = x["index"]
            cells += [f"{x['hybrid']['mrr']:.3f}", f"{x['hybrid']['hit@5']:.3f}", f"{x['vector']['mrr']:.3f}",
                      f"{ix['index_s']} ({ix['embed_s']})" if ix["index_s"] is not None else "reused"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
