"""`stratum cochange PATH` and `stratum history`: the history memory from the command line.

Thin over stratum.analysis (Polars is imported inside the handlers, so `stratum --help` stays fast).
Paths are printed terminal-safe, one per line (``stratum.cli.one_line``).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from stratum.cli import add_common, emit, local_store, one_line, whole
from stratum.cli.herepaths import path_from_here
from stratum.errors import InvalidArgument, ResourceExhausted
from stratum.limits import echo


def register(sub) -> None:
    p = sub.add_parser("cochange", help="files that change together with PATH (from the git history)")
    p.add_argument("path", help="a file of the repository (repo-relative, or a path on disk inside it)")
    p.add_argument("--top", type=whole(0, "--top"), default=20, metavar="N", help="partners to show (default 20; 0: all)")
    p.add_argument("--parquet", metavar="OUT", default=None, help="also write all partners to this Parquet file")
    add_common(p)
    p.set_defaults(func=run_cochange)

    p = sub.add_parser("history", help="history summary: commits, authors, churn, hotspots, top coupled pairs")
    p.add_argument("--top", type=whole(1, "--top"), default=10, metavar="N", help="hotspots and pairs to show (default 10)")
    p.add_argument("--parquet", metavar="OUT", default=None,
                   help="export commits, file_changes, cochange (and symbol_cochange) as OUT/<name>.parquet")
    add_common(p)
    p.set_defaults(func=run_history)


def run_cochange(args) -> int:
    import polars as pl

    from stratum import analysis as A

    store = local_store(args.store)
    snap = A.snapshot(store)
    # one reading of a typed path, shared with the library (a clear error, "did you mean", a rename);
    # a symbol (path::Func, as walk and get take) is answered for its file, saying so (a probe)
    typed, sym = args.path, ""
    if "::" in typed:
        typed, _, sym = typed.partition("::")
    path = A.current_path(snap, _from_here(typed if sym and typed else args.path, store, snap.manifest.repo_path))
    partners = A.partners(snap, path).collect()
    # a partner the index skipped (vendored, a lockfile, binary...) has history but no node: said
    # here, as `walk --edge cochange` (nodes only) cannot list it (the counts differed, unexplained)
    indexed = A.indexed_files(snap)
    partners = partners.with_columns(pl.col("partner").is_in(indexed).alias("indexed") if indexed is not None
                                     else pl.lit(True).alias("indexed"))     # a store of history only
    unindexed = partners.height - int(partners["indexed"].sum())
    if args.parquet:
        _write_partners(partners, args.parquet)
    shown = partners.head(args.top) if args.top else partners
    rows = shown.to_dicts()
    obj = {"path": path, "total": partners.height, "not_indexed": unindexed, "returned": len(rows), "partners": rows,
           "version": snap.manifest.version}
    said = f"co-change history is per file: answering for {path}, the file of {sym}" if sym else ""
    if said:
        obj["note"] = said
    lines = ([f"({one_line(said)})"] if said else []) + [f"{one_line(path)}: {partners.height} co-changing files (support >= min_support; merges and bulk "
             f"commits skipped), showing {len(rows)}" + (f"; {unindexed} of them not indexed (the index skipped them: "
                                                         f"`stratum walk {shlex.quote(one_line(path))} --edge cochange` lists the others)"
                                                         if unindexed else "")]
    if rows:
        lines.append(f"  {'partner':<48} {'support':>7} {'P(p|f)':>7} {'P(f|p)':>7} {'lift':>7}  last")
        for r in rows:
            last = r["last_time"].date().isoformat() if r["last_time"] else "-"
            lines.append(f"  {one_line(r['partner']):<48} {r['support']:>7} {r['confidence']:>7.2f} "
                         f"{r['reverse_confidence']:>7.2f} {r['lift']:>7.2f}  {last}"
                         + ("" if r["indexed"] else "  (not indexed)"))
    if len(rows) < partners.height:
        lines.append(f"  ... {partners.height - len(rows)} more (--top 0 for all, --parquet OUT to export)")
    if args.parquet:
        lines.append(f"wrote {partners.height} rows to {args.parquet}")
    emit(args, obj, "\n".join(lines))
    return 0


def _write_partners(partners, out: str) -> None:
    """``--parquet OUT``: the partners as one Parquet file, its folder made as `history --parquet`
    makes its own, written beside and renamed into place (a failed write leaves an earlier file);
    a name that cannot be written is the argument's fault, said as such (it was a ``store_error``,
    which reads as a damaged index: a probe), a full disk a ``resource_exhausted`` (through Polars
    it was a ComputeError traceback: a review). A target that exists and is no regular file (a
    device, a pipe) is written in place."""
    import errno

    import pyarrow as pa
    import pyarrow.parquet as pq

    from stratum.embedder import atomic_write

    buf = pa.BufferOutputStream()       # one file's partners: small; Python's own write says ENOSPC
    pq.write_table(partners.to_arrow(), buf)       # (pyarrow's file sink dropped a failed close: exit 0)
    data, dest = buf.getvalue().to_pybytes(), Path(out)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.exists() and not dest.is_file():
            dest.write_bytes(data)
        else:
            atomic_write(dest, lambda tmp: Path(tmp).write_bytes(data))
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise ResourceExhausted(f"cannot write the partners to {echo(out)}: {e.strerror or 'no space left'}") \
                from None
        raise InvalidArgument(f"cannot write the partners to {echo(out)}: {e.strerror or e} (name a file)") from None


def _from_here(typed: str, store: str, recorded: str) -> str:
    """``typed`` read from the working directory as the query commands read a path
    (``stratum.cli.herepaths.path_from_here``): from packages/admin, src/api.ts is packages/admin/src/api.ts,
    not packages/web's. ``current_path`` reads a path that exists from here once more, so one made
    repository-relative that also exists from here (shop/shop/cart.py) goes to it whole."""
    from stratum.freshness import repo_at

    rel = path_from_here(typed, [repo_at(store, recorded)])
    if rel is None:
        return typed
    return os.path.join(recorded, rel) if recorded and os.path.lexists(rel) else rel


def run_history(args) -> int:
    from stratum import analysis as A

    snap = A.snapshot(local_store(args.store))
    s = A.summary(snap)
    hot = A.hotspots(snap, n=args.top).collect().to_dicts()
    pairs = A.top_pairs(snap, n=args.top).collect().to_dicts()
    # typed as schema.DATASETS; an earlier export's file of a dataset this version lacks is removed
    written, removed = A.export_parquet(snap, args.parquet) if args.parquet else ([], [])
    obj = {"summary": s, "hotspots": hot, "top_pairs": pairs, "parquet": written, "parquet_removed": removed}
    lines = [
        f"history of {one_line(snap.manifest.repo_name)} (store version {s['version']}, mined to "
        f"{(s['history_watermark'] or '-')[:12]})",
        f"  commits {s['commits']} ({s['merges']} merges, {s['bugfix_commits']} bug-fix by message rule), "
        f"{s['authors']} authors, {s['first_commit'] or '-'} .. {s['last_commit'] or '-'}",
        f"  file changes {s['file_changes']} ({s['renames']} renames, {s['binary_changes']} binary), "
        f"churn {s['churn']} lines, {s['files_touched_still_present']} current files with history",
        f"  co-change pairs {s['cochange_pairs']} (max support {s['max_support'] or 0}), "
        f"symbol pairs {s['symbol_cochange_pairs']}",
    ]
    if hot:
        lines.append(f"hotspots (churn = lines added + deleted), top {len(hot)}:")
        lines += [f"  {one_line(h['path']):<52} churn {h['churn']:>7}  commits {h['commits']:>5}  authors {h['authors']:>3}"
                  for h in hot]
    if pairs:
        lines.append(f"most coupled pairs (by support), top {len(pairs)}:")
        lines += [f"  {one_line(p['a'])} <-> {one_line(p['b'])}  support {p['support']}  conf {p['confidence_ab']:.2f}/"
                  f"{p['confidence_ba']:.2f}  lift {p['lift']:.2f}" for p in pairs]
    lines += [f"wrote {w}" for w in written]
    lines += [f"removed {r} (an earlier export's; this version has no such data)" for r in removed]
    emit(args, obj, "\n".join(lines))
    return 0


__all__ = ["register", "run_cochange", "run_history"]
