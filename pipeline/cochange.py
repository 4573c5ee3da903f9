"""Co-change between files: which files are edited in the same commits, and how strongly.

Pure functions over the ``commits`` and ``file_changes`` tables (pipeline.history), grouped with
Polars. Definitions (defaults in ``HistoryConfig``, all configurable):

- **Transactions.** Each commit is a basket of the files it changed, keyed by their *current* path
  (renames followed, pipeline.history.current_paths); files that no longer exist are dropped.
  Merge commits are skipped (``skip_merges``); commits changing more than
  ``max_files_per_commit`` files (30) are skipped as bulk edits (reformatting, licence headers,
  vendoring) and counted. ``n_commits`` is the number of remaining commits with at least one
  current file.
- **support(a, b)**: transactions containing both; **revs_a**: transactions containing a.
- **confidence_ab** = support / revs_a = P(b changes | a changes); **confidence_ba** likewise.
- **lift** = support * n_commits / (revs_a * revs_b): how much more often than chance.
- **degree** (code-maat's coupling degree) = 100 * support / mean(revs_a, revs_b).
- **first_time / last_time**: first and last shared commit (committer time).
- **decayed_weight** = sum over shared commits of 0.5 ** (age / half_life), age measured from
  ``now`` (default: the newest commit in the table, so the value depends only on the history,
  never on when it was computed), rounded to 9 decimals so it is identical however it is summed.
- Pairs with support < ``min_support`` (2) are dropped. ``a < b``; one row per pair.

Edges: ``cochange_edges`` turns rows into ``edges`` records in *both* directions (src -> dst with
``confidence_fwd`` = P(dst | src), weight = that confidence), so ``walk --edge cochange`` works
from either file and ranks neighbours by how likely they change with it.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import polars as pl
import pyarrow as pa

from pipeline.history import current_paths
from stratum import schema as S
from stratum.config import HistoryConfig

_DAY_US = 86_400 * 1_000_000


def compute(file_changes: pa.Table, commits: pa.Table, cfg: HistoryConfig = HistoryConfig(),
            now: datetime | None = None, head_paths: list[str] | None = None) -> pa.Table:
    """File co-change pairs (schema.COCHANGE), sorted by (a, b). See the module docstring."""
    return compute_with_stats(file_changes, commits, cfg, now, head_paths)[0]


def compute_with_stats(file_changes: pa.Table, commits: pa.Table, cfg: HistoryConfig = HistoryConfig(),
                       now: datetime | None = None, head_paths: list[str] | None = None
                       ) -> tuple[pa.Table, dict]:
    """``compute`` plus what was skipped and why (for the run report)."""
    tx, stats = transactions(file_changes, commits, cfg, head_paths)
    n = stats["transactions"]
    now_us = _now_us(now, commits)
    revs = tx.group_by("path").agg(pl.len().cast(pl.Int32).alias("revs"))
    pairs = (
        tx.join(tx, on="sha", suffix="_b")
        .filter(pl.col("path") < pl.col("path_b"))
        .with_columns(
            (pl.lit(0.5) ** (((pl.lit(now_us) - pl.col("t")).clip(lower_bound=0)).cast(pl.Float64)
                             / (cfg.half_life_days * _DAY_US))).alias("w"))
        .group_by(pl.col("path").alias("a"), pl.col("path_b").alias("b"))
        .agg(pl.len().cast(pl.Int32).alias("support"),
             pl.col("t").min().alias("first_us"), pl.col("t").max().alias("last_us"),
             pl.col("w").sum().round(9).alias("decayed_weight"))
    )
    pairs = pairs.collect()
    stats["pairs_total"] = pairs.height
    pairs = pairs.filter(pl.col("support") >= cfg.min_support)
    revs_df = revs.collect()
    out = (
        pairs.join(revs_df.rename({"path": "a", "revs": "revs_a"}), on="a")
        .join(revs_df.rename({"path": "b", "revs": "revs_b"}), on="b")
        .with_columns(
            (pl.col("support") / pl.col("revs_a")).alias("confidence_ab"),
            (pl.col("support") / pl.col("revs_b")).alias("confidence_ba"),
            (pl.col("support").cast(pl.Float64) * n / (pl.col("revs_a").cast(pl.Float64) * pl.col("revs_b")))
            .alias("lift"),
            (100.0 * pl.col("support") / ((pl.col("revs_a") + pl.col("revs_b")) / 2.0)).alias("degree"),
            pl.from_epoch("first_us", time_unit="us").dt.replace_time_zone("UTC").alias("first_time"),
            pl.from_epoch("last_us", time_unit="us").dt.replace_time_zone("UTC").alias("last_time"),
        )
        .select([f.name for f in S.COCHANGE])
        .sort("a", "b")
    )
    stats["pairs_kept"] = out.height
    return _to_arrow(out, S.COCHANGE), stats


def transactions(file_changes: pa.Table, commits: pa.Table, cfg: HistoryConfig = HistoryConfig(),
                 head_paths: list[str] | None = None) -> tuple[pl.LazyFrame, dict]:
    """The co-change baskets: distinct (sha, current path, commit time) of the eligible commits.

    Also returns counts: commits, merges_skipped, huge_commits_skipped, transactions.
    """
    cur = current_paths(file_changes, commits, head_paths)
    fc = pl.from_arrow(file_changes.select(["sha"]))
    fc = fc.with_columns(pl.Series("path", cur, dtype=pl.String))
    cm = pl.from_arrow(commits.select(["sha", "is_merge", "n_files", "committed_at"]))
    cm = cm.with_columns(pl.col("committed_at").cast(pl.Int64).alias("t"))
    merge = pl.col("is_merge").fill_null(False) & pl.lit(cfg.skip_merges)
    huge = pl.col("n_files").fill_null(0) > cfg.max_files_per_commit
    stats = {
        "commits": cm.height,
        "merges_skipped": int(cm.select(merge.sum()).item() or 0),
        "huge_commits_skipped": int(cm.select((huge & ~merge).sum()).item() or 0),
    }
    ok = cm.filter(~merge & ~huge).select("sha", "t")
    tx = (fc.filter(pl.col("path").is_not_null()).join(ok, on="sha").unique(["sha", "path"])
          .sort("sha", "path"))
    stats["transactions"] = tx.select(pl.col("sha").n_unique()).item() if tx.height else 0
    return tx.lazy(), stats


def cochange_edges(cochange: pa.Table, path_to_file_id: dict[str, str]) -> list[dict]:
    """``edges`` records (kind "cochange") in both directions for pairs whose files are indexed.

    src -> dst carries weight = confidence_fwd = P(dst changes | src changes), confidence_bwd =
    P(src changes | dst changes), support, lift and last_time; meta (JSON) adds degree, revisions,
    decayed weight and first time.
    """
    out: list[dict] = []
    for r in cochange.to_pylist():
        ia, ib = path_to_file_id.get(r["a"]), path_to_file_id.get(r["b"])
        if ia is None or ib is None:
            continue
        first = r["first_time"].isoformat() if r["first_time"] else None
        for src, dst, fwd, bwd, rs, rd in ((ia, ib, r["confidence_ab"], r["confidence_ba"], r["revs_a"], r["revs_b"]),
                                           (ib, ia, r["confidence_ba"], r["confidence_ab"], r["revs_b"], r["revs_a"])):
            out.append({
                "src": src, "dst": dst, "kind": "cochange", "weight": fwd, "support": r["support"],
                "confidence_fwd": fwd, "confidence_bwd": bwd, "lift": r["lift"], "last_time": r["last_time"],
                "meta": json.dumps({"degree": r["degree"], "revs_src": rs, "revs_dst": rd,
                                    "decayed_weight": r["decayed_weight"], "first_time": first},
                                   sort_keys=True),
            })
    return out


def _now_us(now: datetime | None, commits: pa.Table) -> int:
    if now is not None:
        if now.tzinfo is None:
            now = now.replace(tzinfo=timezone.utc)
        return int(now.timestamp() * 1_000_000)
    if not commits.num_rows:
        return 0
    return int(pl.from_arrow(commits.select(["committed_at"])).select(pl.col("committed_at").cast(pl.Int64).max()).item() or 0)


def _to_arrow(df: pl.DataFrame, schema: pa.Schema) -> pa.Table:
    t = df.to_arrow()
    cols = []
    for f in schema:
        c = t.column(f.name)
        if pa.types.is_timestamp(f.type) and pa.types.is_timestamp(c.type):
            c = c.cast(pa.timestamp("us", tz="UTC"))
        cols.append(c.cast(f.type))
    return pa.Table.from_arrays(cols, schema=schema)


__all__ = ["compute", "compute_with_stats", "transactions", "cochange_edges"]
