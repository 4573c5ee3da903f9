"""Retrieval quality on a real repository's history: keyword-only, vector-only and hybrid search.

For each qualifying commit after the index commit C (definitions in benchmarks/common.py, printed
below), the query is its subject with file names removed and the targets are the code files it
changed. The store holds the repository at C (tree and history), so no commit evaluated is in it.
The query goes to the shard's warm searcher (stratum.search.HybridSearcher, the one ``search``
uses) with one set of sources per mode; its hits (up to the fused list's length: each source list
holds 50) become a ranking of files (first occurrence). Modes:

- keyword: BM25 over the code-aware keyword index only (sources=("keyword",))
- lexical: keyword plus the exact-name list (sources=("keyword", "name")): everything lexical
- vector:  MiniLM cosine over the HNSW index only (sources=("vector",))
- hybrid:  vector + keyword + name fused by RRF (k=60), what the ``search`` tool serves

Metrics over the tasks: recall@k = |targets in the first k files| / |targets| (mean), hit@k = at
least one target in the first k files, MRR = mean of 1/rank of the first target (0 when absent).
Queries are also split by whether they contain an identifier-like token (snake_case, CamelCase,
dotted.name, name(), `quoted`), to explain where each mode wins.

Usage: .venv/bin/python benchmarks/retrieval_quality.py [REPO ...] [--at NAME=DATE|SHA] [--n 200]
REPO: a name under benchmarks/.repos (default: flask requests) or a path. Per-commit ranks go to
benchmarks/results/retrieval_<name>.csv, the summary to benchmarks/results/retrieval_summary.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402

MODES = {"keyword": ("keyword",), "lexical": ("keyword", "name"), "vector": ("vector",),
         "hybrid": ("vector", "keyword", "name")}
KS = (1, 5, 10)
SEARCH_LIMIT = 150          # the fused list holds at most 3 x 50 hits
IDENT = re.compile(r"`[^`]+`|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b\w+\.\w+\b|\b\w+\(\)")


def hit_files(shard, items) -> list[list[str]]:
    """Each search hit as the files it stands for (code: its file; a note: what it is about)."""
    from stratum import schema as S

    kinds, paths = shard.col("kind"), shard.col("path")
    out = []
    for it in items:
        if it.row < 0:
            out.append([])
            continue
        k = kinds[it.row]
        if k in ("dir", "repo"):
            out.append([])
        elif k in S.NOTE_KINDS:
            meta = json.loads(shard.row(it.row)["meta"] or "{}")
            out.append([t["path"] for t in meta.get("about", [])])
        else:
            out.append([paths[it.row]])
    return out


def rank_task(shard, query: str, sources: tuple[str, ...]) -> list[str]:
    page = shard.warm.searcher.search(query, limit=SEARCH_LIMIT, sources=sources)
    return C.rank_files(hit_files(shard, page.items))


def summarise(rows: list[dict], mode: str, prefix: str = "") -> dict:
    ranks = [r[f"{prefix}rank_{mode}"] for r in rows]
    out = {"n": len(rows), "mrr": round(C.mean(C.mrr(x) for x in ranks), 4)}
    for k in KS:
        out[f"recall@{k}"] = round(C.mean(r[f"{prefix}recall{k}_{mode}"] for r in rows), 4)
        out[f"hit@{k}"] = round(C.mean(1.0 if x and x <= k else 0.0 for x in ranks), 4)
    out["found"] = round(C.mean(1.0 if x else 0.0 for x in ranks), 4)
    return out


def evaluate(repo: Path, at: str, n: int, *, out: Path = C.OUT, results: Path = C.RESULTS, log=print) -> dict:
    from stratum.tools import Tools

    t0 = time.perf_counter()
    c = C.resolve_commit(repo, at)
    src, store = C.store_at(repo, c, log=log, out=out)
    history = C.load_history(repo)
    window = C.window_shas(repo, c)
    c_paths = C.paths_at(repo, c)
    tasks, dropped = C.make_tasks(history, c, window, c_paths, limit=n)
    stems_by_sha = {t.sha: t.query for t in C.make_tasks(history, c, window, c_paths, strip_stems=True)[0]}
    tools = Tools.open([str(store)])
    shard = tools.shards.shards[0]
    rows = []
    t_search = time.perf_counter()
    for t in tasks:
        row = {**t.to_row(), "identifier": int(bool(IDENT.search(t.query))),
               "stems_query": stems_by_sha.get(t.sha, "")}
        for mode, sources in MODES.items():
            ranking = rank_task(shard, t.query, sources)
            row[f"rank_{mode}"] = C.first_rank(ranking, t.targets)
            for k in KS:
                row[f"recall{k}_{mode}"] = C.recall_at(ranking, t.targets, k)
            if row["stems_query"]:
                sr = rank_task(shard, row["stems_query"], sources)
                row[f"stems_rank_{mode}"] = C.first_rank(sr, t.targets)
                for k in KS:
                    row[f"stems_recall{k}_{mode}"] = C.recall_at(sr, t.targets, k)
        rows.append(row)
    search_s = time.perf_counter() - t_search
    tools.close()
    stems_rows = [r for r in rows if r["stems_query"]]
    ident = [r for r in rows if r["identifier"]]
    prose = [r for r in rows if not r["identifier"]]
    summary = {
        "repo": repo.name, "index_commit": c, "index_commit_date": history_date(history, c),
        "store": str(store), "store_embedding": _embedding(store), "window_commits": len(window), "tasks": len(rows),
        "first_task": rows[0]["date"] if rows else None, "last_task": rows[-1]["date"] if rows else None,
        "dropped": dropped, "mean_targets": round(C.mean(len(r["targets"].split()) for r in rows), 2),
        "store_nodes": len(shard), "modes": {m: summarise(rows, m) for m in MODES},
        "stems": {m: summarise(stems_rows, m, "stems_") for m in MODES},
        "identifier_queries": {m: summarise(ident, m) for m in MODES},
        "prose_queries": {m: summarise(prose, m) for m in MODES},
        "search_seconds_per_query_all_modes": round(search_s / max(len(rows), 1), 4),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    results.mkdir(parents=True, exist_ok=True)
    with open(results / f"retrieval_{repo.name}.csv", "w", newline="") as fh:
        cols = ["sha", "date", "bugfix", "identifier", "subject", "query", "stems_query", "targets",
                "dropped_targets"] + [f"rank_{m}" for m in MODES] + [f"stems_rank_{m}" for m in MODES]
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    return summary


def history_date(history, sha: str) -> str:
    for c in history:
        if c.sha == sha:
            return c.time.date().isoformat()
    return ""


def _embedding(store: Path) -> dict | None:
    from stratum.store import Store

    return Store(store).manifest().embedding


def table(summaries: list[dict], key: str = "modes") -> str:
    lines = ["| repo | n | mode | recall@1 | recall@5 | recall@10 | hit@1 | hit@5 | hit@10 | MRR |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        for m, v in s[key].items():
            lines.append(f"| {s['repo']} | {v['n']} | {m} | {v['recall@1']:.3f} | {v['recall@5']:.3f} | "
                         f"{v['recall@10']:.3f} | {v['hit@1']:.3f} | {v['hit@5']:.3f} | {v['hit@10']:.3f} | "
                         f"{v['mrr']:.3f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description="retrieval quality: keyword vs vector vs hybrid on real history")
    ap.add_argument("repos", nargs="*", default=["flask", "requests"])
    ap.add_argument("--at", action="append", default=[], help="NAME=YYYY-MM-DD or NAME=SHA (index commit C)")
    ap.add_argument("--n", type=int, default=200, help="qualifying commits after C to evaluate")
    args = ap.parse_args()
    at = dict(C.DEFAULT_AT)
    at.update(dict(a.split("=", 1) for a in args.at))
    print(C.__doc__)
    print(__doc__.split("Usage:")[0])
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\n")
    out = []
    for r in args.repos:
        repo = Path(r) if "/" in r else HERE / ".repos" / r
        repo = repo.resolve()
        s = evaluate(repo, at.get(repo.name, "HEAD~200"), args.n)
        out.append(s)
        print(json.dumps({k: v for k, v in s.items() if k not in ("modes", "stems", "identifier_queries",
                                                                   "prose_queries")}))
    print("\nqueries with file names removed (names mode):\n" + table(out))
    print("\nqueries also without the target files' stems (stems mode):\n" + table(out, "stems"))
    print("\nqueries with an identifier-like token:\n" + table(out, "identifier_queries"))
    print("\nqueries without one (prose):\n" + table(out, "prose_queries"))
    (C.RESULTS / "retrieval_summary.json").write_text(json.dumps(
        {"command": " ".join(sys.argv), "machine": C.machine(), "results": out}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
