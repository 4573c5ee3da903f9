"""Calls and inherits edges on real repositories: how many call sites link, by which rule, and a
seeded sample to read by hand (precision is judged by reading; see docs/bench/calls.md).

Definitions (printed):
- **store**: the repository (benchmarks/.repos/<name>) at its HEAD, indexed by this code with
  ``common.store_at`` under benchmarks/.out/calls/ (reused while at that commit and parse format).
- **call sites**: the distinct (name, receiver) pairs each definition (and each file's module
  level) records (``pipeline.callrefs``: one per pair and definition, not one per occurrence).
- **linked**: ``calls`` edges (``pipeline.calls``; one per caller and callee: several call sites
  of one callee in a definition make one edge); **by rule**: the edges' ``meta.how``.
- **unlinked**: call sites whose name has no definition in the repository at all (builtins, the
  standard library, dependencies), and the rest (a definition of that name exists, but no rule
  picked exactly one).
- **sample**: --sample edges per repository drawn with random.Random(--seed), printed as
  caller -> callee [rule: the call as written].

Run: .venv/bin/python benchmarks/calls_edges.py [REPO ...] [--sample 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402

OUT = HERE / ".out" / "calls"


def store_for(name: str) -> Path:
    """This code's store of the repository at its HEAD (``common.store_at``: indexed once, again
    when the parse format changes)."""
    from pipeline import gitio

    repo = HERE / ".repos" / name
    return C.store_at(repo, gitio.head_commit(repo), out=OUT)[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="*", default=["flask", "werkzeug", "requests"])
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(__doc__.split("Run:")[0].strip(), "\n")
    from stratum.store import Store

    for name in args.repos:
        snap = Store(store_for(name)).snapshot()
        nodes = snap.read("nodes", columns=["id", "kind", "path", "qualname", "name", "meta"],
                          where="kind IN ('file', 'class', 'function', 'method')").to_pylist()
        label = {n["id"]: f"{n['path']}::{n['qualname']}" if n["qualname"] else n["path"] for n in nodes}
        defined = {n["name"] for n in nodes if n["kind"] != "file"}
        sites = [c for n in nodes if n["meta"] for c in json.loads(n["meta"]).get("calls", ())]
        edges = snap.read("edges", columns=["src", "dst", "kind", "meta"],
                          where="kind IN ('calls', 'inherits')").to_pylist()
        calls = [e for e in edges if e["kind"] == "calls"]
        rules = Counter(json.loads(e["meta"])["how"] for e in calls)
        external = sum(1 for c in sites if c[0] not in defined)
        print(f"## {name} ({snap.manifest.indexed_commit[:12]})")
        print(f"call sites {len(sites):,}; no definition of the name in the repository {external:,}; "
              f"with one {len(sites) - external:,}")
        print(f"calls edges {len(calls):,}; inherits edges {len(edges) - len(calls):,}")
        print("by rule: " + ", ".join(f"{k} {v}" for k, v in rules.most_common()))
        rng = random.Random(args.seed)
        for e in rng.sample(calls, min(args.sample, len(calls))):
            m = json.loads(e["meta"])
            print(f"  {label.get(e['src'], e['src'])} -> {label.get(e['dst'], e['dst'])} [{m['how']}: {m['as']}]")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
