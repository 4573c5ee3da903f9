"""Precision of the bug-fix rule on hand-labelled commits of flask, requests and werkzeug.

Sample: 102 commits (34 per repository, random.Random(12)) among the non-merge commits that change
1..5 code files and that the *old* rule flags (stratum.config before this change:
``\\b(fix(e[sd])?|bug|issue|defect|patch|regression|crash|error)\\b|#\\d+`` anywhere in the
message). Each was labelled by reading its subject, body and files: 1 = it corrects faulty
behaviour of the code or its tests (a crash, a wrong result, a broken import, a broken test),
0 = anything else (docs, typos, style/lint, features, refactors, releases, reverts, bare issue or
pull-request numbers). Labels: benchmarks/results/bugfix_labels.csv.

precision = labelled fixes among the commits a rule flags; recall = flagged labelled fixes among all
labelled fixes (relative to the old rule's flagged set: a fix the old rule misses is not sampled).
Caveat: the new rule was written after reading this sample, so its precision here is optimistic.

Usage: .venv/bin/python benchmarks/bugfix_rule.py
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pipeline import gitio  # noqa: E402
from stratum.config import DEFAULT_BUGFIX_RULE  # noqa: E402

OLD_RULE = r"(?i)\b(fix(e[sd])?|bug|issue|defect|patch|regression|crash|error)\b|#\d+"
E2_RULE = r"(?i)\b(fix(e[sd]|ing)?|bugs?|bugfix(es)?|regressions?|crash(es)?)\b"   # benchmarks' subject rule


def score(rule: str, rows: list[dict]) -> dict:
    rx = re.compile(rule)
    flagged = [r for r in rows if rx.search(r["message"])]
    tp = sum(r["bugfix"] for r in flagged)
    pos = sum(r["bugfix"] for r in rows)
    return {"flagged": len(flagged), "true": tp, "precision": round(tp / len(flagged), 3) if flagged else 0.0,
            "recall": round(tp / pos, 3) if pos else 0.0}


def main() -> int:
    print(__doc__.split("Usage:")[0])
    rows = []
    with open(HERE / "results" / "bugfix_labels.csv") as fh:
        for r in csv.DictReader(fh):
            msg = gitio.decode(gitio.run_git(HERE / ".repos" / r["repo"], "log", "-1", "--format=%B", r["sha"]))
            rows.append({**r, "bugfix": int(r["bugfix"]), "message": msg})
    print(f"{len(rows)} labelled commits, {sum(r['bugfix'] for r in rows)} bug fixes\n")
    print("| rule | flagged | true fixes | precision | recall |\n|---|---|---|---|---|")
    for name, rule in (("old (config before)", OLD_RULE), ("E2 subject rule", E2_RULE),
                       ("new (DEFAULT_BUGFIX_RULE)", DEFAULT_BUGFIX_RULE)):
        s = score(rule, rows)
        print(f"| {name} | {s['flagged']} | {s['true']} | {s['precision']:.3f} | {s['recall']:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
