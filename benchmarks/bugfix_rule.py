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
  two successive rules disagree on, labelled one by one (those already in the samples above keep
  their label there): ``PREV_RULE`` -> ``RELEASE_WORD_RULE`` (the mypy/typing/revert/comment
  exclusions; 58 commits) and ``RELEASE_WORD_RULE`` -> ``RELEASE_CHORE_RULE`` (10 commits). A
  change in precision is decided by these alone: a rule that only adds commits keeps the overall
  precision iff the commits it adds are at least as precise as the rule it extends is over every
  labelled commit it flags (the "adoption test" line).

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
# the default since session 10: PREV_RULE with the revert/merge/mypy/typing/comment exclusions; the word
# "release", "changelog" or "readme" anywhere in the subject excludes it ("Fix race condition in
# connection release" is not a fix)
RELEASE_WORD_RULE = (r"(?i)\A(?!\W*revert\b(?!\W*revert\b))(?!\W*merge (pull request|(remote-tracking )?branch)\b)"
                     r"(?![^\n]*\b(typos?|docs?|docstrings?|document\w*|gramma\w*|spelling|comments?"
                     r"|lint(s|ing|er)?|flake8|pep8|pyflakes|mypy|pre-commit|style(check)?|whitespace|spacing"
                     r"|changelog|readme|release)\b)"
                     r"(?!\W*fix\w*\s+(the\s+)?(typing|type\s+(hints?|annotations?)|annotations?)\W*(\n|\Z))"
                     r"[^\n]*?\b(fix(e[sd]|ing)?|hotfix(es)?|bugs?|bugfix(es)?|regressions?|crash(es|ed)?|race condition)\b")
# measured in session 19, not adopted (docs/bench/retrieval.md): "release" excludes only a release chore
# (a subject that starts with release + a version, notes or candidate; one that starts with
# prepare/bump/start/begin/tag and names a release; "bugfix release", "release for/with ... fixes",
# "release notes"), "readme" only an edit of the README (a subject that starts with it, "in/to the
# README", "fix the README", "README fix/typo/links"); "changelog" still anywhere (no fix it drops)
RELEASE_CHORE_RULE = (r"(?i)\A(?!\W*revert\b(?!\W*revert\b))(?!\W*merge (pull request|(remote-tracking )?branch)\b)"
                      r"(?![^\n]*\b(typos?|docs?|docstrings?|document\w*|gramma\w*|spelling|comments?"
                      r"|lint(s|ing|er)?|flake8|pep8|pyflakes|mypy|pre-commit|style(check)?|whitespace|spacing"
                      r"|changelog)\b)"
                      r"(?!\W*releas(e|ed|ing)\W+(v?\d|versions?\b|notes?\b|candidates?\b|rc\d*\b))"
                      r"(?!\W*(prep(ar\w*)?|bump(s|ed|ing)?|start(s|ed|ing)?|begin(s|ning)?|tag(s|ged|ging)?)\b"
                      r"[^\n]*\breleas)"
                      r"(?![^\n]*\b(bug\s*-?fix(es)?\s+releases?|releas(e|es|ing)\s+(for|with)\s+(\w+\s+)?(bug\s*-?)?fix(es)?"
                      r"|releas(e|ing)\s+notes?)\b)"
                      r"(?!\W*readme\b)(?![^\n]*\b((in|to|into)\s+(the\s+)?readme|fix(e[sd]|ing)?\s+(the\s+)?readme"
                      r"|readme\s+(fix\w*|typos?|links?))\b)"
                      r"(?!\W*fix\w*\s+(the\s+)?(typing|type\s+(hints?|annotations?)|annotations?)\W*(\n|\Z))"
                      r"[^\n]*?\b(fix(e[sd]|ing)?|hotfix(es)?|bugs?|bugfix(es)?|regressions?|crash(es|ed)?"
                      r"|race condition)\b")
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


def named(name: str, rule: str) -> tuple[str, str]:
    return (f"{name} (DEFAULT_BUGFIX_RULE)" if rule == DEFAULT_BUGFIX_RULE else name, rule)


def disagreement(frames: dict[str, list[tuple[str, str]]], label: dict[tuple[str, str], int],
                 before: tuple[str, str], after: tuple[str, str]) -> tuple[int, int]:
    """Print every commit of the histories ``before`` and ``after`` disagree on; return the labelled
    fixes and the labelled commits among those ``after`` adds (its precision there)."""
    rx_a, rx_b = re.compile(before[1]), re.compile(after[1])
    dropped: list[int] = []
    added: list[int] = []
    unlabelled: list[str] = []
    per_repo: list[str] = []
    for repo, commits in frames.items():
        plus = minus = 0
        for sha, msg in commits:
            now = bool(rx_b.search(msg))
            if bool(rx_a.search(msg)) == now:
                continue
            plus, minus = plus + now, minus + (not now)
            key = (repo, sha[:12])
            if key in label:
                (added if now else dropped).append(label[key])
            else:
                unlabelled.append(f"  {repo} {sha[:12]} ({'flagged' if now else 'un-flagged'} by {after[0]})")
        per_repo.append(f"{repo} +{plus} -{minus}")
    flagged = sum(1 for commits in frames.values() for _, m in commits if rx_a.search(m))
    print(f"### {before[0]} -> {after[0]}\n")
    print(f"{before[0]} flags {flagged} commits; {after[0]} un-flags {len(dropped)} of them "
          f"({sum(dropped)} labelled fixes, {len(dropped) - sum(dropped)} not) and newly flags {len(added)} "
          f"({sum(added)} fixes{f': precision {sum(added) / len(added):.3f}' if added else ''}); "
          f"per repository {', '.join(per_repo)}")
    if unlabelled:
        print(f"{len(unlabelled)} commits the rules disagree on are not labelled yet:")
        print("\n".join(unlabelled))
    print()
    return sum(added), len(added)


def rules_section(mined: dict[str, MineResult], draw: bool) -> None:
    rows: list[dict] = []
    with open(LABELS) as fh:
        for r in csv.DictReader(fh):
            msg = gitio.decode(gitio.run_git(HERE / ".repos" / r["repo"], "log", "-1", "--format=%B", r["sha"]))
            rows.append({**r, "bugfix": int(r["bugfix"]), "message": msg})
    by = {k: [r for r in rows if r["sample"] == k] for k in ("first", "fresh", "changed")}
    prev, word, chore = (named("PREV_RULE", PREV_RULE), named("RELEASE_WORD_RULE", RELEASE_WORD_RULE),
                         named("RELEASE_CHORE_RULE", RELEASE_CHORE_RULE))
    print("## First sample (the rules were written after reading it)\n")
    table(by["first"], [("old (config before the subject rule)", OLD_RULE), ("E2 subject rule", E2_RULE),
                        prev, word, chore])
    print("## Fresh sample (held out; drawn from PREV_RULE's flags)\n")
    table(by["fresh"], [prev, word, chore])
    print("## Changed (every commit two successive rules disagree on; recall is not meaningful here)\n")
    table(by["changed"], [prev, word, chore])
    print("## Every labelled commit\n")
    table(rows, [prev, word, chore])
    first: set[tuple[str, str]] = {(r["repo"], r["sha"]) for r in by["first"]}
    label: dict[tuple[str, str], int] = {(r["repo"], r["sha"]): r["bugfix"] for r in rows}
    frames = {repo: frame(res) for repo, res in mined.items()}
    if draw:
        for repo, commits in frames.items():
            fresh = draw_fresh(repo, commits, first)
            ok = fresh == [r["sha"] for r in by["fresh"] if r["repo"] == repo]
            print(f"fresh draw {repo}: {' '.join(fresh)} ({'as labelled' if ok else 'DIFFERS from the labels'})")
    print("## Every commit two successive rules disagree on (all three histories)\n")
    disagreement(frames, label, prev, word)
    tp, n = disagreement(frames, label, word, chore)
    base = score(RELEASE_WORD_RULE, rows)
    if n:
        print(f"Adoption test: RELEASE_CHORE_RULE only adds commits; their precision {tp / n:.3f} ({tp} of {n}) "
              f"against RELEASE_WORD_RULE's over every labelled commit it flags, {base['precision']:.3f} "
              f"({base['true']} of {base['flagged']}): {'at least as precise' if tp / n >= base['precision'] else 'lower'}\n")


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
