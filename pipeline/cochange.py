"""Co-change between files: which files are edited in the same commits, and how strongly.

Pure functions over the ``commits`` and ``file_changes`` tables (pipeline.history), grouped with
Arrow compute (Polars cost ~0.1 s of import per process, a share of a one-file re-index).
Definitions (defaults in ``HistoryConfig``, all configurable):

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
import math
from datetime import datetime, timezone

import pyarrow as pa
import pyarrow.compute as pc

from pipeline.history import StopFlag, check_stop, current_paths
from stratum import schema as S
from stratum.config import HistoryConfig

_DAY_US = 86_400 * 1_000_000


def compute(file_changes: pa.Table, commits: pa.Table, cfg: HistoryConfig = HistoryConfig(),
            now: datetime | None = None, head_paths: list[str] | None = None) -> pa.Table:
    """File co-change pairs (schema.COCHANGE), sorted by (a, b). See the module docstring."""
    return compute_with_stats(file_changes, commits, cfg, now, head_paths)[0]


def compute_with_stats(file_changes: pa.Table, commits: pa.Table, cfg: HistoryConfig = HistoryConfig(),
                       now: datetime | None = None, head_paths: list[str] | None = None, *,
                       resolved: bool = False, stop: StopFlag | None = None) -> tuple[pa.Table, dict]:
    """``compute`` plus what was skipped and why (for the run report). ``resolved``: the
    ``current_path`` column already holds ``current_paths(file_changes, commits, head_paths)``
    (as ``history.mine`` and ``history.combine`` leave it), so the rename walk is not run again.
    ``stop``: looked at between the steps (``history.RunStopped``): each is one Arrow call, ~0.4 s
    for 20,000 commits, so a stop on a history of millions waits seconds, not the whole count."""
    tx, stats = transactions(file_changes, commits, cfg, head_paths, resolved=resolved)
    check_stop(stop, "co-change")
    n = stats["transactions"]
    now_us = _now_us(now, commits)
    both = tx.join(tx, keys="sha", right_suffix="_b")
    check_stop(stop, "co-change")
    both = both.filter(pc.less(both["path"], both["path_b"]))
    age = pc.cast(pc.max_element_wise(pc.subtract(pa.scalar(now_us, pa.int64()), both["t"]), 0), pa.float64())
    both = both.append_column("w", pc.power(0.5, pc.divide(age, float(cfg.half_life_days * _DAY_US))))
    pairs = both.group_by(["path", "path_b"], use_threads=False).aggregate(
        [("t", "count", pc.CountOptions(mode="all")), ("t", "min"), ("t", "max"), ("w", "sum")])
    check_stop(stop, "co-change")
    stats["pairs_total"] = pairs.num_rows
    pairs = pairs.filter(pc.greater_equal(pairs["t_count"], cfg.min_support))
    revs = tx.group_by("path", use_threads=False).aggregate([("sha", "count", pc.CountOptions(mode="all"))])
    revs = dict(zip(revs["path"].to_pylist(), revs["sha_count"].to_pylist()))
    a, b = pairs["path"], pairs["path_b"]
    support = pc.cast(pairs["t_count"], pa.float64())
    revs_a = pa.array([revs[x] for x in a.to_pylist()], pa.int64())
    revs_b = pa.array([revs[x] for x in b.to_pylist()], pa.int64())
    fa, fb = pc.cast(revs_a, pa.float64()), pc.cast(revs_b, pa.float64())
    cols = {
        "a": a, "b": b, "support": pairs["t_count"], "revs_a": revs_a, "revs_b": revs_b,
        "confidence_ab": pc.divide(support, fa), "confidence_ba": pc.divide(support, fb),
        "lift": pc.divide(pc.multiply(support, float(n)), pc.multiply(fa, fb)),
        "degree": pc.divide(pc.multiply(100.0, support), pc.divide(pc.cast(pc.add(revs_a, revs_b), pa.float64()), 2.0)),
        "first_time": pairs["t_min"], "last_time": pairs["t_max"],
        "decayed_weight": pc.round(pairs["w_sum"], 9),
    }
    out = pa.Table.from_arrays([pc.cast(cols[f.name], f.type) for f in S.COCHANGE], schema=S.COCHANGE)
    stats["pairs_kept"] = out.num_rows
    return out.sort_by([("a", "ascending"), ("b", "ascending")]), stats


def transactions(file_changes: pa.Table, commits: pa.Table, cfg: HistoryConfig = HistoryConfig(),
                 head_paths: list[str] | None = None, *, resolved: bool = False) -> tuple[pa.Table, dict]:
    """The co-change baskets: distinct (sha, current path, commit time as int64 us) of the
    eligible commits, sorted by (sha, path). ``resolved``: see ``compute_with_stats``.

    Also returns counts: commits, merges_skipped, huge_commits_skipped, transactions.
    """
    cur = file_changes["current_path"].to_pylist() if resolved else current_paths(file_changes, commits, head_paths)
    merge = pc.and_(pc.fill_null(commits["is_merge"], False), pa.scalar(bool(cfg.skip_merges)))
    huge = pc.greater(pc.fill_null(commits["n_files"], 0), cfg.max_files_per_commit)
    stats = {
        "commits": commits.num_rows,
        "merges_skipped": int(pc.sum(pc.cast(merge, pa.int64())).as_py() or 0),
        "huge_commits_skipped": int(pc.sum(pc.cast(pc.and_(huge, pc.invert(merge)), pa.int64())).as_py() or 0),
    }
    keep = pc.invert(pc.or_(merge, huge))
    t_of = dict(zip(pc.filter(commits["sha"], keep).to_pylist(),
                    pc.cast(pc.filter(commits["committed_at"], keep), pa.int64()).to_pylist()))
    seen = {(s, p) for s, p in zip(file_changes["sha"].to_pylist(), cur) if p is not None and s in t_of}
    rows = sorted(seen)
    tx = pa.table({"sha": pa.array([s for s, _ in rows], pa.string()),
                   "path": pa.array([p for _, p in rows], pa.string()),
                   "t": pa.array([t_of[s] for s, _ in rows], pa.int64())})
    stats["transactions"] = len({s for s, _ in rows})
    return tx, stats


def cochange_edges(cochange: pa.Table, path_to_file_id: dict[str, str]) -> list[dict]:
    """``edges`` records (kind "cochange") in both directions for pairs whose files are indexed.

    src -> dst carries weight = confidence_fwd = P(dst changes | src changes), confidence_bwd =
    P(src changes | dst changes), support, lift and last_time; meta (JSON) adds degree, revisions,
    decayed weight and first time. Read column by column, the meta written as ``json.dumps(...,
    sort_keys=True)`` writes it (``_meta``): every re-index turns all pairs into edges.
    """
    a, b = cochange["a"].to_pylist(), cochange["b"].to_pylist()
    keep = [i for i, (x, y) in enumerate(zip(a, b)) if x in path_to_file_id and y in path_to_file_id]
    if not keep:
        return []
    tab = cochange.take(pa.array(keep, pa.int64())) if len(keep) < cochange.num_rows else cochange
    col = {c: tab[c].to_pylist() for c in ("a", "b", "confidence_ab", "confidence_ba", "revs_a", "revs_b",
                                           "support", "lift", "last_time", "degree", "decayed_weight")}
    first = [None if t is None else t.isoformat() for t in tab["first_time"].to_pylist()]
    out: list[dict] = []
    for i in range(tab.num_rows):
        ia, ib = path_to_file_id[col["a"][i]], path_to_file_id[col["b"][i]]
        ab, ba, ra, rb = col["confidence_ab"][i], col["confidence_ba"][i], col["revs_a"][i], col["revs_b"][i]
        sup, lift, last = col["support"][i], col["lift"][i], col["last_time"][i]
        head = f'{{"decayed_weight": {_num(col["decayed_weight"][i])}, "degree": {_num(col["degree"][i])}, ' \
               f'"first_time": {"null" if first[i] is None else json.dumps(first[i])}, '
        for src, dst, fwd, bwd, rs, rd in ((ia, ib, ab, ba, ra, rb), (ib, ia, ba, ab, rb, ra)):
            out.append({
                "src": src, "dst": dst, "kind": "cochange", "weight": fwd, "support": sup,
                "confidence_fwd": fwd, "confidence_bwd": bwd, "lift": lift, "last_time": last,
                "meta": f'{head}"revs_dst": {_num(rd)}, "revs_src": {_num(rs)}}}',
            })
    return out


def _num(x) -> str:
    """A number as ``json.dumps`` writes it (finite floats and ints are their repr)."""
    if type(x) is int or (type(x) is float and math.isfinite(x)):
        return repr(x)
    return json.dumps(x)


def _now_us(now: datetime | None, commits: pa.Table) -> int:
    if now is not None:
        if now.tzinfo is None:
            now = now.replace(tzinfo=timezone.utc)
        return int(now.timestamp() * 1_000_000)
    if not commits.num_rows:
        return 0
    return int(pc.max(pc.cast(commits["committed_at"], pa.int64())).as_py() or 0)


__all__ = ["compute", "compute_with_stats", "transactions", "cochange_edges"]
