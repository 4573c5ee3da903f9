"""E1 of the paper: repositories against context windows, and text memory against KV-cache memory.

Definitions (printed with the results):

- **tokens of a repository**: cl100k_base tokens (tiktoken, exact) of every file the index would
  read: ``pipeline.files.discover`` (git's file list; gitignored, vendored, submodule, lockfile,
  generated, minified, binary-by-extension and oversized files out) then ``read_source`` (binary by
  content and generator headers out). A second count, ``tracked text``, takes every file git tracks
  that has no NUL in its first 8,000 bytes and is at most 1 MiB (closer to "the whole repository").
- **windows**: 200K and 1M tokens; the ratio is tokens / window.
- **KV-cache bytes per token** = 2 (K and V) x L layers x H_kv heads x d head-dim x 2 bytes (fp16),
  for the Llama-3.1 shapes 8B (L=32, H_kv=8, d=128), 70B (80, 8, 128), 405B (126, 8, 128).
- **store bytes per token**: the bytes on disk of a Stratum store of the repository (Lance datasets
  with every published version kept, warm indexes, delta log), divided by the repository's indexed
  tokens. Only with ``--store NAME=PATH`` (an existing store) or ``--index`` (builds one in a temp
  folder with the default pipeline settings).
- **1B tokens**: the paper's scale figure: bytes of 1e9 tokens as text (at the measured bytes per
  token of the repositories' source), as a Stratum store (at the measured store bytes per token), and
  as KV state for each model shape. TB here are 2^40 bytes (the paper's 119 / 298 / 469 figures).

Usage: .venv/bin/python benchmarks/e1_capacity.py [REPO ...] [--store NAME=PATH ...] [--index]
REPO: a name under benchmarks/.repos (default: every clone there) or a path.
Writes benchmarks/results/e1_summary.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pipeline.files import discover, read_source  # noqa: E402
from stratum.config import ParseConfig  # noqa: E402
from stratum.tokens import encoding  # noqa: E402

WINDOWS = {"200K": 200_000, "1M": 1_000_000}
SHAPES = {"8B": (32, 8, 128), "70B": (80, 8, 128), "405B": (126, 8, 128)}
PAPER = {"django": 6.2e6, "six repos (Django, Flask, Redis, requests, scikit-learn, Vue core)": 17.6e6}
PAPER_KV_TB_PER_1B = {"8B": 119, "70B": 298, "405B": 469}
TB = 2 ** 40


def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, dtype_bytes: int = 2) -> int:
    return 2 * layers * kv_heads * head_dim * dtype_bytes


def count_tokens(texts) -> int:
    enc = encoding()
    n = 0
    batch: list[str] = []
    for t in texts:
        batch.append(t)
        if len(batch) >= 256:
            n += sum(len(x) for x in enc.encode_ordinary_batch(batch))
            batch = []
    if batch:
        n += sum(len(x) for x in enc.encode_ordinary_batch(batch))
    return n


def indexed_texts(repo: Path, stats: dict):
    cfg = ParseConfig()
    disc = discover(repo, cfg)
    stats["files_indexed"] = 0
    stats["bytes_indexed"] = 0
    for sf in disc.files:
        src = read_source(repo, sf, cfg)
        if src.data is None:
            continue
        stats["files_indexed"] += 1
        stats["bytes_indexed"] += len(src.data)
        yield src.data.decode("utf-8", errors="replace")


def tracked_texts(repo: Path, stats: dict):
    out = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True, check=True).stdout
    stats["files_tracked_text"] = 0
    for rel in out.decode("utf-8", errors="surrogateescape").split("\0"):
        p = repo / rel
        if not rel or not p.is_file() or p.is_symlink() or p.stat().st_size > (1 << 20):
            continue
        data = p.read_bytes()
        if b"\0" in data[:8000]:
            continue
        stats["files_tracked_text"] += 1
        yield data.decode("utf-8", errors="replace")


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def build_store(repo: Path, dest: Path) -> Path:
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    index_repository(repo, dest, IndexConfig(num_cpus=2))
    return dest


def measure(name: str, repo: Path, store: Path | None) -> dict:
    t = time.perf_counter()
    row: dict = {"repo": name, "head": subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"],
                                                     capture_output=True, text=True).stdout.strip()}
    row["tokens_indexed"] = count_tokens(indexed_texts(repo, row))
    row["tokens_tracked_text"] = count_tokens(tracked_texts(repo, row))
    row["bytes_per_token_text"] = row["bytes_indexed"] / max(row["tokens_indexed"], 1)
    for w, n in WINDOWS.items():
        row[f"x_{w}_window"] = row["tokens_tracked_text"] / n
    if store is not None and store.exists():
        row["store_bytes"] = dir_bytes(store)
        row["store_bytes_per_token"] = row["store_bytes"] / max(row["tokens_indexed"], 1)
    row["seconds"] = time.perf_counter() - t
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repos", nargs="*")
    ap.add_argument("--store", action="append", default=[], help="NAME=PATH of an existing store")
    ap.add_argument("--index", action="store_true", help="build a store per repository in a temp folder")
    args = ap.parse_args(argv)
    repos_dir = HERE / ".repos"
    names = args.repos or sorted(p.name for p in repos_dir.iterdir() if (p / ".git").exists())
    stores = dict(s.split("=", 1) for s in args.store)
    print(__doc__.split("Usage:")[0])
    rows = []
    with tempfile.TemporaryDirectory(prefix="e1-") as tmp:
        for name in names:
            repo = Path(name) if os.path.sep in name else repos_dir / name
            store = Path(stores[repo.name]) if repo.name in stores else None
            if store is None and args.index:
                store = build_store(repo, Path(tmp) / repo.name)
            rows.append(measure(repo.name, repo, store))
            print(f"  {repo.name}: {rows[-1]['tokens_indexed']:,} indexed tokens", flush=True)
    kv = {m: kv_bytes_per_token(*s) for m, s in SHAPES.items()}
    text_bpt = sum(r["bytes_indexed"] for r in rows) / max(sum(r["tokens_indexed"] for r in rows), 1)
    with_store = [r for r in rows if "store_bytes" in r]
    store_bpt = (sum(r["store_bytes"] for r in with_store) / sum(r["tokens_indexed"] for r in with_store)
                 if with_store else None)
    per_1b = {"text_GB": 1e9 * text_bpt / 1e9,
              "store_GB": (1e9 * store_bpt / 1e9) if store_bpt else None,
              **{f"kv_{m}_TB": 1e9 * b / TB for m, b in kv.items()}}
    summary = {"machine_note": "token counts are exact and machine-independent", "rows": rows,
               "kv_bytes_per_token": kv, "text_bytes_per_token": text_bpt,
               "store_bytes_per_token": store_bpt, "one_billion_tokens": per_1b,
               "paper": {"tokens": PAPER, "kv_TB_per_1B": PAPER_KV_TB_PER_1B, "text_GB_per_1B": 4}}
    out = HERE / "results" / "e1_summary.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(summary, indent=2))

    print("\n| repo | head | files indexed | tokens indexed | tokens tracked text | x 200K | x 1M | store bytes/token |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        sb = f"{r['store_bytes_per_token']:.0f}" if "store_bytes_per_token" in r else "-"
        print(f"| {r['repo']} | {r['head'][:10]} | {r['files_indexed']:,} | {r['tokens_indexed']:,} | "
              f"{r['tokens_tracked_text']:,} | {r['x_200K_window']:.1f} | {r['x_1M_window']:.2f} | {sb} |")
    print("\n| memory of 1B tokens | ours (measured) | paper |")
    print("|---|---:|---:|")
    print(f"| as text | {per_1b['text_GB']:.1f} GB ({text_bpt:.2f} bytes/token) | ~4 GB |")
    if store_bpt:
        print(f"| as a Stratum store (Lance + warm indexes) | {per_1b['store_GB']:.0f} GB ({store_bpt:.0f} bytes/token) | - |")
    for m, b in kv.items():
        print(f"| as KV cache, {m} ({b:,} bytes/token) | {per_1b[f'kv_{m}_TB']:.0f} TB | {PAPER_KV_TB_PER_1B[m]} TB |")
    if store_bpt:
        print(f"\nKV bytes per token / store bytes per token: " +
              ", ".join(f"{m} {b / store_bpt:,.0f}x" for m, b in kv.items()))
    print(f"KV bytes per token / text bytes per token: " +
          ", ".join(f"{m} {b / text_bpt:,.0f}x" for m, b in kv.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
