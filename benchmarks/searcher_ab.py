"""The searcher before and after a change, in one process: the same fused lists, and their cost.

    python benchmarks/searcher_ab.py (--from-e4 DIR | --store PATH) [--ref REV|DIR] [--queries 300]
                                     [--rounds 3] [--no-check] [--no-time] [--tools]

Definitions (printed):
- **reference**: the searcher modules as they were at git revision ``--ref`` (default 162fb1c, or
  ``search_ref.py``, ``noteindex_ref.py``, ``keywordindex_ref.py`` (and ``noteview_ref.py`` from the revision
  that split it out of noteindex) in a folder ``--ref``), loaded beside ``stratum``'s under other names and run
  on the *same* in-memory indexes (the shard's keyword arrays, vector graph, node columns, the
  overlay's note index and its HNSW graph): only the code differs. Make one from any commit:
  ``git show C:stratum/search.py > DIR/search_ref.py`` (likewise noteindex, noteview, keywordindex).
- **queries**: ``grpc_latency.workload`` over the store (node names and first words of node
  summaries, half each, seed 11), QUERIES of them.
- **equality**: every query in every mode gives an equal ``SearchPage`` (items' row, score bits,
  sources and id in order; total_or_lower_bound, total_is_exact, has_more) from both. Modes: as
  ``Tools.search`` asks (limit rank.DEEP, the overlay's notes), pages (offset 10 and 140, limit
  10), kind filters (function; class+method; the note kinds), a path prefix (the most common
  first path segment), a language filter, lexical sources (keyword+name), plain extra docs (20
  ``ExtraDoc``s with vectors, indexed for the query), and no notes.
- **timing**: the first mode (what the tool asks), reference and new in turn per query (A B, then
  B A for the next: the second of a pair finds the query's data in cache),
  ROUNDS passes after one untimed pass; query vectors given (embedding is not the searcher's
  part); p50 and mean of each, and the p50 of the per-query ratio new / reference.
- **--tools**: ``Tools.search`` (page size 10) with the shard's searcher swapped per call, the same
  alternation, after one untimed pass (so these are repeated queries: query vectors cached, the
  rerank's memos warm); everything but the searcher is the same code and state.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def load_reference(ref: str):
    """The reference modules, importable as ``ref_noteindex`` / ``ref_keywordindex`` / ``ref_search``
    (and ``ref_noteview`` where the revision has it; their ``stratum.noteindex`` / ``stratum.noteview``
    / ``stratum.keywordindex`` imports pointed at each other). ``ref``: a directory of
    ``<name>_ref.py`` files, or a git revision."""
    import subprocess
    from types import ModuleType

    from revisions import module_from_source, source_at

    folder = Path(ref)
    mods = {}
    for name in ("keywordindex", "noteview", "noteindex", "search"):
        if folder.is_dir():
            path = folder / f"{name}_ref.py"
            if not path.exists():
                continue
            src, origin = path.read_text(), str(path)
        else:
            try:
                src, origin = source_at(ref, f"stratum/{name}.py"), f"{ref}:stratum/{name}.py"
            except subprocess.CalledProcessError:
                if name == "noteview":          # a revision before noteview.py (its view was in noteindex)
                    continue
                raise
        for other in ("keywordindex", "noteview", "noteindex"):
            if other in mods:
                src = src.replace(f"from stratum.{other} import", f"from ref_{other} import")
        mod = mods[name] = module_from_source(f"ref_{name}", src, origin)
        for other, ref_mod in mods.items():     # ``from stratum import noteview``: the reference's module too
            if isinstance(getattr(mod, other, None), ModuleType):
                setattr(mod, other, ref_mod)
    return mods


def reference_of(mods, searcher):
    """A reference HybridSearcher over the same indexes (a reference KeywordIndex on the same arrays)."""
    kw = searcher.keywords
    if kw is not None and "keywordindex" in mods:
        rk = mods["keywordindex"].KeywordIndex({a: getattr(kw, a) for a in kw._ARRAYS}, kw.meta)
        rk.compiled = kw.compiled
        rk.n_docs, rk.avgdl = kw.n_docs, kw.avgdl
        kw = rk
    meta = mods["search"].NodeMeta.__new__(mods["search"].NodeMeta)
    meta.__dict__ = searcher.meta.__dict__     # the same columns
    return mods["search"].HybridSearcher(meta, searcher.vectors, kw, searcher.embedder,
                                         window=searcher.window, weights=dict(searcher.weights),
                                         exact_limit=searcher.exact_limit, keyword_rounds=searcher.keyword_rounds,
                                         keyword_head_factor=searcher.keyword_head_factor,
                                         keyword_by_impact=searcher.keyword_by_impact)


def reference_view(mods, view):
    """The same note view seen through the reference NoteIndex/NoteView code (shared arrays and graph)."""
    ni = mods["noteindex"]
    rix = ni.NoteIndex.__new__(ni.NoteIndex)
    rix.__dict__ = view.ix.__dict__            # one state: arrays, postings, graph, caches
    return mods.get("noteview", ni).NoteView(rix, *tuple(view)[1:])


def page_key(p) -> tuple:
    return ([(it.row, float(it.score).hex(), tuple(it.sources), it.id) for it in p.items],
            p.total_or_lower_bound, p.total_is_exact, p.has_more, p.offset, p.limit)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--store")
    src.add_argument("--from-e4", metavar="DIR")
    ap.add_argument("--ref", default="162fb1c", help="a git revision, or a folder of <name>_ref.py files")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("--tools", action="store_true", help="also time Tools.search with either searcher")
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip().replace("QUERIES", str(args.queries))
          .replace("ROUNDS", str(args.rounds)), "\n", flush=True)
    import numpy as np

    import grpc_latency as G
    from stratum import rank, schema as S, tools as T
    from stratum.search import ExtraDoc

    mods = load_reference(args.ref)
    store = G.publish_e4(args.from_e4) if args.from_e4 else args.store
    tools = T.Tools.open([store])
    sh = tools.shards.shards[0]
    new = sh.warm.searcher
    ref = reference_of(mods, new)
    ov = tools.memory.overlay(sh)
    view = ov.search_docs()
    if len(view):
        view.ix.ensure_graph()
        view.ix.wait_graph()
        view = ov.search_docs()
    rview = reference_view(mods, view)
    qs = [a["query"] for a in G.workload(tools, args.queries, seed=11)["search"]]
    vecs = {q: new.embed_query(q) for q in qs}
    print(f"store {store}: {new.meta.n:,} nodes, {len(view):,} unmerged notes (graph {view.graph_size:,}), "
          f"{len(qs)} queries; load average {os.getloadavg()[0]:.2f}", flush=True)

    paths = sh.col("path")
    firsts: dict[str, int] = {}
    for p in paths:
        if p and "/" in p:
            firsts[p.split("/")[0] + "/"] = firsts.get(p.split("/")[0] + "/", 0) + 1
    prefix = max(firsts, key=firsts.get) if firsts else ""
    rng = np.random.default_rng(5)
    dim = int(vecs[qs[0]].shape[0]) if vecs[qs[0]] is not None else 384
    docs = []
    for i in range(20):
        v = rng.standard_normal(dim).astype(np.float32)
        docs.append(ExtraDoc(f"extra:{i:02d}", f"{qs[i % len(qs)]} extra note {i}", v / np.linalg.norm(v),
                             ("rca", "failure", "insight")[i % 3], prefix + f"x{i}.py"))
    deep = rank.DEEP
    modes = {
        "tool": dict(limit=deep, extra_docs=(view, rview)),
        "page 2": dict(limit=10, offset=10, extra_docs=(view, rview)),
        "page 15": dict(limit=10, offset=140, extra_docs=(view, rview)),
        "kind function": dict(limit=deep, kinds=("function",), extra_docs=(view, rview)),
        "kinds class+method": dict(limit=deep, kinds=("class", "method"), extra_docs=(view, rview)),
        "note kinds": dict(limit=deep, kinds=tuple(S.NOTE_KINDS), extra_docs=(view, rview)),
        "path prefix": dict(limit=deep, path_prefix=prefix, extra_docs=(view, rview)),
        "language": dict(limit=deep, language="python", extra_docs=(view, rview)),
        "lexical": dict(limit=deep, sources=("keyword", "name"), extra_docs=(view, rview)),
        "extra docs": dict(limit=deep, extra_docs=(docs, docs)),
        "no notes": dict(limit=deep),
    }

    def call(s, q, m: dict, which: int):
        kw = dict(m)
        ed = kw.pop("extra_docs", None)
        if ed is not None:
            kw["extra_docs"] = ed[which]
        return s.search(q, query_vector=vecs[q], **kw)

    if not args.no_check:
        bad = 0
        for name, m in modes.items():
            diff = 0
            for q in qs:
                a, b = page_key(call(ref, q, m, 1)), page_key(call(new, q, m, 0))
                if a != b:
                    diff += 1
                    if diff <= 2:
                        print(f"  DIFF {name} {q!r}: ref {a[0][:5]} ... {a[1:]} / new {b[0][:5]} ... {b[1:]}")
            bad += diff
            print(f"equality {name}: {len(qs) - diff}/{len(qs)} equal", flush=True)
        print(f"equality: {'PASSED' if bad == 0 else f'FAILED ({bad} pages differ)'} over {len(modes)} modes x "
              f"{len(qs)} queries", flush=True)
    if not args.no_time:
        m = modes["tool"]
        for q in qs:
            call(ref, q, m, 1), call(new, q, m, 0)
        ta, tb = [], []
        for r in range(args.rounds):
            for i, q in enumerate(qs):
                # the second of a pair finds the query's data in cache: who goes first alternates
                first = ((ref, 1), (new, 0)) if (i + r) % 2 == 0 else ((new, 0), (ref, 1))
                took = {}
                for s, which in first:
                    t = time.perf_counter()
                    call(s, q, m, which)
                    took[which] = (time.perf_counter() - t) * 1e3
                ta.append(took[1])
                tb.append(took[0])
        report(f"searcher (limit {deep}, as the tool asks)", ta, tb)
    if args.tools:
        # the whole tool, its shard's searcher swapped per call (the overlay's view given to the
        # reference searcher in its own classes); everything else is the same code and state
        from stratum.noteview import NoteView

        class Reference:
            """The reference searcher as the warm tier calls it (the overlay's view in its classes)."""
            def search(self, query, **kw):
                if isinstance(kw.get("extra_docs"), NoteView):
                    kw["extra_docs"] = reference_view(mods, kw["extra_docs"])
                return ref.search(query, **kw)

            def __getattr__(self, name):
                return getattr(ref, name)

        warm, adapter = sh.warm, Reference()
        sid = tools.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]

        def tool(which: int, q: str):
            warm.searcher = adapter if which else new
            tools.search(sid, query=q, page_size=10)

        for q in qs:
            tool(1, q), tool(0, q)
        ta, tb = [], []
        for r in range(args.rounds):
            for i, q in enumerate(qs):
                took = {}
                for which in ((1, 0) if (i + r) % 2 == 0 else (0, 1)):
                    t = time.perf_counter()
                    tool(which, q)
                    took[which] = (time.perf_counter() - t) * 1e3
                ta.append(took[1])
                tb.append(took[0])
        warm.searcher = new
        report("Tools.search (page 10; repeated queries)", ta, tb)


def report(what: str, ta: list[float], tb: list[float]) -> None:
    ratio = statistics.median(b / a for a, b in zip(ta, tb))
    print(f"| {what} | p50 ms | mean ms |\n|---|---:|---:|\n"
          f"| reference | {statistics.median(ta):.3f} | {statistics.mean(ta):.3f} |\n"
          f"| new | {statistics.median(tb):.3f} | {statistics.mean(tb):.3f} |\n"
          f"per-query ratio new / reference, p50: {ratio:.3f}; load average {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
