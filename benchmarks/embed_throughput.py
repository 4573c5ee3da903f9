"""Embedding throughput (nodes/s) and quality: our int8 and fp32 MiniLM graphs, onnxruntime's own
dynamic int8 quantiser, and the numpy reference, on real code, in one run.

    .venv/bin/python benchmarks/embed_throughput.py [--nodes 256] [--threads 2] [--rounds 2]

Prints its definitions first; the table in docs/bench/embed.md comes from this script's output.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.parse import parse_file  # noqa: E402
from stratum import minilm_onnx as M  # noqa: E402
from stratum.config import ParseConfig  # noqa: E402
from stratum.embedder import BATCH_TOKENS, MiniLMEmbedder, build_onnx, default_model_dir  # noqa: E402
from stratum.textprep import DEFAULT_MAX_CHARS, embed_text  # noqa: E402

DEFINITIONS = """\
Definitions (embed_throughput)
- Nodes: function and method nodes parsed by pipeline.parse (real tree-sitter) from the Python
  standard library of this interpreter (Lib/*.py, sorted), sampled with seed 0; each node's text is
  stratum.textprep.embed_text (path + qualified name + signature + docstring + start of body,
  cut at {max_chars} chars). Queries: 15 short search phrases (listed in the script).
- Full path: embed_text for every node + tokenise (tokenizers, truncate to 256 word pieces) + sort by
  length and pad per batch + onnxruntime run + scatter back to input order (the graph itself
  mean-pools and L2-normalises). This is MiniLMEmbedder.embed, as the pipeline calls it.
- Bare forward: session.run only, over the same batches tokenised and padded beforehand.
- Timing is paired: the nodes are cut into chunks of --chunk (64, as the pipeline's Ray batches);
  for each chunk every runtime runs its full path then its bare forward, the runtimes' order rotating
  from chunk to chunk, so background load on a shared machine falls on all of them alike.
  nodes/s = nodes / summed wall seconds; cpu ms/node = process CPU time (all threads) / nodes.
- Runtimes: int8 = our graph (per-channel 7-bit weights, per-token 8-bit activations, SmoothQuant
  channel scales); fp32 = our graph, fp32 weights; ort-int8 = onnxruntime.quantization.quantize_dynamic
  (per_channel=True, QUInt8 weights, MatMul only) applied to our fp32 graph, for comparison;
  numpy = stratum.minilm_onnx.reference_forward (fp32 numpy/OpenBLAS), on the first --numpy-nodes nodes.
- Quality: cosine of each runtime's vector to fp32's, over the nodes and over the queries; overlap@10 =
  mean share of fp32's top-10 nodes (by cosine to each query) that the runtime also ranks top-10.
- Layouts: the int8 full path in this process with --threads onnxruntime threads, against --threads
  worker processes (spawned, one onnxruntime thread each, like Ray actors with threads_per_actor=1)
  that each embed an equal share of every chunk; chunks alternate which layout runs first.
- Batching: texts sorted by length, cut into runs of <= --batch-tokens padded word pieces and <= 64
  texts (MiniLMEmbedder.batches); the last table sweeps that budget (16384 = always 64 texts per run).
"""

QUERIES = ["x", "parse config", "where is the retry logic", "how are blueprints registered", "url routing",
           "json decode error handling", "session cookie signing", "template rendering", "database migration",
           "fix the crash on empty input", "logging setup", "command line entry point",
           "thread pool executor shutdown", "HTTP redirect", "test fixtures"]


def stdlib_nodes(n: int, seed: int = 0) -> list[dict]:
    root = Path(sysconfig.get_paths()["stdlib"])
    nodes = []
    cfg = ParseConfig()
    for p in sorted(root.glob("*.py")):
        data = p.read_bytes()
        if len(data) > cfg.max_file_bytes:
            continue
        nodes += [x for x in parse_file("stdlib", p.name, data, cfg).nodes if x["kind"] in ("function", "method")]
    random.Random(seed).shuffle(nodes)
    return nodes[:n]


def machine() -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    import onnxruntime

    return (f"{cpu}, {os.cpu_count()} logical CPUs, Linux {platform.release()}, Python {platform.python_version()}, "
            f"onnxruntime {onnxruntime.__version__}, numpy {np.__version__}")


def timed(fn) -> tuple[float, float]:
    t, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t, time.process_time() - c


class OrtDynamic(MiniLMEmbedder):
    """Our embedder with the session swapped for onnxruntime's dynamically quantised fp32 graph."""

    def __init__(self, path: Path, threads: int, batch_tokens: int):
        super().__init__("fp32", threads=threads, batch_tokens=batch_tokens)
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        self.session = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        self.precision = "ort-int8"


def ort_dynamic_graph(tmp: Path) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = build_onnx(default_model_dir(), "fp32", tmp / "fp32.onnx")
    out = tmp / "ort-int8.onnx"
    quantize_dynamic(fp32, out, per_channel=True, weight_type=QuantType.QUInt8, op_types_to_quantize=["MatMul"])
    return out


_WORKER = None


def _worker_init(threads: int) -> None:
    global _WORKER
    _WORKER = MiniLMEmbedder("int8", threads=threads)


def _worker_embed(texts: list[str]) -> int:
    return len(_WORKER.embed(texts))


def layouts(nodes: list[dict], chunks: list[list[int]], cpus: int) -> None:
    """One process with `cpus` onnxruntime threads vs `cpus` processes with one thread each (what a
    Ray actor pool with threads_per_actor=1 does), on the same chunks, alternating."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    one = MiniLMEmbedder("int8", threads=cpus)
    walls = {"1 x %d threads" % cpus: 0.0, "%d x 1 thread" % cpus: 0.0}
    with ProcessPoolExecutor(cpus, mp_context=get_context("spawn"), initializer=_worker_init, initargs=(1,)) as ex:
        list(ex.map(_worker_embed, [["warm up"]] * cpus))
        for ci, chunk in enumerate(chunks):
            texts = [embed_text(nodes[i]) for i in chunk]
            runs = [("1 x %d threads" % cpus, lambda: one.embed(texts)),
                    ("%d x 1 thread" % cpus, lambda: list(ex.map(_worker_embed, [texts[k::cpus] for k in range(cpus)])))]
            for name, fn in (runs if ci % 2 == 0 else runs[::-1]):
                walls[name] += timed(fn)[0]
    n = sum(len(c) for c in chunks)
    print(f"\nint8 full path, process layout on {cpus} CPUs (each chunk split across the processes)")
    print("| layout | nodes/s |")
    print("|---|---|")
    for name, wall in walls.items():
        print(f"| {name} | {n / wall:.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=256)
    ap.add_argument("--numpy-nodes", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-tokens", type=int, default=BATCH_TOKENS)
    ap.add_argument("--sweep", default="256,512,1024,2048,16384",
                    help="padded word pieces per run for the int8 sweep ('' to skip)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=64, help="nodes per call, as EmbedConfig.batch_size")
    ap.add_argument("--layouts", action=argparse.BooleanOptionalAction, default=True,
                    help="compare 1 process x N threads with N processes x 1 thread")
    ap.add_argument("--dump-texts", metavar="JSON", help="write the node texts and queries (for embed_vs_torch.py) and exit")
    args = ap.parse_args()
    print(DEFINITIONS.format(max_chars=DEFAULT_MAX_CHARS))
    print("machine:", machine())
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    print(f"load average at start: {os.getloadavg()[0]:.1f}\n")

    nodes = stdlib_nodes(args.nodes)
    texts = [embed_text(n) for n in nodes]
    if args.dump_texts:
        Path(args.dump_texts).write_text(json.dumps({"texts": texts, "queries": QUERIES}))
        return

    # Cold build of both graphs into an empty cache dir (what the first index run pays once).
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        build = {}
        for prec in ("fp32", "int8"):
            t0 = time.perf_counter()
            build_onnx(default_model_dir(), prec, tmp / f"{prec}.onnx")
            build[prec] = (time.perf_counter() - t0, (tmp / f"{prec}.onnx").stat().st_size)
        t0 = time.perf_counter()
        (tmp / "ort").mkdir()
        ort_path = ort_dynamic_graph(tmp / "ort")
        build["ort-int8"] = (time.perf_counter() - t0 + build["fp32"][0], ort_path.stat().st_size)
        emb = {"int8": MiniLMEmbedder("int8", threads=args.threads, batch_tokens=args.batch_tokens),
               "fp32": MiniLMEmbedder("fp32", threads=args.threads, batch_tokens=args.batch_tokens),
               "ort-int8": OrtDynamic(ort_path, args.threads, args.batch_tokens)}
        t0 = time.perf_counter()
        MiniLMEmbedder("int8", threads=args.threads)
        warm_load = time.perf_counter() - t0

        ref = emb["fp32"]
        ids = ref.tokenize(texts)
        lens = np.array([len(x) for x in ids])
        nonspace = np.array([len("".join(t.split())) for t in texts])
        cut = np.mean([len(t) >= DEFAULT_MAX_CHARS - 40 for t in texts])
        print(f"nodes: {len(texts)}; word pieces per node: mean {lens.mean():.0f}, median {np.median(lens):.0f}, "
              f"p90 {np.percentile(lens, 90):.0f}; at the 256 limit: {np.mean(lens >= 256):.0%}; "
              f"cut by max_chars: {cut:.0%}; non-space chars per word piece {np.sum(nonspace) / np.sum(lens):.2f}")

        w, shape = M.load_weights(default_model_dir()), M.BertShape.from_config(default_model_dir())

        def numpy_embed(chunk_texts):
            for _, a, m in ref.batches(ref.tokenize(chunk_texts)):
                M.reference_forward(w, shape, a, m)

        runners = {name: (lambda t, e=e: e.embed(t), lambda bs, e=e: [e.forward(a, m) for _, a, m in bs])
                   for name, e in emb.items()}
        runners["numpy"] = (numpy_embed, lambda bs: [M.reference_forward(w, shape, a, m) for _, a, m in bs])
        tot = {name: {"full": [0.0, 0.0], "bare": [0.0, 0.0], "n": 0} for name in runners}
        vectors = {name: np.zeros((len(nodes), 384), np.float32) for name in emb}
        chunks = [list(range(i, min(i + args.chunk, len(nodes)))) for i in range(0, len(nodes), args.chunk)]
        k = 0
        for rnd in range(args.rounds):
            for ci, chunk in enumerate(chunks):
                names = list(runners)
                names = names[k % len(names):] + names[:k % len(names)]    # rotate who goes first
                k += 1
                chunk_batches = list(ref.batches([ids[i] for i in chunk]))
                np_chunk = chunk[:max(0, args.numpy_nodes - ci * args.chunk)]   # numpy: the first nodes only
                np_batches = list(ref.batches([ids[i] for i in np_chunk]))
                for name in names:
                    sub, sub_batches = (np_chunk, np_batches) if name == "numpy" else (chunk, chunk_batches)
                    if not sub:
                        continue
                    full_fn, bare_fn = runners[name]
                    out = {}
                    full = timed(lambda: out.setdefault("v", full_fn([embed_text(nodes[i]) for i in sub])))
                    bare = timed(lambda: bare_fn(sub_batches))
                    if name in vectors:
                        vectors[name][chunk] = out["v"]
                    t = tot[name]
                    t["n"] += len(sub)
                    for path, (wall, cpu) in (("full", full), ("bare", bare)):
                        t[path][0] += wall
                        t[path][1] += cpu

        qv = {name: e.embed(QUERIES) for name, e in emb.items()}
        print(f"\nthroughput ({args.threads} threads, batches of <= {args.batch_tokens} padded word pieces, "
              f"{len(chunks)} chunks x {args.rounds} rounds)")
        print("| runtime | nodes | full path nodes/s | bare forward nodes/s | full / bare | full cpu ms/node "
              "| graph build s | graph MB | cos to fp32 nodes mean / min | cos to fp32 queries mean / min "
              "| overlap@10 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        fp_n, fp_q = vectors["fp32"], qv["fp32"]
        top_fp = np.argsort(-(fp_q @ fp_n.T), axis=1)[:, :10]
        for name in ("int8", "fp32", "ort-int8", "numpy"):
            b = tot[name]
            n = b["n"]
            full_rate, bare_rate = n / b["full"][0], n / b["bare"][0]
            row = [name, str(n // args.rounds), f"{full_rate:.1f}", f"{bare_rate:.1f}", f"{full_rate / bare_rate:.2f}",
                   f"{1000 * b['full'][1] / n:.0f}"]
            if name in build:
                row += [f"{build[name][0]:.1f}", f"{build[name][1] / 1e6:.0f}"]
                cn = (vectors[name] * fp_n).sum(1)
                cq = (qv[name] * fp_q).sum(1)
                top = np.argsort(-(qv[name] @ vectors[name].T), axis=1)[:, :10]
                ov = np.mean([len(set(a) & set(b_)) / 10 for a, b_ in zip(top, top_fp)])
                row += [f"{cn.mean():.4f} / {cn.min():.4f}", f"{cq.mean():.4f} / {cq.min():.4f}", f"{ov:.2f}"]
            else:
                row += ["-", "-", "-", "-", "-"]
            print("| " + " | ".join(row) + " |")
        print(f"\nwarm load of the cached int8 graph (hash weights + session): {warm_load:.2f} s")

        if args.sweep:
            sizes = [int(x) for x in args.sweep.split(",")]
            print(f"\nint8 full path by batch budget ({args.threads} threads, <= 64 texts per run, interleaved per chunk)")
            print("| padded word pieces per run | code nodes/s | queries/s |")
            print("|---|---|---|")
            es = {bs: MiniLMEmbedder("int8", threads=args.threads, batch_tokens=bs) for bs in sizes}
            code = {bs: 0.0 for bs in sizes}
            qt = {bs: 0.0 for bs in sizes}
            for chunk in chunks:
                for bs in sizes:
                    code[bs] += timed(lambda: es[bs].embed([embed_text(nodes[i]) for i in chunk]))[0]
                    qt[bs] += timed(lambda: es[bs].embed(QUERIES * 4))[0]
            for bs in sizes:
                print(f"| {bs} | {len(nodes) / code[bs]:.1f} | {len(QUERIES) * 4 * len(chunks) / qt[bs]:.1f} |")
        if args.layouts:
            layouts(nodes, chunks, args.threads)
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
