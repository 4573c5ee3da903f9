"""Parse throughput: our whole parse stage vs bare tree-sitter parsing of the same files.

Definitions (printed at start):
- files: what the index would parse. For a git repository: pipeline.files.discover (gitignore,
  vendored, lockfiles, generated, oversized ... skipped) then read_source's content checks, keeping
  files in a language we parse. For the standard library (not a git repository): every .py file
  under the running interpreter's stdlib directory, without site-packages and test directories,
  through the same content checks. Bytes are read into memory first: no disk I/O is timed.
- bare: languages.parser(lang).parse(data) for each file: tree-sitter building the syntax tree,
  nothing else.
- ours: pipeline.parse.parse_file(repo, path, data) for each file: the tree, the tags query,
  nodes with qualified names, spans, signatures, docs, the three detail levels with exact token
  counts (cl100k_base), content hashes, contains edges and raw imports.
- one core: both loops run in this one process, back to back (bare, then ours), --runs pairs per
  sample. CPU seconds of the process (time.process_time) are reported beside wall seconds; rates
  use the median CPU seconds over the runs, which depend far less than wall time on what else
  the (shared) machine runs.
- ratio: ours / bare seconds of the same pair (same files, same moment), median over the pairs
  (lower is better); CPU and wall ratios are given.
- with --workers N (N > 1): ours again, in N worker processes (concurrent.futures), wall time.
- with --breakdown: over the repository samples together, CPU seconds (fastest of --runs) of the
  components of ours measured alone: the parse, the tags query, one tokenization of each file,
  tokenizing every node's summary and api texts; the rest of ours is Python.

Usage: .venv/bin/python benchmarks/parse_throughput.py [--repos flask requests] [--no-stdlib]
       [--runs 5] [--workers 2] [--breakdown]
Repositories are clones under benchmarks/.repos/<name>. Results: benchmarks/results/parse_throughput.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pipeline import languages  # noqa: E402
from pipeline.files import content_skip_reason, discover, read_source  # noqa: E402
from pipeline.parse import parse_file  # noqa: E402
from stratum.config import ParseConfig  # noqa: E402

DEFINITIONS = __doc__.split("Definitions (printed at start):\n", 1)[1].split("\nUsage:", 1)[0]
STDLIB_SKIP_DIRS = {"site-packages", "test", "tests", "idle_test"}


def repo_files(root: Path, cfg: ParseConfig) -> list[tuple[str, str, bytes]]:
    out = []
    for sf in discover(root, cfg).files:
        if sf.language is None:
            continue
        src = read_source(root, sf, cfg)
        if src.data is not None:
            out.append((sf.path, languages.detect(sf.path, src.data), src.data))
    return out


def stdlib_files(cfg: ParseConfig) -> tuple[Path, list[tuple[str, str, bytes]]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if STDLIB_SKIP_DIRS & set(rel.parts[:-1]) or p.is_symlink():
            continue
        data = p.read_bytes()
        if len(data) <= cfg.max_file_bytes and content_skip_reason(data, cfg) is None:
            out.append((rel.as_posix(), "python", data))
    return root, out


def bare(files) -> None:
    for _, lang, data in files:
        languages.parser(lang).parse(data)


def ours(files, repo: str = "bench") -> tuple[int, int]:
    nodes = tokens = 0
    for path, _, data in files:
        pf = parse_file(repo, path, data)
        nodes += len(pf.nodes)
        tokens += sum(n["full_tokens"] for n in pf.nodes if n["kind"] == "file")
    return nodes, tokens


def _ours_chunk(chunk) -> tuple[int, int]:
    return ours(chunk)


def timed(fn, *args):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0, time.process_time() - c0


def warm_up(files) -> None:
    """Load every grammar, query and the tokenizer once (one-time costs are not throughput)."""
    seen = set()
    for path, lang, data in files:
        if lang not in seen:
            seen.add(lang)
            parse_file("warm", path, data[:2000])


def measure(name: str, files, runs: int, workers: int) -> dict:
    warm_up(files)
    mb = sum(len(d) for _, _, d in files) / 1e6
    pairs = []
    for _ in range(runs):
        _, b_wall, b_cpu = timed(bare, files)
        (n_nodes, n_tokens), o_wall, o_cpu = timed(ours, files)
        pairs.append((b_cpu, b_wall, o_cpu, o_wall))
    med = statistics.median
    b_cpu, b_wall = med(p[0] for p in pairs), med(p[1] for p in pairs)
    o_cpu, o_wall = med(p[2] for p in pairs), med(p[3] for p in pairs)
    row = {
        "sample": name, "files": len(files), "mb": round(mb, 3), "nodes": n_nodes, "file_tokens": n_tokens,
        "runs": runs, "bare_cpu_s": round(b_cpu, 3), "bare_wall_s": round(b_wall, 3),
        "ours_cpu_s": round(o_cpu, 3), "ours_wall_s": round(o_wall, 3),
        "bare_files_s": round(len(files) / b_cpu, 1), "bare_mb_s": round(mb / b_cpu, 2),
        "ours_files_s": round(len(files) / o_cpu, 1), "ours_mb_s": round(mb / o_cpu, 2),
        "ratio_cpu": round(med(p[2] / p[0] for p in pairs), 2),
        "ratio_wall": round(med(p[3] / p[1] for p in pairs), 2),
        "languages": sorted({lang for _, lang, _ in files}),
    }
    if workers > 1:
        chunks = [files[i::workers] for i in range(workers)]
        with ProcessPoolExecutor(workers) as ex:
            list(ex.map(warm_up, chunks))
            t0 = time.perf_counter()
            list(ex.map(_ours_chunk, chunks))
            wall = time.perf_counter() - t0
        row.update({"workers": workers, "ours_parallel_wall_s": round(wall, 3),
                    "ours_parallel_files_s": round(len(files) / wall, 1),
                    "ours_parallel_mb_s": round(mb / wall, 2)})
    return row


def breakdown(files, runs: int) -> dict:
    import tree_sitter as ts

    from stratum.tokens import encoding

    warm_up(files)
    enc = encoding(ParseConfig().token_encoding)
    levels = [t for p, _, d in files for n in parse_file("b", p, d).nodes for t in (n["summary"], n["api"])]
    trees = [(lang, languages.parser(lang).parse(d)) for _, lang, d in files]

    def cpu_best(fn) -> float:
        return min(timed(fn)[2] for _ in range(runs))

    out = {
        "parse": cpu_best(lambda: bare(files)),
        "query": cpu_best(lambda: [list(ts.QueryCursor(languages.query(lang)).matches(t.root_node))
                                   for lang, t in trees]),
        "file_encode": cpu_best(lambda: [enc.encode_to_numpy(d.decode("utf-8", "replace"), disallowed_special=())
                                         for _, _, d in files]),
        "levels_encode": cpu_best(lambda: [enc.encode_ordinary(t) for t in levels if t]),
        "ours": cpu_best(lambda: ours(files)),
    }
    out["python"] = out["ours"] - sum(v for k, v in out.items() if k != "ours")
    return {k: round(v, 3) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repos", nargs="*", default=["flask", "requests"])
    ap.add_argument("--no-stdlib", action="store_true")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--breakdown", action="store_true")
    args = ap.parse_args()
    print("Definitions:\n" + DEFINITIONS)
    cfg = ParseConfig()
    samples = []
    for name in args.repos:
        root = HERE / ".repos" / name
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        samples.append((f"{name}@{head[:10]}", repo_files(root, cfg)))
    if not args.no_stdlib:
        root, files = stdlib_files(cfg)
        samples.append((f"stdlib {platform.python_version()}", files))
    rows = []
    for name, files in samples:
        row = measure(name, files, args.runs, args.workers)
        rows.append(row)
        print(json.dumps(row))
    machine = {"platform": platform.platform(), "python": platform.python_version(),
               "cpus": os.cpu_count(), "processor": platform.processor() or platform.machine()}
    print("\n| sample | files | MB | bare files/s | bare MB/s | ours files/s | ours MB/s | ours/bare (CPU) | ours/bare (wall) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['sample']} | {r['files']} | {r['mb']:.2f} | {r['bare_files_s']} | {r['bare_mb_s']} | "
              f"{r['ours_files_s']} | {r['ours_mb_s']} | {r['ratio_cpu']}x | {r['ratio_wall']}x |")
    if args.workers > 1:
        print(f"\n| sample | ours, {args.workers} processes: files/s | MB/s | wall s |")
        print("|---|---:|---:|---:|")
        for r in rows:
            print(f"| {r['sample']} | {r['ours_parallel_files_s']} | {r['ours_parallel_mb_s']} | "
                  f"{r['ours_parallel_wall_s']} |")
    result = {"machine": machine, "command": " ".join(sys.argv), "rows": rows}
    if args.breakdown:
        repo_samples = [f for name, files in samples if not name.startswith("stdlib") for f in files]
        parts = breakdown(repo_samples, args.runs)
        result["breakdown"] = parts
        print(f"\nbreakdown over the repository samples ({len(repo_samples)} files), CPU s:")
        print("| component | CPU s | share of ours |\n|---|---:|---:|")
        for k in ("parse", "query", "file_encode", "levels_encode", "python", "ours"):
            print(f"| {k} | {parts[k]} | {100 * parts[k] / parts['ours']:.0f}% |")
    out = HERE / "results" / "parse_throughput.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"\nmachine: {machine}\nwritten: {out.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
