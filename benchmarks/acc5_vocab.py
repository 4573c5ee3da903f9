"""Why Acc@5 misses (issue 12): does the query share a word with what points to its answer files?

The Acc@5 target (0.90) is missed at ~0.80, and the docs gave the cause as queries that name
nothing a file, a note or a past commit shares. This measures that claim on the evaluation tasks
of benchmarks/retrieval_memory.py (its per-task CSVs: the query, the answer files as at C, and each
condition's rank of the first answer file). Nothing here is fitted or tuned: it reads the tasks and
git, and cross-tabulates; no ranking is changed by it.

Definitions (printed):
- **words**: ``stratum.codetokens.tokenize`` (the product's BM25 tokens: lowercased, identifiers split,
  English stop words dropped), 3+ characters.
- **a file's text**: its path and its source at C (what the code lists index).
- **a file's history**: the messages of every commit that touched it strictly before the task's
  commit (``git log <task>^ -- <path at C>``): the mined fix/change nodes (<= C) and the agent or
  pooled notes (earlier window commits' subjects) are drawn from these; a rename after C is not
  followed (undercounts).
- **discriminating word**: for text, a word held by at most DF_MAX (20%) of the repository's code
  files' texts at C; for history, by at most DF_MAX of their histories at C (``git log C -- path``):
  a word in most files' texts or histories ("fix", "remove" in messages) points nowhere.
- per task, its **class**: *text* (a discriminating query word is in an answer file's text),
  else *history* (one is in an answer file's history), else *none* (no discriminating word of the
  query is in any answer file's text or history).
- a *text* task's **specificity**: how many code files at C hold its most specific shared word
  (1-2 files: the word points at the answer; 11+: at a sixth of a repository or more).
- **hit@k**: the CSV's rank of the first answer file in a condition's list <= k.

Run: .venv/bin/python benchmarks/acc5_vocab.py [flask requests werkzeug] [--condition PREFIX ...]
Reads benchmarks/results/retrieval_memory_<repo>.csv and benchmarks/.repos/<repo>; writes
benchmarks/results/acc5_vocab.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402
from retrieval_memory import EVAL_AT  # noqa: E402
from stratum.codetokens import tokenize  # noqa: E402

DF_MAX = 0.20
MIN_CHARS = 3
CONDITIONS = ("hybrid (today), code only",
              "rank: day one (default",
              "rank: all, pooled notes + day one mined + whol")
CLASSES = ("text", "history", "none")
SPECIFICITY = ((1, 2), (3, 5), (6, 10), (11, 10**6))   # files holding a text task's most specific shared word


def words(text: str) -> set[str]:
    return {t for t in tokenize(text) if len(t) >= MIN_CHARS}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout.decode("utf-8", "replace")


def file_texts(repo: Path, c: str, paths: set[str]) -> dict[str, set[str]]:
    """Each code file's words at C (path and source)."""
    out = {}
    for p in sorted(paths):
        try:
            src = git(repo, "show", f"{c}:{p}")
        except subprocess.CalledProcessError:
            src = ""
        out[p] = words(p) | words(src)
    return out


def history_words(repo: Path, sha: str, path: str) -> set[str]:
    """Words of the messages of the commits that touched ``path`` strictly before ``sha``."""
    return words(git(repo, "log", "--format=%B", f"{sha}^", "--", path))


def classify(repo: Path, row: dict, texts: dict[str, set[str]], rare: set[str],
             df: Counter, hist_rare: set[str], hist_df: Counter) -> tuple[str, list[str]]:
    """The task's class, and the shared words (most specific first)."""
    q = words(row["query"])
    targets = row["targets"].split()
    shared = set().union(*(q & rare & texts.get(t, set()) for t in targets)) if targets else set()
    if shared:
        return "text", sorted(shared, key=lambda w: (df[w], w))
    hist = set().union(*(q & hist_rare & history_words(repo, row["sha"], t) for t in targets)) if targets else set()
    if hist:
        return "history", sorted(hist, key=lambda w: (hist_df[w], w))
    return "none", []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("repos", nargs="*", default=["flask", "requests", "werkzeug"])
    ap.add_argument("--out", default=str(C.RESULTS / "acc5_vocab.json"))
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):", 1)[1].split("Run:", 1)[0].rstrip())
    rows_all: list[dict] = []
    for name in args.repos:
        repo = (HERE / ".repos" / name).resolve()
        c = C.resolve_commit(repo, EVAL_AT[name])
        with open(C.RESULTS / f"retrieval_memory_{name}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        code = {p for p in C.paths_at(repo, c) if _is_code(p)}
        texts = file_texts(repo, c, code)
        df = Counter(w for ws in texts.values() for w in ws)
        rare = {w for w, k in df.items() if k <= DF_MAX * len(texts)}
        hist_df = Counter(w for p in code for w in words(git(repo, "log", "--format=%B", c, "--", p)))
        hist_rare = {w for w, k in hist_df.items() if k <= DF_MAX * len(texts)}
        cols = {cond: next(k for k in rows[0] if k.startswith(cond)) for cond in CONDITIONS}
        for r in rows:
            q = words(r["query"])
            cls, shared = classify(repo, r, texts, rare | (q - set(df)), df, hist_rare | (q - set(hist_df)), hist_df)
            rec = {"repo": name, "sha": r["sha"], "query": r["query"], "targets": r["targets"], "class": cls,
                   "shared": shared, "files_holding": df[shared[0]] if cls == "text" else None}
            for cond, col in cols.items():
                rec[cond] = int(r[col]) if r[col] else None
            rows_all.append(rec)
        print(f"{name}: {len(rows)} tasks, {len(texts)} code files at {c[:10]}, {len(rare)} discriminating words")
    summary: dict = {"definitions": {"DF_MAX": DF_MAX, "MIN_CHARS": MIN_CHARS}, "conditions": {}}
    n = len(rows_all)
    by_class = Counter(r["class"] for r in rows_all)
    print(f"\npooled: {n} tasks; class text {by_class['text']} ({by_class['text'] / n:.1%}), history "
          f"{by_class['history']} ({by_class['history'] / n:.1%}), none {by_class['none']} ({by_class['none'] / n:.1%})")
    for cond in CONDITIONS:
        print(f"\n{cond}")
        print(f"{'class':8s} {'tasks':>5s} {'hit@5':>6s} {'hit@10':>6s} {'miss@5':>6s} {'share of misses':>16s}")
        miss_total = sum(1 for r in rows_all if not _hit(r[cond], 5))
        per = {}
        for cls in CLASSES:
            xs = [r for r in rows_all if r["class"] == cls]
            h5 = sum(_hit(r[cond], 5) for r in xs)
            h10 = sum(_hit(r[cond], 10) for r in xs)
            miss = len(xs) - h5
            per[cls] = {"tasks": len(xs), "hit5": h5, "hit10": h10, "miss5": miss}
            print(f"{cls:8s} {len(xs):5d} {h5 / max(len(xs), 1):6.3f} {h10 / max(len(xs), 1):6.3f} {miss:6d} "
                  f"{miss / max(miss_total, 1):16.1%}")
        print("text tasks by how many code files hold their most specific shared word:")
        for lo, hi in SPECIFICITY:
            xs = [r for r in rows_all if r["class"] == "text" and lo <= r["files_holding"] <= hi]
            h5 = sum(_hit(r[cond], 5) for r in xs)
            per[f"text, {lo}-{hi} files"] = {"tasks": len(xs), "hit5": h5, "miss5": len(xs) - h5}
            print(f"  {lo}-{hi} files: {len(xs):4d} tasks, hit@5 {h5 / max(len(xs), 1):.3f}, "
                  f"{len(xs) - h5} misses ({(len(xs) - h5) / max(miss_total, 1):.1%} of all)")
        acc5 = sum(_hit(r[cond], 5) for r in rows_all) / n
        ceiling = (n - per["none"]["miss5"]) / n
        print(f"Acc@5 {acc5:.3f}; with every 'none' task missed as now and every other task found: {ceiling:.3f}")
        summary["conditions"][cond] = {"acc5": acc5, "per_class": per, "ceiling_if_text_or_history_all_found": ceiling}
    summary["tasks"] = rows_all
    Path(args.out).write_text(json.dumps(summary, indent=1))
    print(f"\nwrote {args.out}")


def _hit(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def _is_code(path: str) -> bool:
    from pipeline import languages
    return languages.language_for_path(path) is not None


if __name__ == "__main__":
    main()
