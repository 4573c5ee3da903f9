"""Notes at scale (issue 12.4): search latency with many unmerged notes, restart, CLI remember.

Definitions (printed):
- **store**: the flask repository (benchmarks/.repos/flask) indexed with the real pipeline into
  benchmarks/.out/notes/flask (MiniLM vectors); each case runs on a copy with its own delta log.
- **unmerged notes**: N notes in the delta log, none merged. Each is written as ``remember`` writes
  it (validated, text cleaned, its MiniLM vector in the record), in batches of 64 through
  ``DeltaLog.append_many`` to keep setup short; kind rca/failure/insight in turn, about 1-2 random
  code nodes of the store, text "<kind words> in <qualname> (<path>): <a sentence from a pool of
  30 symptom/cause sentences> #<i>", 80-200 characters.
- **search p50**: in-process ``Tools.search`` (page size 10; the notes' compiled kernels prepared as
  ``stratum serve`` prepares them, ``notethreads.prepare_kernels``) over 40 natural-language queries about
  flask, after one warm-up pass; ROUNDS passes, median, p90 and p95 of the per-call wall time; the
  cases (0, 1,000, 10,000 notes) are open at once and each query runs on each in turn.
  **searcher p50**: the same queries at the searcher alone (``HybridSearcher.search`` with the
  overlay's ``NoteView``, limit 11: what ranking the notes costs, without rendering items), and
  **exhaustive p50**: the searcher given every active note as a plain ``ExtraDoc`` list, i.e.
  indexed for each query (the cost model before the incremental index; 10 queries, one pass). Query vectors are cached
  after the warm-up in all three, so these are ranking costs, not embedding costs; so are the
  per-note caches a server fills as queries touch notes (tie positions, ranking facts).
  **first pass p50**: the warm-up pass itself (each query's first call: query embedding, cold
  per-note caches), the cases one after another. Load average printed before and after.
- **restart to first answer**: wall time from spawning ``python -m stratum.cli serve --store S
  --port 0`` to the first search answer over gRPC (process start, imports, shard and overlay load,
  model load, the query embedding).
- **CLI remember**: wall time of one ``python -m stratum.cli remember ... --store S`` process, and
  the in-process part (``Tools.open`` + ``remember``), with N unmerged notes already logged.
- **--ab MODULE.NAME=VALUE** (repeatable): "before and after" in one run. The reference is this
  tree with those module constants set (e.g. ``noteview.SIGN_MIN=1<<40``: the exact list), read
  per call; each timed call of the search rounds runs once as the tree has it and once as the
  reference, in turn (the order alternating per query), and the warm-up runs both. The table gets
  the reference's rows ("ref"), each ratio against the same setting's no-notes case, and the
  per-call ratio this / reference (p50). ``--search-only``: no restart and CLI cases.

Run: .venv/bin/python benchmarks/notes_scale.py [--counts 0,1000,10000] [--rounds 3] [--ab M.NAME=VALUE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import select
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

OUT = HERE / ".out" / "notes"
QUERIES = [
    "register a url rule with a view function", "session cookie is not saved", "load configuration from a file",
    "render a template with context", "request context is not pushed", "json response encoding of dates",
    "blueprint url prefix", "error handler for 404", "teardown app context callbacks",
    "static files cache timeout", "secret key signing of the session", "test client follows redirects",
    "command line interface run server", "flash messages between requests", "url_for with external scheme",
    "before request hook order", "config from environment variable", "async view support",
    "streaming response generator", "send file with conditional etag", "logging setup for the app",
    "jinja environment autoescape", "signals sent when a template renders", "app factory pattern",
    "method not allowed response", "get_json silent parsing", "subdomain matching in routes",
    "preserve context after an exception", "instance folder path", "trailing slash redirect",
    "tagged json serializer", "g object per request", "cli group with app context", "debug mode reloader",
    "max content length request too large", "cookie samesite attribute", "abort with custom response",
    "make_response from a tuple", "view decorators order", "provide automatic options",
]
SENTENCES = [
    "the cause is a missing check when the value is None", "tried caching the result; it went stale after reload",
    "the order of registration matters here", "this breaks when the app runs under a prefix",
    "the error handler swallows the original traceback", "the cookie is written only when modified is set",
    "the timeout comes from the config, not the argument", "encoding falls back to latin-1 for headers",
    "the context is popped before teardown callbacks run", "a redirect loses the query string",
    "thread-local state leaks between tests", "the signal fires twice during a nested render",
    "the default changed between versions", "the path is joined without normalising dots",
    "the test client does not merge environ overrides", "decorator order hides the endpoint name",
    "json dumps sorts keys only when configured", "the reloader starts two processes",
    "etag comparison ignores weak validators", "instance path is computed from the import name",
    "subdomain matching needs SERVER_NAME", "async views need the extra installed",
    "the generator runs after the context is gone", "options responses skip the view",
    "max length is checked only for form data", "samesite is ignored for session cookies",
    "abort raises before the response hooks run", "url_for needs an app context here",
    "blueprints copy the error handlers at registration", "config keys must be upper case",
]
WORDS = {"rca": "root cause", "failure": "failed attempt", "insight": "worth knowing"}


def definitions() -> None:
    print(__doc__.split("Run:")[0].strip(), "\n")


def fresh_copy(base: Path, name: str, reuse: bool = False) -> Path:
    dst = OUT / "runs" / name
    if reuse and (dst / "deltalog").exists():
        return dst
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(base, dst, ignore=shutil.ignore_patterns("deltalog", "cli.secret"))
    return dst


def write_notes(store: Path, n: int, seed: int = 1) -> float:
    """N unmerged notes in the store's delta log, as remember writes them; returns seconds."""
    from stratum import notes as N
    from stratum.deltalog import DeltaLog
    from stratum.embedder import LazyEmbedder, embedder_for_store
    from stratum.notevectors import encode_vector
    from stratum.overlay import vector_key
    from stratum.shard import Shard
    from stratum.store import Store
    from stratum.textprep import embed_text

    if n == 0:
        return 0.0
    t0 = time.perf_counter()
    sh = Shard(Store(store))
    # the store's own model, as remember embeds: a note vector of another model is re-embedded by
    # the server in the background (until session 6 this used the default model on a MiniLM
    # store, so every search round ran beside a thread re-embedding all N notes)
    emb = embedder_for_store(sh.manifest.embedding, LazyEmbedder())
    key = vector_key(emb)
    code_ids = [i for i, k in zip(sh.col("id").array.to_pylist(), sh.col("kind").array.to_pylist())
                if k in ("function", "method", "class", "file")]
    rng = random.Random(seed)
    log = DeltaLog(store / "deltalog")
    kinds = ("rca", "failure", "insight")
    for start in range(0, n, 64):
        bodies = []
        for i in range(start, min(n, start + 64)):
            kind = kinds[i % 3]
            about = rng.sample(code_ids, 1 + (i % 2))
            targets = N.validate(kind, "x", about, "bench-agent", resolve=sh.code.resolve)
            t = targets[0]
            text = f"{WORDS[kind]} in {t.qualname or t.path} ({t.path}): {rng.choice(SENTENCES)} #{i}"
            bodies.append(N.note_body(kind, text, targets, f"bench-agent-{i % 7}", session=f"bench-{i // 100}",
                                      model="bench-model", commit=sh.manifest.indexed_commit))
        vecs = emb.embed([embed_text({"kind": b["kind"], "path": b["about"][0]["path"], "tags": [], "doc": b["text"]})
                          for b in bodies])
        log.append_many([("note", {**encode_vector(v, key), **b}) for v, b in zip(vecs, bodies)])
    log.seal()
    return time.perf_counter() - t0


def settings(specs: list[str]) -> list[tuple[object, str, object, object]]:
    """``--ab`` specs as (module, name, this tree's value, the reference's value)."""
    import importlib

    out = []
    for spec in specs:
        target, value = spec.split("=", 1)
        mod_name, name = target.rsplit(".", 1)
        mod = importlib.import_module(mod_name if mod_name.startswith("stratum") else f"stratum.{mod_name}")
        if not hasattr(mod, name):
            raise SystemExit(f"--ab {spec}: {mod.__name__} has no {name}")
        out.append((mod, name, getattr(mod, name), eval(value, {})))
    return out


def use(ab: list, variant: str) -> None:
    for mod, name, this, ref in ab:
        setattr(mod, name, this if variant == "this" else ref)


def search_latency(stores: dict[int, Path], rounds: int, ab: list | None = None) -> dict[int, dict]:
    """Every case's Tools open at once and the queries interleaved across them (query 1 on each
    store, then query 2 ...), so a load change on the shared machine hits every case alike.
    With ``ab`` (``settings``), each call also as the reference, in turn."""
    from stratum.search import ExtraDoc
    from stratum.tools import Tools

    from stratum import notethreads

    ab = ab or []
    variants = ["this", "ref"] if ab else ["this"]
    notethreads.prepare_kernels()                   # as stratum serve does
    cases = {}
    for n, store in stores.items():
        t0 = time.perf_counter()
        tools = Tools.open([str(store)])
        s = tools.open_session(author="bench").data["session"]
        tools.search(s, QUERIES[0], page_size=10)   # model load
        first = []
        for q in QUERIES[1:]:                       # warm-up: the first call of each query
            t1 = time.perf_counter()
            tools.search(s, q, page_size=10)
            first.append((time.perf_counter() - t1) * 1e3)
        if ab:                                      # the reference's warm-up (its own caches)
            use(ab, "ref")
            for q in QUERIES:
                tools.search(s, q, page_size=10)
            use(ab, "this")
        ov = next(iter(tools.overlays.values()))
        ov.index.wait_graph()                       # the notes' HNSW graph (built in the background)
        sh = ov.shard
        view = ov.search_docs()
        docs = [ExtraDoc(nid, node["full"], ov.index.vectors[ov.index.slot[nid]], node["kind"], node["path"], "")
                for nid, node in ov._nodes.items() if view.eligible[ov.index.slot[nid]]]
        cases[n] = {"tools": tools, "s": s, "ov": ov, "searcher": sh.warm.searcher, "docs": docs,
                    "open_and_warm_s": time.perf_counter() - t0, "exhaustive_ms": [], "first_ms": first,
                    **{v: {"tools_ms": [], "searcher_ms": [], "note_hits": 0} for v in variants}}
    for c in cases.values():
        c["load"] = os.getloadavg()
    try:
        for rnd in range(rounds):
            for qi, q in enumerate(QUERIES):
                for c in cases.values():
                    for v in (variants if (qi + rnd) % 2 == 0 else variants[::-1]):
                        use(ab, v)
                        m = c[v]
                        t = time.perf_counter()
                        r = c["tools"].search(c["s"], q, page_size=10)
                        m["tools_ms"].append((time.perf_counter() - t) * 1e3)
                        m["note_hits"] += sum(1 for it in r.items if it.kind in ("rca", "failure", "insight"))
                        t = time.perf_counter()
                        c["searcher"].search(q, limit=11, extra_docs=c["ov"].search_docs())
                        m["searcher_ms"].append((time.perf_counter() - t) * 1e3)
        use(ab, "this")
        for q in QUERIES[:10]:                      # exhaustive: one pass of 10 queries (it is slow)
            for c in cases.values():
                t = time.perf_counter()
                c["searcher"].search(q, limit=11, extra_docs=c["docs"])
                c["exhaustive_ms"].append((time.perf_counter() - t) * 1e3)
    finally:
        for c in cases.values():
            c["tools"].close()
    out = {}
    for n, c in cases.items():
        for v in variants:
            m = c[v]
            t = sorted(m["tools_ms"])
            res = {"p50_ms": statistics.median(t), "p90_ms": t[int(0.9 * (len(t) - 1))],
                   "p95_ms": t[int(0.95 * (len(t) - 1))], "first_pass_p50_ms": statistics.median(c["first_ms"]),
                   "calls": len(t), "load_before": c["load"][0], "load_after": os.getloadavg()[0],
                   "searcher_p50_ms": statistics.median(m["searcher_ms"]),
                   "exhaustive_p50_ms": statistics.median(c["exhaustive_ms"]),
                   "note_items_per_page": m["note_hits"] / len(t), "open_and_warm_s": c["open_and_warm_s"],
                   "unmerged": c["ov"].count(), "graph_size": c["ov"].index.graph_size}
            if v == "ref":      # geometric mean: a pair's first call is the colder one, in turn
                res["this_over_ref"] = statistics.geometric_mean(
                    a / b for a, b in zip(c["this"]["tools_ms"], m["tools_ms"]))
                res["searcher_this_over_ref"] = statistics.geometric_mean(
                    a / b for a, b in zip(c["this"]["searcher_ms"], m["searcher_ms"]))
                out[n]["ref"] = res
            else:
                out[n] = res
    return out


def restart_to_first_answer(store: Path) -> dict:
    from serving.client import Client

    t0 = time.perf_counter()
    errf = open(OUT / "serve.log", "a")
    proc = subprocess.Popen([sys.executable, "-m", "stratum.cli", "serve", "--store", str(store), "--port", "0",
                             "--grace", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=errf, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    errf.close()
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 300)
        line = proc.stdout.readline() if ready else ""
        if "serving" not in line:
            raise RuntimeError(f"server did not start: {line!r}")
        listening = time.perf_counter() - t0
        address = line.strip().rsplit(" ", 1)[-1]
        with Client(address, timeout=120) as c:
            c.wait_ready(120)
            s = c.open_session(author="bench").data["session"]
            r = c.search(s, "session cookie is not saved", page_size=10)
        first = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        proc.stdout.close()
    return {"listening_s": listening, "first_answer_s": first, "items": len(r.items)}


def cli_remember(store: Path) -> dict:
    from stratum.tools import Tools

    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "remember", "insight",
                        "The CLI remember timing note: url rules are matched in registration order.",
                        "--about", "src/flask/app.py", "--store", str(store), "--json"],
                       cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    t0 = time.perf_counter()
    tools = Tools.open([str(store)])
    try:
        opened = time.perf_counter() - t0
        s = tools.open_session(author="bench").data["session"]
        t1 = time.perf_counter()
        tools.remember(s, "insight", "An in-process remember: the second one of this run.", ["src/flask/app.py"])
        remember = time.perf_counter() - t1
    finally:
        tools.close()
    return {"process_s": wall, "in_process_open_s": opened, "in_process_remember_s": remember}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default=str(OUT / "flask"))
    ap.add_argument("--counts", default="0,1000,10000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cli-at", type=int, default=3000, help="unmerged notes for the CLI remember case")
    ap.add_argument("--reuse", action="store_true", help="keep the notes written by an earlier run")
    ap.add_argument("--ab", action="append", default=[], metavar="MODULE.NAME=VALUE",
                    help="the reference: this tree with these constants (repeatable)")
    ap.add_argument("--search-only", action="store_true", help="no restart and CLI remember cases")
    args = ap.parse_args()
    definitions()
    ab = settings(args.ab)
    base = Path(args.store)
    if not (base / "manifest.json").exists():
        print(f"no store at {base}: stratum index benchmarks/.repos/flask --store {base}")
        return 2
    out = {"machine": f"{platform.node()} {platform.processor() or platform.machine()} {os.cpu_count()} CPUs, "
                      f"load {os.getloadavg()[0]:.1f}", "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "command": " ".join(sys.argv), "cases": {}, "ab": args.ab}
    counts = [int(c) for c in args.counts.split(",")]
    stores = {}
    for n in counts:
        store = stores[n] = fresh_copy(base, f"n{n}", args.reuse)
        wrote = 0.0 if args.reuse and (store / "deltalog").exists() else write_notes(store, n)
        out["cases"][n] = {"write_s": wrote}
    for n, res in search_latency(stores, args.rounds, ab).items():
        out["cases"][n]["search"] = res
    for n in () if args.search_only else (0, max(counts)):   # the notes' share of a restart: the difference
        out["cases"][n]["restart"] = restart_to_first_answer(stores[n])
    print(json.dumps(out["cases"], default=str), flush=True)
    out["cli_remember"] = []
    for n in () if args.search_only else (0, args.cli_at):   # with no notes: what a CLI process costs anyway
        store = fresh_copy(base, f"cli{n}", args.reuse and n > 0)
        if n and not (store / "deltalog").exists():
            write_notes(store, n)
        out["cli_remember"].append({"unmerged": n, **cli_remember(store)})
    print(json.dumps({"cli_remember": out["cli_remember"]}), flush=True)
    if ab:
        print("\nreference (ref): this tree with " + ", ".join(args.ab))
    print("\n| unmerged notes | search p50 ms | p90 ms | p95 ms | x no notes | first pass p50 ms | searcher p50 ms "
          "| x no notes | exhaustive p50 ms | note items / page |" + (" this / ref (per call, geometric mean) |" if ab else ""))
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|" if ab else ""))
    for variant in ("this", "ref") if ab else ("this",):
        zero = out["cases"].get(0, {}).get("search", {})
        zero = zero.get("ref", {}) if variant == "ref" else zero
        p0, s0 = zero.get("p50_ms"), zero.get("searcher_p50_ms")
        for n, c in out["cases"].items():
            s = c["search"]["ref"] if variant == "ref" else c["search"]
            ratio = f"{s['p50_ms'] / p0:.2f}" if p0 else "-"
            sratio = f"{s['searcher_p50_ms'] / s0:.2f}" if s0 else "-"
            per_call = (f" {c['search']['ref']['this_over_ref']:.3f} (searcher "
                        f"{c['search']['ref']['searcher_this_over_ref']:.3f}) |" if variant == "ref" else " |") \
                if ab else ""
            print(f"| {n:,}{' ref' if variant == 'ref' else ''} | {s['p50_ms']:.2f} | {s['p90_ms']:.2f} "
                  f"| {s['p95_ms']:.2f} | {ratio} | {s['first_pass_p50_ms']:.2f} | {s['searcher_p50_ms']:.2f} "
                  f"| {sratio} | {s['exhaustive_p50_ms']:.2f} | {s['note_items_per_page']:.1f} |{per_call}")
    s = next(iter(out["cases"].values()))["search"]
    print(f"load average (1 min) during the search rounds: {s['load_before']:.1f} at the start, "
          f"{s['load_after']:.1f} at the end")
    for n, c in out["cases"].items():
        if "restart" in c:
            r = c["restart"]
            print(f"restart with {n:,} unmerged notes: listening {r['listening_s']:.1f} s, first answer "
                  f"{r['first_answer_s']:.1f} s")
    for c in out["cli_remember"]:
        print(f"CLI remember with {c['unmerged']:,} unmerged notes: process {c['process_s']:.2f} s; in process: "
              f"open {c['in_process_open_s']:.2f} s, remember {c['in_process_remember_s']:.3f} s")
    (OUT / "results.json").write_text(json.dumps(out, indent=1, default=str))
    print(f"\nresults: {OUT / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
