"""Precision of the bug-fix rule on hand-labelled commits of flask, requests and werkzeug, and what
skipping contentless commits does to a search over the mined nodes.

Labels: benchmarks/results/bugfix_labels.csv, one row per commit, column ``sample``:

- **first**: 102 commits (34 per repository, random.Random(12)) among the non-merge commits that change
  1..5 code files and that the *old* rule flags (``OLD_RULE``: stratum.config before the subject
  rule). ``PREV_RULE`` and the current rule were both written after reading this sample, so their
  precision here is optimistic.
- **fresh** (held out): 30 commits (10 per repository, random.Random(13), ``draw_fresh``) among the
  non-merge commits with 1..5 code files that ``PREV_RULE`` flags, not in the first sample. Drawn
  before the current rule's new exclusions were written, and labelled before any rule was scored on
  them.
- **changed**: not a sample: every commit of the three histories (non-merge, 1..5 code files) that
  ``PREV_RULE`` flags and the current rule does not, labelled one by one (those already in the
  samples above keep their label there). The change in precision is decided by these alone.

Each was labelled by reading its subject, body and files (``git show --stat``, the diff when unclear):
1 = it corrects faulty behaviour of the code or its tests (a crash, a wrong result, a broken import,
a broken test or build), 0 = anything else (docs, comments, typos, style/lint/mypy-only edits,
features, refactors, releases, reverts, bare issue or pull-request numbers).

precision = labelled fixes among the commits a rule flags; recall = flagged labelled fixes among all
labelled fixes of the sample (relative to the rule the sample was drawn from: a fix that rule misses
is not sampled).

``--contentless``: the mined nodes (pipeline.fixes) of each repository's older history, searched with
the subjects of its newest 200 qualifying commits (non-merge, 1..5 code files) as queries: BM25
(stratum.keywordindex over each node's ``full`` text) and the static embedding (over
textprep.embed_text), fused by reciprocal rank (k = 60), the first 10 nodes kept; a hit is useful
when it is about a file the query's commit changed. Reported with and without the contentless nodes
(pipeline.fixes.has_content): how often they are hits, how useful, and the file MRR of the files the
hits are about (first-occurrence order).

Usage: .venv/bin/python benchmarks/bugfix_rule.py [--contentless] [--draw]
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pipeline import gitio, languages  # noqa: E402
from pipeline.history import MineResult, commit_order, mine  # noqa: E402
from stratum.config import DEFAULT_BUGFIX_RULE  # noqa: E402

REPOS = ("flask", "requests", "werkzeug")
LABELS = HERE / "results" / "bugfix_labels.csv"
OLD_RULE = r"(?i)\b(fix(e[sd])?|bug|issue|defect|patch|regression|crash|error)\b|#\d+"
E2_RULE = r"(?i)\b(fix(e[sd]|ing)?|bugs?|bugfix(es)?|regressions?|crash(es)?)\b"   # benchmarks' subject rule
# the subject rule before the mypy/typing/revert/comment/pre-commit exclusions (the fresh sample's frame)
PREV_RULE = (r"(?i)\A(?![^\n]*\b(typos?|docs?|docstrings?|documentation|grammar|spelling|lint(s|ing|er)?"
             r"|flake8|pep8|style|whitespace|changelog|readme|release)\b)"
             r"[^\n]*?\b(fix(e[sd]|ing)?|bugs?|bugfix(es)?|regressions?|crash(es|ed)?|race condition)\b")
FRESH_SEED, FRESH_PER_REPO = 13, 10
QUERIES, TOP, RRF_K = 200, 10, 60


def score(rule: str, rows: list[dict]) -> dict:
    rx = re.compile(rule)
    flagged = [r for r in rows if rx.search(r["message"])]
    tp = sum(r["bugfix"] for r in flagged)
    pos = sum(r["bugfix"] for r in rows)
    return {"flagged": len(flagged), "true": tp, "precision": round(tp / len(flagged), 3) if flagged else 0.0,
            "recall": round(tp / pos, 3) if pos else 0.0}


def table(rows: list[dict], rules: list[tuple[str, str]]) -> None:
    print(f"{len(rows)} labelled commits, {sum(r['bugfix'] for r in rows)} bug fixes\n")
    print("| rule | flagged | true fixes | precision | recall |\n|---|---|---|---|---|")
    for name, rule in rules:
        s = score(rule, rows)
        print(f"| {name} | {s['flagged']} | {s['true']} | {s['precision']:.3f} | {s['recall']:.3f} |")
    print()


def code_files(res: MineResult) -> dict[str, set[str]]:
    """sha -> the code files it changed (paths as changed then)."""
    out: dict[str, set[str]] = {}
    for sha, path in zip(res.file_changes["sha"].to_pylist(), res.file_changes["path"].to_pylist()):
        if languages.language_for_path(path) is not None:
            out.setdefault(sha, set()).add(path)
    return out


def frame(res: MineResult) -> list[tuple[str, str]]:
    """(sha, message) of the non-merge commits that change 1..5 code files, sorted by sha."""
    code = code_files(res)
    cols = (res.commits[c].to_pylist() for c in ("sha", "message", "is_merge"))
    return sorted((s, m) for s, m, merge in zip(*cols) if not merge and 1 <= len(code.get(s, ())) <= 5)


def draw_fresh(repo: str, commits: list[tuple[str, str]], first: set[tuple[str, str]]) -> list[str]:
    rx = re.compile(PREV_RULE)
    pop = [s for s, m in commits if rx.search(m) and (repo, s[:12]) not in first]
    return [s[:12] for s in random.Random(FRESH_SEED).sample(pop, FRESH_PER_REPO)]


def rules_section(mined: dict[str, MineResult], draw: bool) -> None:
    rows: list[dict] = []
    with open(LABELS) as fh:
        for r in csv.DictReader(fh):
            msg = gitio.decode(gitio.run_git(HERE / ".repos" / r["repo"], "log", "-1", "--format=%B", r["sha"]))
            rows.append({**r, "bugfix": int(r["bugfix"]), "message": msg})
    by = {k: [r for r in rows if r["sample"] == k] for k in ("first", "fresh", "changed")}
    now = ("now (DEFAULT_BUGFIX_RULE)", DEFAULT_BUGFIX_RULE)
    print("## First sample (the rules were written after reading it)\n")
    table(by["first"], [("old (config before the subject rule)", OLD_RULE), ("E2 subject rule", E2_RULE),
                        ("subject rule before (PREV_RULE)", PREV_RULE), now])
    print("## Fresh sample (held out; drawn from PREV_RULE's flags)\n")
    table(by["fresh"], [("subject rule before (PREV_RULE)", PREV_RULE), now])
    first: set[tuple[str, str]] = {(r["repo"], r["sha"]) for r in by["first"]}
    label: dict[tuple[str, str], int] = {(r["repo"], r["sha"]): r["bugfix"] for r in rows}
    prev, cur = re.compile(PREV_RULE), re.compile(DEFAULT_BUGFIX_RULE)
    diff: list[tuple[str, str, bool]] = []
    unlabelled: list[tuple[str, str, bool]] = []
    for repo, res in mined.items():
        commits = frame(res)
        if draw:
            fresh = draw_fresh(repo, commits, first)
            ok = fresh == [r["sha"] for r in by["fresh"] if r["repo"] == repo]
            print(f"fresh draw {repo}: {' '.join(fresh)} ({'as labelled' if ok else 'DIFFERS from the labels'})")
        for sha, msg in commits:
            if bool(prev.search(msg)) != bool(cur.search(msg)):
                (diff if (repo, sha[:12]) in label else unlabelled).append((repo, sha[:12], bool(cur.search(msg))))
    print("## Every commit the two rules disagree on (all three histories)\n")
    dropped = [label[(repo, sha)] for repo, sha, now_flags in diff if not now_flags]
    added = [label[(repo, sha)] for repo, sha, now_flags in diff if now_flags]
    print(f"PREV_RULE flags {sum(1 for res in mined.values() for _, m in frame(res) if prev.search(m))} commits; "
          f"the current rule un-flags {len(dropped)} of them ({sum(dropped)} labelled fixes, "
          f"{len(dropped) - sum(dropped)} not) and newly flags {len(added)} ({sum(added)} fixes)")
    if unlabelled:
        print(f"{len(unlabelled)} commits the rules disagree on are not labelled yet:")
        for repo, sha, now_flags in unlabelled:
            print(f"  {repo} {sha} ({'flagged now' if now_flags else 'un-flagged now'})")
    print()


def _nodes(res: MineResult, older: set[str], repo: str) -> list[dict]:
    import pyarrow as pa

    from pipeline.fixes import mine_fixes

    keep = [s in older for s in res.commits["sha"].to_pylist()]
    keep_fc = [s in older for s in res.file_changes["sha"].to_pylist()]
    commits, changes = res.commits.filter(pa.array(keep)), res.file_changes.filter(pa.array(keep_fc))
    return mine_fixes(commits, changes, {p: p for p in res.head_paths}, repo, changes=True, contentless=True).nodes


def contentless_section(mined: dict[str, MineResult]) -> None:
    import json

    import numpy as np

    from pipeline.fixes import has_content
    from stratum.config import EmbedConfig
    from stratum.embedder import get_embedder
    from stratum.keywordindex import KeywordIndex
    from stratum.textprep import embed_text

    emb = get_embedder(EmbedConfig())
    print(f"## Contentless mined nodes in search ({QUERIES} newest qualifying commits per repository as queries)\n")
    print("| repository | queries | nodes | contentless | queries with one in the top 10 | useful hits: contentless | "
          "useful hits: other | file MRR with | file MRR without |\n|---|---|---|---|---|---|---|---|---|")
    for repo, res in mined.items():
        order = commit_order(res.commits)
        head = set(res.head_paths)
        cur: dict[str, set[str]] = {}
        for sha, path, c in zip(*(res.file_changes[k].to_pylist() for k in ("sha", "path", "current_path"))):
            if c in head and languages.language_for_path(path) is not None:
                cur.setdefault(sha, set()).add(c)
        merge = dict(zip(res.commits["sha"].to_pylist(), res.commits["is_merge"].to_pylist()))
        msg = dict(zip(res.commits["sha"].to_pylist(), res.commits["message"].to_pylist()))
        qual = [s for s in order if not merge[s] and 1 <= len(cur.get(s, ())) <= 5]
        queries = qual[:QUERIES]
        older = set(order[order.index(queries[-1]) + 1:])
        nodes = _nodes(res, older, repo)
        empty = np.array([not has_content(n["doc"]) for n in nodes])
        about = [[t["path"] for t in json.loads(n["meta"])["about"]] for n in nodes]
        kw = KeywordIndex.build([n["full"] for n in nodes])
        vecs = emb.embed([embed_text(n) for n in nodes])
        texts = [msg[s].split("\n")[0] for s in queries]
        qvecs = emb.embed(texts)
        groups = {g: {"n": 0, "with_empty": 0, "hits_empty": 0, "useful_empty": 0, "hits_other": 0,
                      "useful_other": 0, "mrr_with": 0.0, "mrr_without": 0.0} for g in ("content", "contentless")}
        for q, qv, sha in zip(texts, qvecs, queries):
            st = groups["content" if has_content(q) else "contentless"]
            st["n"] += 1
            answers = cur[sha]
            for keep_empty in (True, False):
                allowed = np.ones(len(nodes), bool) if keep_empty else ~empty
                bm = kw.search(q, 50, predicate=allowed.__getitem__).rows
                sims = vecs @ qv
                sims[~allowed] = -np.inf
                vec = np.argsort(-sims)[:50]
                fused: dict[int, float] = {}
                for lst in (bm, vec):
                    for rank, row in enumerate(lst):
                        fused[int(row)] = fused.get(int(row), 0.0) + 1.0 / (RRF_K + rank + 1)
                top = sorted(fused, key=lambda r: -fused[r])[:TOP]
                files = list(dict.fromkeys(p for r in top for p in about[r]))
                first = next((i for i, p in enumerate(files) if p in answers), None)
                st["mrr_with" if keep_empty else "mrr_without"] += 0.0 if first is None else 1.0 / (first + 1)
                if keep_empty:
                    st["with_empty"] += any(empty[r] for r in top)
                    for r in top:
                        k = "empty" if empty[r] else "other"
                        st[f"hits_{k}"] += 1
                        st[f"useful_{k}"] += bool(answers & set(about[r]))
        for g, st in groups.items():
            n = max(st["n"], 1)

            def rate(k: str, st: dict = st) -> str:
                return f"{st['useful_' + k] / max(st['hits_' + k], 1):.3f} of {st['hits_' + k]}"

            print(f"| {repo} | {st['n']} {g} | {len(nodes)} | {int(empty.sum())} | {st['with_empty']} | "
                  f"{rate('empty')} | {rate('other')} | {st['mrr_with'] / n:.3f} | {st['mrr_without'] / n:.3f} |")
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--contentless", action="store_true", help="also measure contentless nodes in search")
    ap.add_argument("--draw", action="store_true", help="redraw the fresh sample and compare it with the labels")
    args = ap.parse_args()
    print(__doc__.split("Usage:")[0])
    mined = {repo: mine(HERE / ".repos" / repo) for repo in REPOS}
    rules_section(mined, args.draw)
    if args.contentless:
        contentless_section(mined)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
