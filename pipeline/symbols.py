"""Symbol-level co-change: functions and methods changed in the same commits.

How a commit's changed functions are found (cheaper than pydriller's ``changed_methods``, which
re-diffs every file through GitPython and re-parses it with lizard):

1. ``git log -p -U0 --full-index`` over a list of commits, limited to the languages we parse: the
   zero-context hunk headers ``@@ -a,b +c,d @@`` give the deleted lines of the old version and the
   added lines of the new version; the ``index`` line gives both blob ids.
2. Each blob version is parsed once (tree-sitter, through pipeline.parse's definition collector,
   so qualified names and spans are the ones code nodes carry) and cached by blob id: the new
   version of a file in one commit is the old version in the next.
3. A function or method changed if a deleted line falls in its span in the old version or an added
   line in its span in the new one (a pure insertion point counts for the function around it).
   Spans are the code node spans (decorators and leading comments included). Lines outside every
   function (imports, class attributes, module code) change no symbol. Nested helpers inside a
   function belong to that function, as they do in the graph.

Symbols are ``current_path::qualname``: the file part follows renames (pipeline.history), the
function part does not (a renamed function is a new symbol). Commit eligibility follows file
co-change: merges never (their diff repeats their branches), commits with more than
``max_files_per_commit`` files never, and commits changing more than ``max_symbols_per_commit``
functions (50: sweeping refactors; about 1.5% of flask's commits) are skipped, since one such
commit alone would add over a thousand pairs. Pairs are kept from ``min_support``.

Cost: dominated by parsing blob versions (about one tree-sitter parse per changed source file
per commit); see docs/bench/history.md. Opt-in: ``HistoryConfig.symbols``.

For parallel runs (the Ray job): ``plan`` splits the eligible commits into batches,
``changed_symbols`` is a pure function of (repository, batch), ``compute`` combines the batches.

Incremental: a commit's rows are a pure function of its sha (its diff against its first parent) and
of the rules here and in the parser, so the store keeps them (``schema.SYMBOL_CHANGES``) and a
re-index mines only commits it has not seen (``plan(known=)``), then recomputes the pairs over all
rows: equal to a full mine. ``mine_key`` names those rules; kept rows are reused only under the same key.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Collection, Sequence

import polars as pl
import pyarrow as pa

from pipeline import gitio, languages
from pipeline.history import PATH_FORMAT, current_paths
from stratum import schema as S
from stratum.config import HistoryConfig, IndexConfig

if TYPE_CHECKING:
    from pipeline.report import RunReport

# one row per (commit, file, changed function or method); stored, so a re-index mines only new commits
SYMBOL_CHANGES = S.SYMBOL_CHANGES
# bumped when what a commit's rows are changes (the patch reading, the span rule): stored rows of
# another format are mined again (``mine_key``)
FORMAT = 1

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_FUNC_KINDS = ("function", "method")


def _frame(table: pa.Table) -> pl.DataFrame:
    """``pl.from_arrow`` of a table: a DataFrame (the stub also returns Series, for arrays)."""
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def pathspecs() -> list[str]:
    """Git pathspecs of every source file we can parse (``*.py``, ``*.go``, ...)."""
    return sorted(f"*{ext}" for ext in languages.EXTENSIONS)


def mine_key(cfg: HistoryConfig, parse_format: int) -> str:
    """What a commit's stored rows depend on beyond its sha: this module's ``FORMAT``, the parser's
    output format (``pipeline.storestate.PARSE_FORMAT``: spans and qualified names), the languages
    parsed and the commit size mined. Rows stored under another key are mined again."""
    rules = f"{FORMAT}|{parse_format}|{cfg.max_files_per_commit}|{','.join(pathspecs())}"
    return hashlib.blake2b(rules.encode(), digest_size=6).hexdigest()


def plan(file_changes: pa.Table, commits: pa.Table, cfg: HistoryConfig = HistoryConfig(),
         batches: int = 1, known: Collection[str] = ()) -> list[list[str]]:
    """Eligible commits (non-merge, not huge, touching a parsed language), in ``batches`` lists of
    about equal size, oldest first within each (git reads neighbouring commits' blobs faster).
    ``known``: shas whose rows are held already (a previous version's): left out."""
    cm = _frame(commits.select(["sha", "is_merge", "n_files", "committed_at"]))
    if known:
        cm = cm.join(pl.DataFrame({"sha": list(known)}, schema={"sha": pl.String}), on="sha", how="anti")
    ok = cm.filter(~pl.col("is_merge").fill_null(False)
                   & (pl.col("n_files").fill_null(0) <= cfg.max_files_per_commit))
    suffix = "(?i)(" + "|".join(re.escape(e) for e in sorted(languages.EXTENSIONS)) + ")$"
    fc = _frame(file_changes.select(["sha", "path"]))
    src = fc.filter(pl.col("path").str.contains(suffix))
    shas = (ok.join(src.select("sha").unique(), on="sha").sort("committed_at", "sha")
            .get_column("sha").to_list())
    if not shas:
        return []
    batches = max(1, min(batches, len(shas)))
    size = -(-len(shas) // batches)
    return [shas[i:i + size] for i in range(0, len(shas), size)]


class _Spans:
    """Function/method spans of blob versions, parsed once each (LRU by blob id)."""

    def __init__(self, reader: gitio.BlobReader, capacity: int = 4096):
        self.reader = reader
        self.cache: OrderedDict[str, list[tuple[int, int, str, str]]] = OrderedDict()
        self.capacity = capacity
        self.parsed = 0

    def get(self, blob: str, path: str) -> list[tuple[int, int, str, str]]:
        hit = self.cache.get(blob)
        if hit is not None:
            self.cache.move_to_end(blob)
            return hit
        data = self.reader.read(blob)
        spans = definitions(path, data) if data is not None else []
        self.parsed += 1
        self.cache[blob] = spans
        if len(self.cache) > self.capacity:
            self.cache.popitem(last=False)
        return spans


def definitions(path: str, data: bytes) -> list[tuple[int, int, str, str]]:
    """(start_line, end_line, qualname, kind) of every function and method node of a file.

    pipeline.parse's definition view (the same nesting, qualified names and spans as the code
    nodes) without what a code node also needs (detail texts, token counts): about 10x less.
    """
    from pipeline.parse import definition_spans

    return [s for s in definition_spans(path, data) if s[3] in _FUNC_KINDS]


def _hit(spans: list[tuple[int, int, str, str]], lo: int, hi: int, found: dict[str, str]) -> None:
    """Add the innermost function/method around each line of [lo, hi] to ``found``."""
    for s, e, q, k in spans:
        if s <= hi and lo <= e:
            found[q] = k
    # methods never nest in functions (hidden defs are not nodes), so intersecting is innermost


def changed_symbols(repo_root: str | Path, shas: Sequence[str]) -> pa.Table:
    """The functions and methods each commit of ``shas`` changed (schema ``SYMBOL_CHANGES``).

    Pure in its inputs (the repository's objects and the list): batches can run anywhere.
    """
    cols: dict[str, list] = {f.name: [] for f in SYMBOL_CHANGES}
    if not shas:
        return pa.Table.from_pydict(cols, schema=SYMBOL_CHANGES)
    root = gitio.repo_root(repo_root)
    with gitio.BlobReader(root) as reader:
        spans = _Spans(reader)
        parser = _PatchParser(spans, cols)
        for chunk in gitio.stream_patches(root, list(shas), pathspecs()):
            parser.feed(chunk)
        parser.finish()
    t = pa.Table.from_pydict({k: v for k, v in cols.items() if k != "committed_at"},
                             schema=pa.schema([f for f in SYMBOL_CHANGES if f.name != "committed_at"]))
    ts = pa.array(cols["committed_at"], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    return t.append_column(SYMBOL_CHANGES.field("committed_at"), ts).replace_schema_metadata(SYMBOL_CHANGES.metadata)


class _PatchParser:
    """Line parser of ``gitio.patch_log_args`` output; emits changed symbols per file diff."""

    def __init__(self, spans: _Spans, cols: dict[str, list]):
        self.spans = spans
        self.cols = cols
        self.rest = b""
        self.sha = ""
        self.ct = 0
        self._reset_file()

    def _reset_file(self) -> None:
        self.old_path: str | None = None          # None: /dev/null (added/deleted), or not read yet
        self.new_path: str | None = None
        self.old_blob: str | None = None          # None until the diff's "index" line
        self.new_blob: str | None = None
        self.deleted: list[tuple[int, int]] = []
        self.added: list[tuple[int, int]] = []
        self.in_header = False

    def feed(self, chunk: bytes) -> None:
        lines = (self.rest + chunk).split(b"\n")
        self.rest = lines.pop()
        for line in lines:
            self._line(line)

    def finish(self) -> None:
        if self.rest:
            self._line(self.rest)
            self.rest = b""
        self._flush()

    def _line(self, line: bytes) -> None:
        c = line[:1]
        if c in (b"+", b"-", b" ", b"\\") and not self.in_header:
            return                                          # content: the hunk header said enough
        if c == b"@":
            self.in_header = False
            m = _HUNK.match(line)
            if m:
                a, b, cc, d = m.groups()
                b = 1 if b is None else int(b)
                d = 1 if d is None else int(d)
                if b:
                    self.deleted.append((int(a), int(a) + b - 1))
                if d:
                    self.added.append((int(cc), int(cc) + d - 1))
            return
        if c == b"\x1e":
            self._flush()
            sha, _, ct = line[1:].partition(b"\0")
            self.sha, self.ct = sha.decode(), int(ct or 0) * 1_000_000
            return
        if line.startswith(b"diff --git "):
            self._flush()
            self.in_header = True
            return
        if not self.in_header:
            return
        if line.startswith(b"index "):
            ids = line[6:].split(b" ", 1)[0]
            o, _, n = ids.partition(b"..")
            self.old_blob, self.new_blob = o.decode(), n.decode()
        elif line.startswith(b"--- "):
            self.old_path = _patch_path(line[4:])
        elif line.startswith(b"+++ "):
            self.new_path = _patch_path(line[4:])
        elif line.startswith(b"Binary files "):
            self.in_header = False

    def _flush(self) -> None:
        if self.deleted or self.added:
            path = self.new_path or self.old_path
            found: dict[str, str] = {}
            zero = "0" * 40
            if self.deleted and self.old_path and self.old_blob and self.old_blob != zero:
                sp = self.spans.get(self.old_blob, self.old_path)
                for lo, hi in self.deleted:
                    _hit(sp, lo, hi, found)
            if self.added and self.new_path and self.new_blob and self.new_blob != zero:
                sp = self.spans.get(self.new_blob, self.new_path)
                for lo, hi in self.added:
                    _hit(sp, lo, hi, found)
            cols = self.cols
            for q in sorted(found):
                cols["sha"].append(self.sha)
                cols["path"].append(path)
                cols["qualname"].append(q)
                cols["kind"].append(found[q])
                cols["committed_at"].append(self.ct)
        self._reset_file()


def _patch_path(raw: bytes) -> str | None:
    """``a/x`` / ``b/x`` / ``/dev/null`` / a C-quoted ``"a/x\\303\\251"`` -> the repository path."""
    if raw.endswith(b"\t"):
        raw = raw[:-1]
    if raw == b"/dev/null":
        return None
    if raw[:1] == b'"':
        raw = _c_unquote(raw[1:-1])
    return gitio.path_text(raw[2:] if raw[:2] in (b"a/", b"b/") else raw)      # as pipeline.history stores it


_ESC = {b"n": b"\n", b"t": b"\t", b'"': b'"', b"\\": b"\\", b"a": b"\a", b"b": b"\b", b"f": b"\f",
        b"r": b"\r", b"v": b"\v"}


def _c_unquote(s: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(s):
        ch = s[i:i + 1]
        if ch == b"\\" and i + 1 < len(s):
            nxt = s[i + 1:i + 2]
            if nxt.isdigit():
                out.append(int(s[i + 1:i + 4], 8))
                i += 4
                continue
            out += _ESC.get(nxt, nxt)
            i += 2
            continue
        out += ch
        i += 1
    return bytes(out)


def compute(symbol_changes: pa.Table, file_changes: pa.Table, commits: pa.Table,
            cfg: HistoryConfig = HistoryConfig(), head_paths: list[str] | None = None,
            resolved: bool = False) -> pa.Table:
    """Symbol co-change pairs (schema.SYMBOL_COCHANGE), sorted by (a, b).

    ``symbol_changes`` may be the concatenation of ``changed_symbols`` batches in any order.
    ``resolved``: ``file_changes.current_path`` is already resolved at HEAD (``history.mine`` and
    ``combine`` do it), so the rename walk is not repeated.
    """
    cur = (file_changes.column("current_path").to_pylist() if resolved
           else current_paths(file_changes, commits, head_paths))
    fmap = pl.DataFrame({"sha": file_changes.column("sha").to_pylist(),
                         "path": file_changes.column("path").to_pylist(),
                         "current": pl.Series(cur, dtype=pl.String)}).unique(["sha", "path"])
    sc = _frame(symbol_changes.select(["sha", "path", "qualname", "committed_at"]))
    if sc.height == 0:
        return S.SYMBOL_COCHANGE.empty_table()
    cm = _frame(commits.select(["sha", "is_merge", "n_files"]))
    ok = cm.filter(~pl.col("is_merge").fill_null(False)
                   & (pl.col("n_files").fill_null(0) <= cfg.max_files_per_commit)).select("sha")
    tx = (sc.join(ok, on="sha").join(fmap, on=["sha", "path"], how="left")
          .filter(pl.col("current").is_not_null())
          .select("sha", (pl.col("current") + "::" + pl.col("qualname")).alias("sym"),
                  pl.col("committed_at").cast(pl.Int64).alias("t"))
          .unique(["sha", "sym"]))
    size = tx.group_by("sha").agg(pl.len().alias("n_sym"))
    tx = tx.join(size.filter(pl.col("n_sym") <= cfg.max_symbols_per_commit).select("sha"), on="sha")
    revs = tx.group_by("sym").agg(pl.len().cast(pl.Int32).alias("revs"))
    pairs = (tx.join(tx, on="sha", suffix="_b").filter(pl.col("sym") < pl.col("sym_b"))
             .group_by(pl.col("sym").alias("a"), pl.col("sym_b").alias("b"))
             .agg(pl.len().cast(pl.Int32).alias("support"), pl.col("t").max().alias("last_us"))
             .filter(pl.col("support") >= cfg.min_support))
    out = (pairs.join(revs.rename({"sym": "a", "revs": "revs_a"}), on="a")
           .join(revs.rename({"sym": "b", "revs": "revs_b"}), on="b")
           .with_columns((pl.col("support") / pl.col("revs_a")).alias("confidence_ab"),
                         (pl.col("support") / pl.col("revs_b")).alias("confidence_ba"),
                         pl.from_epoch("last_us", time_unit="us").dt.replace_time_zone("UTC").alias("last_time"))
           .select([f.name for f in S.SYMBOL_COCHANGE]).sort("a", "b"))
    t = out.to_arrow()
    return pa.Table.from_arrays([t.column(f.name).cast(f.type) for f in S.SYMBOL_COCHANGE],
                                schema=S.SYMBOL_COCHANGE)


def mine_symbols(repo_root: str | Path, file_changes: pa.Table, commits: pa.Table,
                 cfg: HistoryConfig = HistoryConfig(), head_paths: list[str] | None = None) -> pa.Table:
    """The sequential whole: plan, changed_symbols over one batch, compute."""
    batches = plan(file_changes, commits, cfg)
    parts = [changed_symbols(repo_root, b) for b in batches]
    changes = pa.concat_tables(parts) if parts else SYMBOL_CHANGES.empty_table()
    return compute(changes, file_changes, commits, cfg, head_paths)


def stored_base(prev_snap, cfg: IndexConfig, rep: "RunReport", commits: pa.Table,
                known: pa.ChunkedArray | None = None) -> tuple[pa.Table | None, list[str]]:
    """The previous version's symbol changes this run extends, and the commits they cover (every
    commit of that version: each was mined, most changed no function; ``known``: their shas, when
    the history stage read them already); (None, []) for a full mine.

    Extended only when the history itself was (``history``: the watermark is an ancestor of HEAD and
    the shallow boundary did not move; a rewrite re-mines both in full), or was mined in full again
    only for its ``MINED_AS`` settings (the same commits), and the rows were mined
    under this run's rules (``symbols.mine_key``) and path spelling (``history.PATH_FORMAT``, when a
    row's path holds a backslash). Symbols switched on (the previous version kept no rows), ``--full``
    and a rewrite mine every commit."""
    import pyarrow.compute as pc

    from pipeline.storestate import PARSE_FORMAT

    extends = rep.history.get("incremental") or rep.history.get("remined_for_settings")
    if prev_snap is None or not extends or not prev_snap.has("commits"):
        return None, []
    if not prev_snap.has("symbol_changes"):
        if prev_snap.has("symbol_cochange"):
            rep.messages.append("symbol changes mined over the whole history once: the previous version "
                                "kept none (indexed by an older build)")
        return None, []
    was = (prev_snap.manifest.report or {}).get("history") or {}
    if was.get("symbols_key") != mine_key(cfg.history, PARSE_FORMAT):
        rep.messages.append("symbol changes mined over the whole history again: the parser or the symbol "
                            "settings changed since the previous version")
        return None, []
    rows = prev_snap.read("symbol_changes")
    if was.get("path_format") != PATH_FORMAT and pc.any(pc.match_substring(rows["path"], "\\")).as_py():
        rep.messages.append("symbol changes mined over the whole history again: a backslash in a path is "
                            "spelled \\\\ now")
        return None, []
    if known is None:
        known = prev_snap.read("commits", columns=["sha"]).column("sha")
    rows = rows.filter(pc.is_in(rows["sha"], value_set=commits["sha"].combine_chunks())).cast(S.SYMBOL_CHANGES)
    return rows, known.to_pylist()

__all__ = ["stored_base", "SYMBOL_CHANGES", "FORMAT", "mine_key", "pathspecs", "plan", "definitions", "changed_symbols", "compute", "mine_symbols"]
