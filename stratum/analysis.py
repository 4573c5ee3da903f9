"""Polars over the history datasets of a store: for data teams, and behind `stratum cochange/history`.

Every function takes a *source*: a store root path, a ``stratum.store.Store`` or a pinned
``Snapshot`` (the published version by default), and returns a Polars ``LazyFrame`` (or a dict for
``summary``), so callers can keep filtering, joining and aggregating before anything is computed::

    import polars as pl
    from stratum import analysis as A

    A.top_pairs(".git/stratum", n=10).collect()
    A.hotspots(".git/stratum").filter(pl.col("path").str.starts_with("src/")).collect()
    A.commits(".git/stratum").group_by(pl.col("committed_at").dt.year()).len().collect()

Datasets (stratum.schema): ``commits``, ``file_changes`` (``current_path`` is the file's path at
the indexed HEAD, renames followed; null when the file is gone), ``cochange`` (one row per pair,
``a < b``) and, when mined, ``symbol_cochange``. Definitions of support, confidence, lift and degree
are in pipeline/cochange.py and docs/history.md. A file's path is read as `stratum cochange` reads
it (``current_path``: repository-relative or on disk; NotFound, saying why, when it has no history).
"""

from __future__ import annotations

import os
import posixpath
import re
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Union

import polars as pl

from stratum import schema as S
from stratum.config import HistoryConfig
from stratum.errors import InvalidArgument, NotFound
from stratum.limits import check_range, echo
from stratum.store import Snapshot, Store

Source = Union[str, os.PathLike, Store, Snapshot]


def snapshot(src: Source) -> Snapshot:
    """The snapshot a source names (a path or Store: its published version)."""
    if isinstance(src, Snapshot):
        return src
    store = src if isinstance(src, Store) else Store(Path(src))
    if not store.exists():
        raise NotFound(f"no index at {store.root}: run `stratum index` first (or pass --store)")
    return store.snapshot()


# what top_pairs ranks by (confidence: the larger of the two)
RANK_BY = ("support", "lift", "degree", "decayed_weight", "confidence")
_DURATION = re.compile(r"(?:[1-9][0-9]*(?:ns|us|ms|s|m|h|d|w|mo|q|y))+")


def _check_n(n: int | None) -> None:
    """Odd arguments said Polars' own words (a slice's ValueError, a query plan): a clear error here."""
    if n is not None:
        check_range("n (None or 0: all rows)", n, 0, None)


def _repo_relative(path: str, repo_path: str | None) -> str:
    """A path as the user typed it -> the repository-relative posix path the datasets use."""
    return _spelled(_relative(path, repo_path))


def _relative(path: str, repo_path: str | None) -> str:
    """A path as the user typed it -> repository-relative and posix, as typed otherwise."""
    p = Path(path)
    out = p.as_posix().removeprefix("./")
    if repo_path and (p.is_absolute() or p.exists()):
        root = Path(repo_path).resolve()
        # as typed, then with symlinked folders resolved (a checkout reached through a link: a probe)
        for where in (Path(os.path.abspath(p)), Path(os.path.abspath(p)).parent.resolve() / p.name):
            try:
                out = where.relative_to(root).as_posix()
                break
            except ValueError:
                pass
    return out


def _spelled(path: str) -> str:
    """A repository-relative name as the datasets spell it (``pipeline.gitio.path_text``: the core
    imports no pipeline; a test keeps the two equal): a byte that is not UTF-8, typed as it is on
    disk, as ``\\xNN`` (a probe) and a backslash as ``\\\\``, so ``caf\\xe9.py`` typed (a backslash, x,
    e, 9) and ``caf<E9>.py`` find two files. Spelled once the name is repository-relative (from a
    subfolder it has to be found on disk first)."""
    if "\\" not in path and not any("\udc80" <= ch <= "\udcff" for ch in path):
        return path
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:      # a lone surrogate no byte stands for (JSON's "\\ud800"): no file's name
        return path
    return raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def current_path(src: Source, path: str | os.PathLike[str]) -> str:
    """``path`` as the datasets name a file at the indexed HEAD (``current_path``): a repository-relative
    path, or a path on disk inside the repository (absolute or from the working directory).

    The one reading of a typed path for `stratum cochange` and the functions here, which took only
    the datasets' exact spelling ("./src/app.py" gave an empty frame, a ``Path`` Polars' TypeError).
    NotFound when no current file has history under it, naming candidates that end with it, the
    file it was renamed to, or why a file on disk has none yet.
    """
    raw = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(raw, str):
        raise InvalidArgument(f"path must be a repository path (str or os.PathLike), got {echo(repr(path))} "
                              f"({type(path).__name__})")
    snap = snapshot(src)
    typed = _relative(raw, snap.manifest.repo_path)
    _check_inside(raw, typed, snap.manifest.repo_path)
    rel = _spelled(typed)
    current = _changes(snap, "current_path").get_column("current_path")
    if (current == rel).any():
        return rel
    if typed != rel and (current == typed).any():     # the spelling copied from an answer (caf\\xe9.py)
        return typed
    raise _no_history(snap, rel, current.drop_nulls().unique().to_list())


def _check_inside(raw: str, typed: str, repo_path: str | None) -> None:
    """InvalidArgument for a path outside the repository (``/etc/passwd``, ``../x.py`` from its top):
    it was told "has no commits in the mined history yet: commit it, then index" (a data probe)."""
    norm = posixpath.normpath(typed) if typed else typed
    if posixpath.isabs(norm) or norm == ".." or norm.startswith("../"):
        raise InvalidArgument(f"{echo(raw)} is not inside the repository{f' {repo_path}' if repo_path else ''}: "
                              "name one of its files, repository-relative or a path on disk inside it")


def _changes(snap: Snapshot, *columns: str) -> pl.DataFrame:
    """Some columns of ``file_changes``, only those read."""
    if not snap.has("file_changes"):
        return file_changes(snap).select(*columns).collect()
    frame = pl.from_arrow(snap.read("file_changes", columns=list(columns)))
    assert isinstance(frame, pl.DataFrame)   # a table (not an array) gives a DataFrame
    return frame


def _no_history(snap: Snapshot, path: str, known: list[str]) -> NotFound:
    """Why ``path`` is no current file of the history, in the words `stratum cochange` has used."""
    file, sym, _ = path.partition("::")
    if sym and file in known:   # `cochange path::Func` said "not a current file" of a file that is (a probe)
        return NotFound(f"{path} names a symbol, and co-change history is per file: ask for its file, {file}")
    repo = snap.manifest.repo_path
    folder = _folder(snap, path, known, repo)
    if folder:
        return NotFound(folder)
    near = sorted(k for k in known if k.endswith("/" + path))
    hint = f"; did you mean {', '.join(near[:5])}?" if near else ""
    if repo and (Path(repo) / path).is_file() and not near:    # indexed, never committed (a probe)
        if ((snap.manifest.report or {}).get("history") or {}).get("shallow"):
            return NotFound(f"{path} has no commits in the mined history: this is a shallow clone, and its "
                            "history lies beyond the boundary (`git fetch --unshallow`, then index)")
        return NotFound(f"{path} has no commits in the mined history yet: commit it, then index")
    return NotFound(f"{path} has no history in the index (not a current file of the repository"
                    f"{_renamed(snap, path)}){hint}")


def _folder(snap: Snapshot, path: str, known: list[str], repo: str | None) -> str:
    """What to say when ``path`` is a folder ("" when it is not): co-change is per file, so name its
    most changed files that have history (`cochange src` said "not a current file" of src/: a probe)."""
    top = path in ("", ".")
    prefix = "" if top else path.rstrip("/") + "/"
    inside = [k for k in known if k.startswith(prefix)]
    if not inside and not (repo and (Path(repo) / path).is_dir()):
        return ""
    name = "'.' (the repository's top)" if top else path.rstrip("/")
    if not inside:
        return f"{name} is a folder, and none of its files has history in the index (co-change history is per file)"
    counts = (_changes(snap, "current_path").filter(pl.col("current_path").is_in(inside))
              .group_by("current_path").len().sort(["len", "current_path"], descending=[True, False]))
    top5 = counts.get_column("current_path").head(5).to_list()
    listed = "analysis.hotspots(store, n=None)" + (f".filter(pl.col('path').str.starts_with({prefix!r}))"
                                                   if prefix else "")
    return (f"{name} is a folder, and co-change history is per file: {len(inside)} of its files have history, "
            f"the most changed {', '.join(top5)} (ask for one, e.g. `stratum cochange {top5[0]}`; all of "
            f"them: {listed})")


def _renamed(snap: Snapshot, path: str) -> str:
    """", renamed to NEW in SHA" when the history saw ``path`` renamed (the latest such rename), with
    where that file is now, or ", deleted in SHA" when it saw it deleted last: an old name said only
    "not a current file", and a deleted one still does without it (probes)."""
    rows = (_changes(snap, "sha", "path", "old_path", "current_path", "change_type", "committed_at")
            .filter(((pl.col("change_type") == "R") & (pl.col("old_path") == path))
                    | ((pl.col("change_type") == "D") & (pl.col("path") == path)))
            .sort("committed_at", descending=True).head(1).to_dicts())
    if not rows:
        return ""
    r = rows[0]
    if r["change_type"] == "D":
        return f": deleted in {r['sha'][:12]}"
    now = "" if r["current_path"] == r["path"] else f", now {r['current_path']}" if r["current_path"] \
        else ", since deleted"
    return f": renamed to {r['path']} in {r['sha'][:12]}{now}"


def dataset(src: Source, name: str) -> pl.LazyFrame:
    """Any dataset of the snapshot as a LazyFrame (an empty frame of the right schema if absent)."""
    if name not in S.DATASETS:
        raise InvalidArgument(f"no dataset {name!r}: one of {', '.join(sorted(S.DATASETS))}")
    snap = snapshot(src)
    table = snap.read(name) if snap.has(name) else S.DATASETS[name].empty_table()
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)   # a table (not an array) gives a DataFrame
    return frame.lazy()


def commits(src: Source) -> pl.LazyFrame:
    """One row per commit: sha, parents, author, times, message, is_merge, is_bugfix, n_files."""
    return dataset(src, "commits")


def file_changes(src: Source) -> pl.LazyFrame:
    """One row per (commit, file): path, old_path, current_path, change_type, added, deleted, binary."""
    return dataset(src, "file_changes")


def cochange(src: Source) -> pl.LazyFrame:
    """One row per co-changing file pair (a < b) with support, revisions, confidences, lift, degree."""
    return dataset(src, "cochange")


def symbol_cochange(src: Source) -> pl.LazyFrame:
    """Function/method pairs changed together (empty unless the index was built with symbols)."""
    return dataset(src, "symbol_cochange")


def top_pairs(src: Source, n: int | None = 20, by: str = "support", min_support: int | None = None
              ) -> pl.LazyFrame:
    """The most coupled file pairs, strongest first (``by``: support, lift, degree, decayed_weight,
    confidence = the larger of the two confidences)."""
    _check_n(n)
    if by not in RANK_BY:
        raise InvalidArgument(f"by must be one of {', '.join(RANK_BY)}, got {by!r}")
    if min_support is not None:     # "x" was Polars' ComputeError, 1.5 a silent filter (a data probe)
        check_range("min_support (None: the store's pairs as kept)", min_support, 1, None)
        kept = snapshot(src).manifest.settings.get("min_support")
        if kept is not None and min_support < kept:     # 1 returned the kept pairs (>= 2) unsaid (a probe)
            raise InvalidArgument(f"min_support {min_support}: this store keeps only pairs seen in at least {kept} "
                                  f"commits (an index with HistoryConfig(min_support={min_support}) keeps the others)")
    lf = cochange(src).with_columns(
        pl.max_horizontal("confidence_ab", "confidence_ba").alias("confidence"))
    if min_support is not None:
        lf = lf.filter(pl.col("support") >= min_support)
    lf = lf.sort([by, "support", "a", "b"], descending=[True, True, False, False])
    return lf.head(n) if n else lf


def coupled_with(src: Source, path: str | os.PathLike[str], n: int | None = None) -> pl.LazyFrame:
    """Files that change with ``path`` by P(other changes | path changes); ``path`` is read by
    ``current_path`` (repository-relative or on disk; NotFound when it has no history).

    Columns: path, partner, support, revs (of path), partner_revs, confidence (P(partner | path)),
    reverse_confidence (P(path | partner)), lift, degree, first_time, last_time, decayed_weight.
    """
    _check_n(n)
    snap = snapshot(src)
    return partners(snap, current_path(snap, path), n)


def partners(src: Source, path: str, n: int | None = None) -> pl.LazyFrame:
    """``coupled_with`` for a ``path`` ``current_path`` gave already: `stratum cochange` reads the typed
    path once, to print it too (it read the ``current_path`` column twice)."""
    _check_n(n)
    lf = cochange(src)
    common = ["support", "lift", "degree", "first_time", "last_time", "decayed_weight"]
    fwd = lf.filter(pl.col("a") == path).select(
        pl.col("a").alias("path"), pl.col("b").alias("partner"), pl.col("revs_a").alias("revs"),
        pl.col("revs_b").alias("partner_revs"), pl.col("confidence_ab").alias("confidence"),
        pl.col("confidence_ba").alias("reverse_confidence"), *common)
    back = lf.filter(pl.col("b") == path).select(
        pl.col("b").alias("path"), pl.col("a").alias("partner"), pl.col("revs_b").alias("revs"),
        pl.col("revs_a").alias("partner_revs"), pl.col("confidence_ba").alias("confidence"),
        pl.col("confidence_ab").alias("reverse_confidence"), *common)
    out = pl.concat([fwd, back]).sort(["confidence", "support", "partner"], descending=[True, True, False])
    return out.head(n) if n else out


def indexed_files(src: Source) -> list[str] | None:
    """The paths of the snapshot's file nodes, spelled as the history datasets spell them
    (``_spelled``: a backslash doubled; a node named ``back\\slash.py`` was "not indexed" beside
    its partner row ``back\\\\slash.py``, a probe): what `walk` and `get` know (a co-change
    partner the index skipped, vendored or a lockfile, has history and no node); None for a store
    of history only (no nodes dataset: nothing to tell apart)."""
    snap = snapshot(src)
    if not snap.has("nodes"):
        return None
    return [_spelled(p) for p in snap.read("nodes", columns=["path"], where="kind = 'file'").column("path").to_pylist()]


def _lines(col: str) -> pl.Expr:
    """A line-count column summed in Int64: stored as Int32, Polars kept Int32 for the sum and
    4e9 lines of churn (a monorepo's vendored files) wrapped to -294967296."""
    return pl.col(col).fill_null(0).cast(pl.Int64).sum()


SINCE_FORMS = "a datetime (naive: UTC), a date (its midnight UTC) or an ISO 8601 string (2025-01-01, 2025-01-01T12:00+02:00)"


def _utc(t: object) -> datetime:
    """``since`` as a UTC time comparable with ``committed_at``: a naive time is UTC (it raised Polars'
    SchemaError); a date and an ISO string are read as such (they raised a bare AttributeError)."""
    if isinstance(t, str):
        try:
            t = datetime.fromisoformat(t.strip())
        except ValueError:
            raise InvalidArgument(f"since must be {SINCE_FORMS}; {echo(t)!r} is not ISO 8601") from None
    elif isinstance(t, date) and not isinstance(t, datetime):
        t = datetime(t.year, t.month, t.day)
    if not isinstance(t, datetime):
        raise InvalidArgument(f"since must be {SINCE_FORMS}, got {echo(repr(t))} ({type(t).__name__})")
    return t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t.astimezone(timezone.utc)


def settings(src: Source) -> dict:
    """The settings the snapshot was indexed with (``Manifest.settings``: ``config.KEPT_SETTINGS``,
    e.g. ``half_life_days``, the half-life of ``decayed_weight``); a store indexed before a setting
    was recorded lacks it. ``bugfix_rule`` None: the default rule (the regex: ``summary``)."""
    return dict(snapshot(src).manifest.settings)


def _max_commit_files(src: Source) -> int:
    """The store's co-change bulk-commit bound (``index --max-commit-files``), 30 when not recorded."""
    got = snapshot(src).manifest.settings.get("max_commit_files")
    return int(got) if isinstance(got, int) and not isinstance(got, bool) else HistoryConfig().max_files_per_commit


def hotspots(src: Source, n: int | None = 20, since: datetime | date | str | None = None) -> pl.LazyFrame:
    """Files by churn (lines added + deleted) over their whole history, renames followed.

    Columns: path (current), commits, added, deleted, churn, authors, first_change, last_change.
    Only files that still exist; merge diffs are not in file_changes unless merges were mined.
    ``since``: only changes from then on: a datetime (naive: UTC), a date (its midnight UTC) or an
    ISO 8601 string of either.
    """
    _check_n(n)
    start = _utc(since) if since is not None else None
    fc = file_changes(src).filter(pl.col("current_path").is_not_null())
    if start is not None:
        fc = fc.filter(pl.col("committed_at") >= start)
    authors = commits(src).select("sha", "author_email")
    out = (fc.join(authors, on="sha", how="left")
           .group_by(pl.col("current_path").alias("path"))
           .agg(pl.col("sha").n_unique().alias("commits"),
                _lines("added").alias("added"),
                _lines("deleted").alias("deleted"),
                pl.col("author_email").n_unique().alias("authors"),
                pl.col("committed_at").min().alias("first_change"),
                pl.col("committed_at").max().alias("last_change"))
           .with_columns((pl.col("added") + pl.col("deleted")).alias("churn"))
           .sort(["churn", "commits", "path"], descending=[True, True, False]))
    return out.head(n) if n else out


def coupling_over_time(src: Source, path: str | os.PathLike[str], every: str = "1y",
                       max_files_per_commit: int | None = None) -> pl.LazyFrame:
    """How ``path``'s coupling evolves (``path`` read by ``current_path``): per period and partner,
    the commits they shared.

    ``every`` is a Polars duration ("1y", "6mo", "1q"...). Columns: period (start), partner,
    support (shared commits in the period), revs (commits changing ``path`` in the period),
    confidence = support / revs. Commits with more than ``max_files_per_commit`` files are left out,
    as co-change does (by default the store's own bound, ``index --max-commit-files``; merge commits
    have no rows unless merges were mined).
    """
    if not isinstance(every, str) or not _DURATION.fullmatch(every):     # "0y" made a period per commit
        raise InvalidArgument(f"every must be a positive Polars duration such as 1y, 6mo, 1q, 2w, got {every!r}")
    if max_files_per_commit is not None:    # "x" was Polars' ComputeError, -5 an empty frame (a data probe)
        check_range("max_files_per_commit (None: the store's bound)", max_files_per_commit, 1, None)
    snap = snapshot(src)
    path = current_path(snap, path)
    if max_files_per_commit is None:
        max_files_per_commit = _max_commit_files(snap)
    fc = file_changes(snap).filter(pl.col("current_path").is_not_null())
    ok = commits(snap).filter(pl.col("n_files") <= max_files_per_commit).select("sha")
    tx = (fc.join(ok, on="sha").select("sha", pl.col("current_path").alias("file"), "committed_at")
          .unique(["sha", "file"])
          .with_columns(pl.col("committed_at").dt.truncate(every).alias("period")))
    mine_ = tx.filter(pl.col("file") == path).select("sha", "period")
    revs = mine_.group_by("period").agg(pl.len().alias("revs"))
    shared = (mine_.join(tx.filter(pl.col("file") != path).select("sha", pl.col("file").alias("partner")),
                         on="sha")
              .group_by("period", "partner").agg(pl.len().alias("support")))
    return (shared.join(revs, on="period")
            .with_columns((pl.col("support") / pl.col("revs")).alias("confidence"))
            .sort(["period", "support", "partner"], descending=[False, True, False]))


# what `stratum history --parquet OUT` writes (symbol_cochange when mined)
EXPORTED = ("commits", "file_changes", "cochange", "symbol_cochange")


def export_parquet(src: Source, out: str | os.PathLike[str]) -> tuple[list[str], list[str]]:
    """Each EXPORTED dataset of the snapshot as ``OUT/<name>.parquet``, typed as ``schema.DATASETS``
    says (string, list<string>, not-null flags: a write through Polars gave large_string and
    large_list and dropped the not-nulls, so the files' schema differed from the documented one);
    each file written beside and renamed into place (a failed write leaves the earlier file). An
    earlier export's file of a dataset this version lacks is removed (no longer true). Returns
    (written, removed) paths."""
    import pyarrow.parquet as pq

    snap = snapshot(src)
    folder = Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:        # a file of that name, no permission: said, not a traceback
        raise InvalidArgument(f"cannot export into {echo(str(folder))}: {e.strerror or e} (name a folder)") from None
    written: list[str] = []
    removed: list[str] = []
    for name in EXPORTED:
        dest = folder / f"{name}.parquet"
        if snap.has(name):
            table, want = snap.read(name), S.DATASETS[name]
            if table.schema.names == want.names:    # a store of an older schema is written as it reads
                table = table.cast(want.with_metadata(table.schema.metadata))
            part = dest.with_name(f".{dest.name}.part")
            pq.write_table(table, part)
            os.replace(part, dest)
            written.append(str(dest))
        elif dest.exists():
            dest.unlink()
            removed.append(str(dest))
    return written, removed


def summary(src: Source) -> dict:
    """History in numbers: commits, merges, bug fixes, authors, span, files, churn, co-change."""
    snap = snapshot(src)
    if not snap.has("commits"):
        raise NotFound(f"no history in {snap.store.root} (version {snap.manifest.version}): "
                       f"index a git repository first")
    bound = _max_commit_files(snap)
    c = commits(snap).select(
        pl.len().alias("commits"),
        pl.col("is_merge").sum().alias("merges"),
        pl.col("is_bugfix").sum().alias("bugfix_commits"),
        pl.col("author_email").n_unique().alias("authors"),
        pl.col("committed_at").min().alias("first_commit"),
        pl.col("committed_at").max().alias("last_commit"),
        (pl.col("n_files") > bound).sum().alias("commits_over_max_files"),
    ).collect().to_dicts()[0]
    f = file_changes(snap).select(
        pl.len().alias("file_changes"),
        pl.col("current_path").drop_nulls().n_unique().alias("files_touched_still_present"),
        pl.col("path").n_unique().alias("paths_ever"),
        (pl.col("change_type") == "R").sum().alias("renames"),
        pl.col("binary").sum().alias("binary_changes"),
        (_lines("added") + _lines("deleted")).alias("churn"),
    ).collect().to_dicts()[0]
    cc = cochange(snap).select(pl.len().alias("cochange_pairs"),
                               pl.col("support").max().alias("max_support")).collect().to_dicts()[0]
    c["max_commit_files"] = bound           # the store's bound (a fixed 30 ignored --max-commit-files)
    kept = snap.manifest.settings           # what decayed_weight and the pairs were computed with (None: not recorded)
    c.update(half_life_days=kept.get("half_life_days"), min_support=kept.get("min_support"))
    out = {**c, **f, **cc, "symbol_cochange_pairs": snap.count("symbol_cochange"),
           "indexed_commit": snap.manifest.indexed_commit,
           "history_watermark": snap.manifest.history_watermark, "version": snap.manifest.version}
    for k in ("first_commit", "last_commit"):
        if out[k] is not None:
            out[k] = out[k].isoformat()
    return {k: (int(v) if isinstance(v, (bool,)) else v) for k, v in out.items()}


__all__ = ["Source", "SINCE_FORMS", "snapshot", "current_path", "indexed_files", "dataset", "commits", "file_changes", "cochange", "symbol_cochange",
           "top_pairs", "coupled_with", "partners", "hotspots", "coupling_over_time", "summary", "settings",
           "EXPORTED", "export_parquet"]
