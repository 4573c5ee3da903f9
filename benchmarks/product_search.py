"""The issue-12 conditions measured through the product's own search, as an agent meets them.

benchmarks/retrieval_memory.py scores rankings it composes from the product's parts (the fused
hits, ``stratum.rank``) with notes passed as extra documents. This script asks the product itself:
``stratum.tools.Tools.search`` over stores the index job built, with agent notes written through
``Tools.remember`` into the delta log (unmerged, as a live server holds them).

Definitions (printed with the results):
- tasks: retrieval_memory.py's evaluation window (``setup(repo, EVAL_AT, n)``: the masked fix
  message as the query, every code file the commit changed, as at C, as the answers);
- stores, all at that benchmark's index commit C, before every task:
  - code only: retrieval_memory.py's store (code, co-change, imports/tests; no mined history);
  - day one: the checkout at C indexed by the index job with its defaults (history mined at index
    time: fix and change nodes), no agent notes; built into benchmarks/.out/product/ once;
  - + agent notes / + pooled notes: a copy of the day-one store, and retrieval_memory.py's agent
    notes (one rca note per earlier bug fix) or pooled notes (one per earlier qualifying commit):
    the fix's subject as text, about its files, written with ``remember`` in commit order, each
    before the first task it is strictly older than (no future leakage: checked per task);
- a mode's file list: the distinct paths of the code items served (file, class, function, method),
  in order, over MAX_PAGES pages of PAGE_SIZE; MRR and Acc@k of the first answer file in it;
- pages: the search tool's (a page may end before PAGE_SIZE where the evidence drops,
  stratum.pagecut; the reader pages on as an agent would); "answer on page 1": the share of tasks
  whose first page holds an answer file (what an agent that never pages would see);
- tokens to the answer: a new session per query; the served items' own ``tokens`` (summary, why,
  attached note lines: what the session's budget counts), page after page until a page holds an
  answer file (every page read when none does); the median over tasks;
- ``--window past``: the stores at C' and the tasks between C' and C instead (what
  retrieval_memory.py fits on): for trying a change without reading the evaluation window;
- pooled: the tasks of every repository given, as one list;
- ``--query message`` (a second reading, not the issue's definition): the query is the whole commit
  message, subject and body, masked by the same rule (common.symptom), closer to an issue report;
  a commit without a body keeps its subject's query.

Modes: "search" (no kind filter) and "file view" (``kinds=["file"]``, stratum.fileview).

    .venv/bin/python benchmarks/product_search.py flask requests werkzeug [--n 200] [--out F.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

PAGE_SIZE = 10
MAX_PAGES = 5
OUT = HERE / ".out" / "product"
MODES = (("search", []), ("file view", ["file"]))
CONDITIONS = ("code only", "day one", "day one + agent notes", "day one + pooled notes")


def _day_one(s) -> Path:
    """The index job's store of the checkout at C (its defaults: history mined), built once and
    again when this build parses otherwise (``common.store_at``)."""
    import common as C

    return C.store_at(HERE / ".repos" / s.name, s.c, out=OUT, num_cpus=1)[1]


def _read(tools, query: str, kinds: list[str], want: set[str]) -> tuple[int | None, int, int]:
    """(rank of the first answer file, tokens read to reach it, pages read) for one query, in a new
    session."""
    sid = tools.open_session(author="reader").data["session"]
    files: list[str] = []
    tokens, token, rank, pages = 0, "", None, 0
    try:
        for pages in range(1, MAX_PAGES + 1):
            r = tools.search(sid, query, kinds=kinds, page_size=PAGE_SIZE, page_token=token)
            for it in r.items:
                tokens += it.tokens
                if it.kind in ("file", "class", "function", "method") and it.path and it.path not in files:
                    files.append(it.path)
                    if rank is None and it.path in want:
                        rank = len(files)
            if rank is not None or not r.envelope.has_more:
                break
            token = r.envelope.next_page_token
    finally:
        tools.close_session(sid)
    return rank, tokens, pages


def run(s, cond: str) -> dict:
    """mode -> ranks and tokens per task, under one condition."""
    from stratum.errors import StratumError
    from stratum.tools import Tools

    if cond == "code only":
        store = s.store
    else:
        store = _day_one(s)
        if cond != "day one":           # notes land in a copy: the day-one store stays without them
            import common as C

            store = C.copy_store(store, store.parent / f"store-{cond.split('+ ')[1].split()[0]}")
    notes = sorted(s.agent if "agent" in cond else s.pooled if "pooled" in cond else [], key=lambda d: d.time)
    tools = Tools.open([str(store)])
    out: dict = {m: {"ranks": [], "tokens": [], "pages": []} for m, _ in MODES}
    written = refused = 0
    try:
        writer = tools.open_session(author="agent").data["session"]
        t0 = time.perf_counter()
        for t in s.tasks:
            while written + refused < len(notes) and notes[written + refused].time < t.time:
                d = notes[written + refused]
                try:
                    tools.remember(writer, "rca", d.node["doc"], about=d.files)     # the subject
                    written += 1
                except StratumError as e:       # a subject remember refuses: counted, said
                    refused += 1
                    print(f"    {s.name}: note of {d.id} refused: {e}", flush=True)
            if any(d.time >= t.time for d in notes[:written + refused]):
                raise SystemExit(f"leak: a note not older than {t.sha[:10]}")
            want = set(t.targets)
            for m, kinds in MODES:
                r, tk, pg = _read(tools, t.query, kinds, want)
                out[m]["ranks"].append(r)
                out[m]["tokens"].append(tk)
                out[m]["pages"].append(pg if r is not None else 0)
        out["_notes"] = {"written": written, "refused": refused, "seconds": round(time.perf_counter() - t0, 1)}
    finally:
        tools.close()
    return out


def _whole_messages(setups) -> None:
    """Each task's query made from its whole commit message, masked as its subject was."""
    import common as C

    for s in setups:
        c_paths = C.paths_at(HERE / ".repos" / s.name, s.c)
        for t in s.tasks:
            t.query = C.symptom(t.message or t.subject, t.targets, c_paths) or t.query


def _metrics(ranks: list, tokens: list, pages: list) -> dict:
    import retrieval_memory as RM

    return RM.metrics(ranks) | {"median_tokens": statistics.median(tokens),
                                "answer_on_page_1": round(sum(p == 1 for p in pages) / len(pages), 4)}


def main() -> None:
    import retrieval_memory as RM

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repos", nargs="+")
    ap.add_argument("--n", type=int, default=200, help="tasks per repository (retrieval_memory.py's --n)")
    ap.add_argument("--conditions", default=",".join(CONDITIONS), help="comma-separated, of: " + ", ".join(CONDITIONS))
    ap.add_argument("--query", choices=("subject", "message"), default="subject",
                    help="the masked subject (the definition) or the whole masked message")
    ap.add_argument("--window", choices=("evaluation", "past"), default="evaluation",
                    help="past: stores at C' and the tasks between C' and C (the window weights are fitted on)")
    ap.add_argument("--tag", default="", help="build and read the day-one stores under benchmarks/.out/product/TAG/")
    ap.add_argument("--out", default="", help="write the results as JSON here")
    ap.add_argument("--pages", choices=("product", "fixed"), default="product",
                    help="fixed: every page PAGE_SIZE items (the evidence cliff off: the reading before session 29)")
    a = ap.parse_args()
    if a.pages == "fixed":
        import stratum.pagecut as PC

        PC.CLIFF = 0.0          # read per call: no score falls under 0 x the first, no page is cut
    conds = [c.strip() for c in a.conditions.split(",")]
    bad = [c for c in conds if c not in CONDITIONS]
    if bad:
        raise SystemExit(f"unknown condition(s) {bad}: choose from {list(CONDITIONS)}")
    print(__doc__.split("Modes:")[0].strip(), flush=True)
    if a.window == "past":          # the fit window: stores at C', tasks before C (never the evaluation's)
        import common as C

        setups = []
        for r in a.repos:
            cut = C.resolve_commit((HERE / ".repos" / r).resolve(), RM.EVAL_AT[r])
            cut_time = next(x.time for x in C.load_history(HERE / ".repos" / r) if x.sha == cut)
            setups.append(RM.setup(r, RM.PAST_AT[r], a.n, before=cut_time))
    else:
        setups = [RM.setup(r, RM.EVAL_AT[r], a.n) for r in a.repos]
    global OUT
    OUT = OUT / a.tag if a.tag else OUT
    if a.query == "message":
        _whole_messages(setups)
    res: dict = {}
    for cond in conds:
        per = {s.name: run(s, cond) for s in setups}
        res[cond] = {name: {m: _metrics(by[m]["ranks"], by[m]["tokens"], by[m]["pages"]) for m, _ in MODES}
                     | {"notes": by["_notes"]} for name, by in per.items()}
        res[cond]["pooled"] = {m: _metrics(*([x for by in per.values() for x in by[m][k]] for k in ("ranks", "tokens", "pages")))
                               for m, _ in MODES}
        print(f"  {cond}: done; notes {[by['_notes'] for by in per.values()]}", flush=True)
    print("\n| condition | repo | mode | MRR | Acc@1 | Acc@5 | Acc@10 | median tokens to the answer | answer on page 1 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for cond, by_repo in res.items():
        for repo, by in by_repo.items():
            for m, _ in MODES:
                v = by[m]
                print(f"| {cond} | {repo} | {m} | {v['mrr']:.3f} | {v['acc@1']:.3f} | {v['acc@5']:.3f} | "
                      f"{v['acc@10']:.3f} | {v['median_tokens']:g} | {v['answer_on_page_1']:.3f} |")
    if a.out:
        Path(a.out).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
