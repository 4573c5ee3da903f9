"""`stratum index [PATH]`: parse, mine, embed and publish a new version of the store."""

from __future__ import annotations

import sys
import time

from stratum.cli import add_common, emit, resolve_store


def register(sub) -> None:
    p = sub.add_parser("index", help="index a repository (progress, then the run report)")
    p.add_argument("path", nargs="?", default=".", help="repository to index (default: .)")
    add_common(p)
    p.add_argument("--full", action="store_true", help="ignore incremental state; re-parse and re-mine all")
    p.add_argument("--ray-address", default=None, help="Ray cluster address (default: RAY_ADDRESS or local)")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs for a local Ray (default: all)")
    p.add_argument("--no-embed", action="store_true", help="skip embeddings (keyword search only)")
    p.add_argument("--symbols", action="store_true", help="also mine symbol-level co-change (slower)")
    p.add_argument("--max-file-bytes", type=int, default=None, help="skip files larger than this (default 1 MiB)")
    p.add_argument("--max-commit-files", type=int, default=None,
                   help="commits touching more files are skipped for co-change (default 30)")
    p.add_argument("--report", metavar="FILE", default=None, help="also write the JSON run report here")
    p.set_defaults(func=run)


def run(args) -> int:
    from dataclasses import replace

    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    cfg = IndexConfig(ray_address=args.ray_address, num_cpus=args.num_cpus, full=args.full)
    if args.no_embed:
        cfg = replace(cfg, embed=replace(cfg.embed, enabled=False))
    if args.symbols:
        cfg = replace(cfg, history=replace(cfg.history, symbols=True))
    if args.max_file_bytes:
        cfg = replace(cfg, parse=replace(cfg.parse, max_file_bytes=args.max_file_bytes))
    if args.max_commit_files:
        cfg = replace(cfg, history=replace(cfg.history, max_files_per_commit=args.max_commit_files))
    bar = ProgressBar(enabled=not args.json)
    rep = index_repository(args.path, resolve_store(args, args.path), cfg, progress=bar)
    bar.close()
    if args.report:
        with open(args.report, "w") as f:
            f.write(rep.to_json())
    emit(args, rep.to_dict(), rep.summary())
    return 0


class ProgressBar:
    """A one-line progress bar on stderr per stage (no dependency; quiet under --json)."""

    def __init__(self, enabled: bool = True, width: int = 30):
        self.enabled, self.width, self.stage, self._last = enabled, width, None, 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if stage == self.stage and done < total and now - self._last < 0.1:
            return
        if stage != self.stage and self.stage is not None:
            sys.stderr.write("\n")
        self.stage, self._last = stage, now
        frac = done / total if total else 1.0
        fill = int(self.width * frac)
        sys.stderr.write(f"\r{stage:>8} [{'#' * fill}{'.' * (self.width - fill)}] {done}/{total}")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.stage is not None:
            sys.stderr.write("\n")
            sys.stderr.flush()
