"""Fit the search page's evidence cliff (stratum.pagecut) on the past window, never the evaluation's.

``pagecut.page_end(scores, cliff=, min_items=)``: a search page ends before the first item past
``min_items`` whose score is under ``cliff`` x the page's first score (the rest waits for the next
page). This script collects the uncut served lists once and replays the reader offline under each
rule of a grid.

Definitions (printed with the results):
- window: past only, as ``product_search.py --window past`` builds it: each repository's stores at
  C' = retrieval_memory.PAST_AT, its tasks the qualifying commits after C' and strictly before C =
  retrieval_memory.EVAL_AT (``setup(repo, PAST_AT, n, before=time of C)``; at most --n each);
- conditions, exactly as product_search.run builds them: "code only" (retrieval_memory's store at
  C', no mined history), "day one" (the index job's store at C', history mined with its defaults),
  "day one + agent notes" (a copy of the day-one store, one rca note per earlier bug fix written
  with ``Tools.remember`` in commit order, each before the first task it is strictly older than;
  checked per task);
- collection: per task and condition, a new reader session and one ``Tools.search(sid, query,
  page_size=COLLECT)`` with the product's cliff switched off (``pagecut.CLIFF`` set to 0 while
  collecting: no score falls under it; checked: some list is longer than a page); each served item kept as
  [score, tokens, kind, path, is answer file]; cached as JSON under benchmarks/.out/page_cliff/;
- the reader (product_search.py's): pages of at most PAGE_SIZE, at most MAX_PAGES; a page is the
  next PAGE_SIZE collected items, the first page cut by the rule (``pagecut.page_end`` itself,
  which keeps the query's own placements whole; later pages are whole; "fixed pages": no cut); the items' own ``tokens`` summed page after page until a page holds an answer file (every
  page read when none does); MRR and Acc@5 of the first answer among the distinct code-file paths
  (file, class, function, method) in served order; median tokens over tasks;
- pooled: the tasks of every repository given, as one list; ratio: a condition's median tokens
  over code only's, pooled and per repository;
- grid: cliff in CLIFFS x min_items in MIN_ITEMS, plus "fixed pages" (uncut); "page 1": the share
  of tasks whose first page holds an answer file (what an agent that never pages sees; reported,
  not part of the choice);
- the chosen default: among grid points whose pooled MRR is within MRR_SLACK of the uncut's in
  every condition, the lowest pooled ratio "day one + agent notes" / "code only"; ties go to the
  smaller cliff (then the smaller min_items).

    .venv/bin/python benchmarks/page_cliff.py flask requests werkzeug [--n 200] [--reuse] [--out F.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402
import product_search as P  # noqa: E402
import retrieval_memory as RM  # noqa: E402
from stratum import pagecut  # noqa: E402

CONDITIONS = ("code only", "day one", "day one + agent notes")
CODE_KINDS = ("file", "class", "function", "method")
CLIFFS = (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8)
MIN_ITEMS = (1, 2, 3, 5)
COLLECT = 50                        # items collected per task: MAX_PAGES x PAGE_SIZE
MRR_SLACK = 0.002
OUT = HERE / ".out" / "page_cliff"
Rows = dict[str, dict[str, list[dict[str, Any]]]]      # condition -> repo -> per task {q, items, more}


@contextmanager
def _uncut() -> Iterator[None]:
    """Tools.search without the cliff while collecting: ``pagecut.CLIFF`` is read per call, and no
    score falls under 0 x the first."""
    kept = pagecut.CLIFF
    pagecut.CLIFF = 0.0
    try:
        yield
    finally:
        pagecut.CLIFF = kept


def _past_setups(repos: list[str], n: int) -> list:
    """product_search.py --window past: stores at C', tasks before C."""
    out = []
    for r in repos:
        cut = C.resolve_commit((HERE / ".repos" / r).resolve(), RM.EVAL_AT[r])
        cut_time = next(x.time for x in C.load_history(HERE / ".repos" / r) if x.sha == cut)
        out.append(RM.setup(r, RM.PAST_AT[r], n, before=cut_time))
    return out


def _collect(s, cond: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Per task, the first COLLECT uncut items served under ``cond`` (stores and notes as product_search.run)."""
    from stratum.errors import StratumError
    from stratum.tools import Tools

    store = s.store
    if cond != "code only":
        store = P._day_one(s)
        if cond != "day one":       # notes land in a copy: the day-one store stays without them
            store = C.copy_store(store, store.parent / f"store-{cond.split('+ ')[1].split()[0]}")
    notes = sorted(s.agent if "agent" in cond else [], key=lambda d: d.time)
    tools = Tools.open([str(store)])
    rows: list[dict[str, Any]] = []
    written = refused = 0
    try:
        writer = tools.open_session(author="agent").data["session"]
        for t in s.tasks:
            while written + refused < len(notes) and notes[written + refused].time < t.time:
                d = notes[written + refused]
                try:
                    tools.remember(writer, "rca", d.node["doc"], about=d.files)
                    written += 1
                except StratumError:
                    refused += 1
            if any(d.time >= t.time for d in notes[:written + refused]):
                raise SystemExit(f"leak: a note not older than {t.sha[:10]}")
            want = set(t.targets)
            sid = tools.open_session(author="reader").data["session"]
            try:
                with _uncut():
                    r = tools.search(sid, t.query, page_size=COLLECT)
            finally:
                tools.close_session(sid)
            rows.append({"q": t.query, "more": r.envelope.has_more,
                         "items": [[it.score, it.tokens, it.kind, it.path, it.kind in CODE_KINDS and it.path in want]
                                   for it in r.items]})
    finally:
        tools.close()
    return rows, {"tasks": len(rows), "notes_written": written, "notes_refused": refused}


def collect(repos: list[str], n: int) -> dict[str, Any]:
    setups = _past_setups(repos, n)
    rows: Rows = {}
    info: dict[str, Any] = {}
    for cond in CONDITIONS:
        for s in setups:
            rows.setdefault(cond, {})[s.name], info[f"{cond} | {s.name}"] = _collect(s, cond)
            print(f"  collected {cond} | {s.name}: {info[f'{cond} | {s.name}']}", flush=True)
    longest = max(len(r["items"]) for by in rows.values() for rs in by.values() for r in rs)
    if longest <= P.PAGE_SIZE:
        raise SystemExit(f"the cliff was not switched off: the longest list holds {longest} items")
    return {"repos": repos, "n": n, "collect": COLLECT, "past_at": {r: RM.PAST_AT[r] for r in repos},
            "eval_at": {r: RM.EVAL_AT[r] for r in repos}, "info": info, "longest": longest, "rows": rows}


def read(items: list[list], cliff: float | None, min_items: int) -> tuple[int | None, int, int]:
    """(rank of the first answer file, tokens to reach it, the page it is on: 0 when never) for
    the reader under one rule."""
    o, tokens, files, rank, at = 0, 0, [], None, 0
    for p in range(1, P.MAX_PAGES + 1):
        if o >= len(items):
            break
        page = items[o:o + P.PAGE_SIZE]
        if cliff is not None and p == 1:      # the product cuts the first page only
            page = page[:pagecut.page_end([x[0] for x in page], cliff=cliff, min_items=min_items)]
        for _score, tk, kind, path, answer in page:
            tokens += tk
            if kind in CODE_KINDS and path and path not in files:
                files.append(path)
                if rank is None and answer:
                    rank = len(files)
        o += len(page)
        if rank is not None:
            at = p
            break
    return rank, tokens, at


def simulate(rows: Rows, cliff: float | None, min_items: int) -> dict[str, dict[str, dict[str, float]]]:
    """condition -> repo (and "pooled") -> MRR, Acc@5, median tokens, answer on page 1."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for cond, by in rows.items():
        got = {repo: [read(r["items"], cliff, min_items) for r in rs] for repo, rs in by.items()}
        got["pooled"] = [x for repo in by for x in got[repo]]
        out[cond] = {}
        for repo, xs in got.items():
            mt = RM.metrics([r for r, _, _ in xs])
            out[cond][repo] = {"mrr": mt["mrr"], "acc@5": mt["acc@5"],
                               "median_tokens": statistics.median(t for _, t, _ in xs),
                               "page1": round(sum(p == 1 for _, _, p in xs) / len(xs), 3)}
    return out


def _ratio(res: dict, cond: str, repo: str) -> float:
    return res[cond][repo]["median_tokens"] / res["code only"][repo]["median_tokens"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repos", nargs="+")
    ap.add_argument("--n", type=int, default=200, help="tasks per repository (retrieval_memory.py's --n)")
    ap.add_argument("--reuse", action="store_true", help="read the collected items from the cache if there")
    ap.add_argument("--out", default="", help="write the grid and the choice as JSON here")
    a = ap.parse_args()
    print(__doc__.split("    .venv")[0].strip(), flush=True)
    cache = OUT / f"items-{'-'.join(a.repos)}-n{a.n}.json"
    if a.reuse and cache.exists():
        data = json.loads(cache.read_text())
        print(f"\nreusing {cache}", flush=True)
    else:
        data = collect(a.repos, a.n)
        OUT.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(data))
        print(f"\ncollected into {cache}", flush=True)
    print(f"collection: {json.dumps(data['info'])}; longest list {data['longest']} items")
    rows: Rows = data["rows"]
    grid: list[tuple[float | None, int]] = [(None, 0)] + [(c, m) for c in CLIFFS for m in MIN_ITEMS]
    results = [(c, m, simulate(rows, c, m)) for c, m in grid]
    ab = {"code only": "code", "day one": "d1", "day one + agent notes": "agent"}
    head = ["cliff", "min"] + [f"{ab[c]} {k}" for c in CONDITIONS for k in ("MRR", "Acc@5", "med tok", "page 1")]
    head += ["d1/code", "agent/code"] + [f"{r} d1/code, agent/code" for r in a.repos]
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * 2 + "---:|" * (len(head) - 2))
    for c, m, res in results:
        cells = ["fixed pages", "-"] if c is None else [f"{c:g}", str(m)]
        for cond in CONDITIONS:
            v = res[cond]["pooled"]
            cells += [f"{v['mrr']:.3f}", f"{v['acc@5']:.3f}", f"{v['median_tokens']:g}", f"{v['page1']:.3f}"]
        cells += [f"{_ratio(res, 'day one', 'pooled'):.2f}", f"{_ratio(res, 'day one + agent notes', 'pooled'):.2f}"]
        cells += [f"{_ratio(res, 'day one', r):.2f}, {_ratio(res, 'day one + agent notes', r):.2f}" for r in a.repos]
        print("| " + " | ".join(cells) + " |")
    base = results[0][2]
    ok = [(c, m, res) for c, m, res in results[1:]
          if all(res[k]["pooled"]["mrr"] >= base[k]["pooled"]["mrr"] - MRR_SLACK for k in CONDITIONS)]
    if not ok:
        raise SystemExit(f"no grid point keeps every condition's pooled MRR within {MRR_SLACK} of the uncut")
    ok.sort(key=lambda x: (_ratio(x[2], "day one + agent notes", "pooled"), x[0] or 0.0, x[1]))
    c, m, _ = ok[0]
    same = (c, m) == (pagecut.CLIFF, pagecut.MIN_ITEMS)
    print(f"\nchosen: cliff {c:g}, min_items {m} ({len(ok)} of {len(results) - 1} points within MRR {MRR_SLACK}; "
          "lowest pooled agent/code: " + ", ".join(f"({c2:g}, {m2}) {_ratio(r2, 'day one + agent notes', 'pooled'):.3f}"
                                                   for c2, m2, r2 in ok[:4]) + ")")
    print(f"stratum.pagecut: cliff {pagecut.CLIFF:g}, min_items {pagecut.MIN_ITEMS}: "
          f"{'the same' if same else 'DIFFERENT from the chosen point'}")
    if a.out:
        Path(a.out).write_text(json.dumps({"grid": [{"cliff": c2, "min_items": m2, "results": r2}
                                                    for c2, m2, r2 in results],
                                           "chosen": {"cliff": c, "min_items": m}, "pagecut_default_same": same,
                                           "info": data["info"]}, indent=1))


if __name__ == "__main__":
    main()
