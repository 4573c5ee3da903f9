"""Every file's first look for ranking, made once per loaded version: a table, not a walk per seed.

Ranking lifts the co-change partners and import/test neighbours of a search's strongest files
("seeds", ``stratum.rank``). A seed seen for the first time was a path lookup by hash, a CSR walk,
binary searches in the co-change keys and attribute and path reads scattered over ~100 MB of
arrays at 1M nodes: ~70 us a seed, mostly cache misses, ~0.35-0.5 ms of a new query's search
(docs/bench/grpc.md, session 10). Here the same kernels (``kernels.cochange_top`` /
``structure_top``) run for every file at once (``kernels.seed_tables``: ~0.3 s at 1M nodes, 83,333
files) and their answers are kept as rows of small arrays (~45 MB), with each partner's path
code: a new seed is then a few slices of one row each.

A large shard builds its table on a helper thread after load (``stratum.shard.Shard``); until it
is ready, and for a row that is no file, the shard reads one file at a time, with the same answers
(tested).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum.ids import norm_path


class SeedTable:
    """Per file row: its ``k_co`` strongest co-change partners that have edge attributes, in the
    kernels' order, with their support, confidence (NaN: null) and last time (microseconds;
    ``warm.NO_TIME``: null); its import/test neighbours' count and the ``k_st`` most specific of
    them (row, edge kind name, outgoing); every partner's path (as a code into the shard's path
    values) and whether it is a file. ``row_of`` finds a file's row by its path."""

    def __init__(self, n_rows: int, files: np.ndarray, k_co: int, k_st: int, kind_names: tuple[str, ...],
                 co: tuple[np.ndarray, ...], st: tuple[np.ndarray, ...], paths: list,
                 code_of: dict, file_of_code: np.ndarray):
        self.k_co, self.k_st = int(k_co), int(k_st)
        self.files = files
        self._ord = np.full(n_rows, -1, np.int32)
        self._ord[files] = np.arange(len(files), dtype=np.int32)
        self.co_n, self.co_rows, self.co_path, self.co_file, self.co_support, self.co_conf, self.co_time = co
        self.st_n, self.st_m, self.st_rows, self.st_path, self.st_kind, self.st_out = st
        self.kind_names = kind_names
        self._paths, self._code_of, self._file_of_code = paths, code_of, file_of_code

    def __len__(self) -> int:
        return len(self.files)

    def nbytes(self) -> int:
        return sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray))

    def row_of(self, path: str) -> int | None:
        """The row of the file at ``path``, exactly when ``Shard.resolve(path)`` would answer it by
        that path (no node has it as its id, it is stored as written, one place has it); else None."""
        c = self._code_of.get(path) if path else None
        if c is None or c < 0:
            return None
        r = int(self._file_of_code[c])
        if r < 0 or "::" in path or norm_path(path) != path:
            return None
        return r

    def cochange(self, row: int) -> tuple[list[int], list, list[bool], list[int], list[float], list[int]] | None:
        """(partner rows, their paths (None: no path), whether each is a file, support, confidence,
        last time) of a file row; None: not a file."""
        i = int(self._ord[row])
        if i < 0:
            return None
        n = int(self.co_n[i])
        names = self._paths
        return (self.co_rows[i, :n].tolist(), [names[c] for c in self.co_path[i, :n].tolist()],
                self.co_file[i, :n].tolist(), self.co_support[i, :n].tolist(), self.co_conf[i, :n].tolist(),
                self.co_time[i, :n].tolist())

    def structure(self, row: int) -> tuple[int, list[int], list, list[str], list[bool]] | None:
        """(how many import/test file neighbours, the first ``k_st``: rows, paths, edge kind names,
        outgoing) of a file row, as ``WarmIndexes.structure_top`` with the paths; None: not a file."""
        i = int(self._ord[row])
        if i < 0:
            return None
        m = int(self.st_m[i])
        names, kinds = self._paths, self.kind_names
        return (int(self.st_n[i]), self.st_rows[i, :m].tolist(), [names[c] for c in self.st_path[i, :m].tolist()],
                [kinds[c] for c in self.st_kind[i, :m].tolist()], self.st_out[i, :m].tolist())


def build(warm, is_file: np.ndarray, path_column, id_column: pa.Array, kind_column, k_co: int,
          k_st: int) -> SeedTable:
    """The table of every row ``is_file`` marks, from a loaded ``WarmIndexes`` (its graph and its
    co-change attributes, read from the edges dataset here if no search has read them yet) and the
    shard's path, id and kind columns (``keyindex.Column``; the path codes are the column's own when
    it keeps them)."""
    from stratum import kernels

    coded = path_column.codes()
    if coded is None:                       # a small shard's column is a list: encode it here
        enc = pc.dictionary_encode(path_column.array)
        coded = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False), enc.dictionary.to_pylist() + [None]
    codes, names = coded
    warm.ensure_served()
    g = warm.graph
    files = np.flatnonzero(is_file).astype(np.int64)
    keys, cols = warm.cochange_attrs()
    code = int(g.kind_codes(("cochange",))[0])
    imports, tests = g.kind_codes(("imports", "tests")).tolist()
    a = g.a
    co_rows, at, back, st_n, st_rows, st_kind, st_out = kernels.seed_tables(
        a["out.ptr"], a["out.nbr"], a["out.kind"], a["out.weight"], a["in.ptr"], a["in.nbr"], a["in.kind"],
        files, code, imports, tests, is_file, keys, int(k_co), int(k_st))
    # the partners with attributes first, in order (a partner whose edge has none is skipped)
    found = at >= 0 if cols is not None else np.zeros(at.shape, bool)
    order = np.argsort(~found, axis=1, kind="stable")
    co_rows, at, back = (np.take_along_axis(x, order, 1) for x in (co_rows, at, back))
    co_n = found.sum(axis=1)
    j = np.where(at >= 0, at, 0)
    if cols is not None and len(keys):
        support = cols["support"][j].astype(np.int64)
        conf = np.where(back, cols["confidence_bwd"][j], cols["confidence_fwd"][j])
        when = cols["last_time"][j]
    else:
        support, when, conf = np.zeros(at.shape, np.int64), np.zeros(at.shape, np.int64), np.zeros(at.shape)
    co_safe, st_safe = np.maximum(co_rows, 0), np.maximum(st_rows, 0)
    co_path, st_path = codes[co_safe].astype(np.int32), codes[st_safe].astype(np.int32)
    st_m = (st_rows >= 0).sum(axis=1)
    return SeedTable(g.n_rows, files, k_co, k_st, tuple(g.kind_names),
                     (co_n, co_rows, co_path, is_file[co_safe], support, conf, when),
                     (st_n, st_m, st_rows, st_path, st_kind, st_out), names,
                     {v: i for i, v in enumerate(names[:-1])},
                     _file_of_code(codes, names, is_file, kind_column, id_column))


def _file_of_code(codes: np.ndarray, names: list, is_file: np.ndarray, kind_column, id_column: pa.Array) -> np.ndarray:
    """Per path code: the row of the one file at that path, or -1 (no file; or a second file or dir
    shares the path, or some node's id is the path: the resolver answers those otherwise)."""
    place = np.flatnonzero(is_file | kind_column.equals(np.arange(len(codes)), "dir"))
    pcode = codes[place]
    count = np.bincount(pcode[pcode >= 0], minlength=len(names))
    out = np.full(len(names), -1, np.int64)
    frows = np.flatnonzero(is_file)
    fc = codes[frows]
    ok = fc >= 0
    out[fc[ok]] = frows[ok]
    out[count[: len(out)] > 1] = -1
    values = pa.array(names[:-1], pa.string())
    is_id = pc.is_in(values, value_set=pc.unique(id_column)).to_numpy(zero_copy_only=False)
    out[: len(is_id)][is_id] = -1
    return out


__all__ = ["SeedTable", "build"]
