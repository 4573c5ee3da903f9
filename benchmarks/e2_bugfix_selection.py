"""E2 (paper F2, "selection, not capacity"): how much of a repository does a bug fix need?

Paper: across 752 bug-fix commits (Django, Flask, scikit-learn) the median fix edits 2 files; those
files plus their direct imports are 2.7%-9.9% of the repository.

Definitions (printed with every run; change them with the options):
- history: every commit reachable from HEAD (pipeline.history.mine; renames followed with -M).
- bug-fix commit: a non-merge commit whose *subject line* matches --rule (default below,
  case-insensitive words fix/fixes/fixed/fixing, bug/bugs/bugfix, regression, crash/crashes),
  changing 1..--max-files files (bulk commits excluded, as co-change does), at least one of them a
  source file in a language we parse.
- files edited: the files the commit changed (all kinds: code, tests, docs), counted as in the
  commit (files deleted since included).
- working set: the edited files that still exist at HEAD (renames followed), plus every file they
  import directly (import edges resolved by pipeline.parse + pipeline.imports on the HEAD snapshot).
- repository: every tracked file at HEAD (git ls-tree); tokens: cl100k_base tokens of each text
  file (binary files: 0 tokens, still counted as files).
- share: |working set| / |repository|, in files and in tokens; the table shows medians over fixes.
- limitation: imports and sizes come from the HEAD snapshot, not from each fix's parent commit.

Usage: .venv/bin/python benchmarks/e2_bugfix_selection.py REPO [REPO...] [--rule RE] [--max-files 30]
The commit list of each repository goes to benchmarks/results/e2_<name>.csv (one row per fix).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pipeline import gitio, languages  # noqa: E402
from pipeline.history import mine  # noqa: E402

DEFAULT_RULE = r"(?i)\b(fix(e[sd]|ing)?|bugs?|bugfix(es)?|regressions?|crash(es)?)\b"


@dataclass
class HeadSnapshot:
    """The repository at HEAD: files, tokens, import edges and test links (paths)."""

    paths: list[str]
    tokens: dict[str, int]
    source: set[str]                                  # files in a language we parse
    imports: set[tuple[str, str]]                     # (importer, imported)
    tests: set[tuple[str, str]] = field(default_factory=set)   # (test file, tested file)
    seconds: float = 0.0

    def imported_by(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for a, b in self.imports:
            out.setdefault(a, set()).add(b)
        return out


def head_snapshot(repo: Path) -> HeadSnapshot:
    """Parse the HEAD tree with the project's own parser and resolvers (what the index sees)."""
    from pipeline.imports import FileImports, resolve
    from pipeline.parse import parse_file
    from pipeline.testlinks import link_tests
    from stratum.ids import node_id
    from stratum.tokens import count_many

    t0 = time.perf_counter()
    paths = sorted(p.decode("utf-8", "backslashreplace") for p in gitio.tree_paths(repo, "HEAD"))
    texts, source, parsed, manifests = {}, set(), [], {}
    with gitio.BlobReader(repo) as r:
        for p in paths:
            data = r.read(f"HEAD:{p}")
            if data is None or b"\0" in data[:8000]:
                continue                                 # binary (or a submodule): no tokens
            texts[p] = data.decode("utf-8", "replace")
            if p.endswith(("go.mod", "Cargo.toml")):
                manifests[p] = texts[p]
            if languages.detect(p, data) is not None and len(data) <= 1 << 20:
                source.add(p)
                pf = parse_file(repo.name, p, data)
                parsed.append(FileImports(p, pf.language, tuple(pf.imports)))
    counts = count_many(list(texts.values()))
    tokens = {p: 0 for p in paths} | dict(zip(texts, counts))
    edges, _ = resolve(repo.name, parsed, paths, manifests)
    by_id = {node_id(repo.name, p, "file", ""): p for p in paths}
    imports = {(by_id[e["src"]], by_id[e["dst"]]) for e in edges}
    tests = {(by_id[e["src"]], by_id[e["dst"]]) for e in link_tests(repo.name, paths, edges)}
    return HeadSnapshot(paths, tokens, source, imports, tests, time.perf_counter() - t0)


def bugfixes(repo: Path, rule: str, max_files: int):
    """(mine result, [fix commit dicts with their edited files]) by the definitions above."""
    res = mine(repo)
    rx = re.compile(rule)
    files: dict[str, list[dict]] = {}
    for fc in res.file_changes.to_pylist():
        files.setdefault(fc["sha"], []).append(fc)
    fixes = []
    for c in res.commits.to_pylist():
        subject = c["message"].split("\n", 1)[0]
        changed = files.get(c["sha"], [])
        if c["is_merge"] or not rx.search(subject) or not (1 <= len(changed) <= max_files):
            continue
        if not any(languages.language_for_path(f["path"]) for f in changed):
            continue
        fixes.append({"sha": c["sha"], "date": c["committed_at"].date().isoformat(), "subject": subject,
                      "files": changed})
    return res, fixes


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def run(repo: Path, rule: str, max_files: int, out_dir: Path) -> dict:
    t0 = time.perf_counter()
    res, fixes = bugfixes(repo, rule, max_files)
    snap = head_snapshot(repo)
    present = set(snap.paths)
    deps = snap.imported_by()
    total_files = len(snap.paths)
    total_tokens = sum(snap.tokens.values())
    rows = []
    for f in fixes:
        edited_now = {x["current_path"] for x in f["files"] if x["current_path"] in present}
        ws = set(edited_now)
        for p in edited_now:
            ws |= deps.get(p, set())
        rows.append({
            "sha": f["sha"], "date": f["date"], "subject": f["subject"][:120],
            "files_edited": len({x["path"] for x in f["files"]}),
            "source_files_edited": len({x["path"] for x in f["files"] if languages.language_for_path(x["path"])}),
            "edited_present": len(edited_now), "working_set_files": len(ws),
            "working_set_tokens": sum(snap.tokens.get(p, 0) for p in ws),
        })
        rows[-1]["share_files"] = rows[-1]["working_set_files"] / total_files
        rows[-1]["share_tokens"] = rows[-1]["working_set_tokens"] / max(total_tokens, 1)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / f"e2_{repo.name}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["sha"])
        w.writeheader()
        for r in rows:
            w.writerow({k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.items()})

    def med(k):
        return statistics.median(r[k] for r in rows) if rows else float("nan")

    def q(k, p):
        return statistics.quantiles([r[k] for r in rows], n=4)[p] if len(rows) > 1 else float("nan")

    summary = {
        "repo": repo.name, "head": res.head, "commits": res.counters["commits"], "fixes": len(rows),
        "repo_files": total_files, "repo_tokens": total_tokens, "import_edges": len(snap.imports),
        "median_files_edited": med("files_edited"), "p25_files_edited": q("files_edited", 0),
        "p75_files_edited": q("files_edited", 2), "median_source_files_edited": med("source_files_edited"),
        "median_working_set_files": med("working_set_files"),
        "median_share_files": med("share_files"), "median_share_tokens": med("share_tokens"),
        "p75_share_files": q("share_files", 2), "p75_share_tokens": q("share_tokens", 2),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description="E2: share of the repository a bug fix needs")
    ap.add_argument("repos", nargs="*", default=[str(HERE / ".repos" / n) for n in ("flask", "requests", "werkzeug")])
    ap.add_argument("--rule", default=DEFAULT_RULE, help="regex over the subject line")
    ap.add_argument("--max-files", type=int, default=30)
    ap.add_argument("--out", default=str(HERE / "results"))
    args = ap.parse_args()
    print(__doc__.split("Usage:")[0])
    print(f"rule: {args.rule}\nmax files per fix: {args.max_files}\ncommand: {' '.join(sys.argv)}\n")
    results = []
    for r in args.repos:
        s = run(Path(r).resolve(), args.rule, args.max_files, Path(args.out))
        results.append(s)
        print(json.dumps(s))
    print("\n| repo | commits | bug fixes | repo files | repo tokens | median files edited (p25-p75) "
          "| median working set files | median share (files) | median share (tokens) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in results:
        print(f"| {s['repo']} | {s['commits']} | {s['fixes']} | {s['repo_files']} | {s['repo_tokens']:,} | "
              f"{s['median_files_edited']:g} ({s['p25_files_edited']:g}-{s['p75_files_edited']:g}) | "
              f"{s['median_working_set_files']:g} | {pct(s['median_share_files'])} | {pct(s['median_share_tokens'])} |")
    allfix = sum(s["fixes"] for s in results)
    print(f"\ntotal bug-fix commits: {allfix} (paper: 752 over Django, Flask, scikit-learn; median 2 files; "
          f"working set 2.7%-9.9% of the repository)")
    Path(args.out, "e2_summary.json").write_text(json.dumps({"command": " ".join(sys.argv), "rule": args.rule,
                                                             "max_files": args.max_files, "results": results},
                                                            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
