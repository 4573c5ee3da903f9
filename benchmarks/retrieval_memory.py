"""Memory that steers selection: file ranking with notes, mined history, co-change and structure.

Extends benchmarks/retrieval_quality.py (same tasks, definitions in benchmarks/common.py, printed
below) with the fusion of stratum.rank. For each qualifying commit after the index commit C the
query is its masked subject and the answer is the code files it changed (as at C). The store holds
the tree and the history of C only, code only (indexed with the product's default embedding model,
named in its manifest and printed, but without the mined ``fix``/``change`` nodes the index job adds
by default: every memory below is added by this benchmark, so "code only" is code only). Every row ranks files from the same fused text list of the
shard's warm searcher (HybridSearcher, each source list 50 deep; DEEP = 150 hits; the rank rows
rerank the first stratum.rank.RERANK of them, as the search tool does), then:

- **hybrid (today)**: files in first-occurrence order of the hits (a note hit stands for the files
  it is about): what the ``search`` tool serves now. The baseline row.
- **rank: ...**: stratum.rank.rank_files over the same hits with some signals on (ablation: each
  alone; all together) and the weights of stratum.rank.DEFAULT_WEIGHTS (how they were chosen: --fit).

Memories (no future leakage; checked for every query, the run stops otherwise):
- **agent notes**: one rca note per earlier fix (the E2 bug-fix rule of common.py): the fix's subject
  as text, about its code files (as at C), author "agent", time = the fix's committer time. Visible
  to a query: the fixes before C and the window fixes strictly older than the query's commit.
- **day one (the product's default)**: pipeline.fixes.mine_fixes over the history mined from the
  checkout at C (so only commits <= C) as the index job builds it (IndexConfig.mine_fixes and
  mine_changes): ``fix`` nodes for the bug-fix commits (stratum.config.DEFAULT_BUGFIX_RULE) and
  ``change`` nodes for every other non-merge commit, each with 1..5 code files; no agent notes.
- **mined fixes only** (the earlier default, for comparison): the same mining without changes.
- **pooled**: one note per earlier *qualifying commit* (not only fixes; subject as text, about its
  files), strictly older than the query: the 1,000+ notes case (dilution).
Notes are searched as the overlay's unmerged notes are: node records from stratum.notes
(``note_to_records``), their ``full`` text for BM25 and ``embed_text`` for the vector, passed to the
searcher as extra documents.
**whole-file keyword list** (rows "+ whole-file list"): stratum.keywordindex.KeywordIndex (the
product's BM25) built over the code files at C, one document per file = its path and its entire
source; its top FILE_DEPTH files for the query are passed to rank_files as ``file_hits``
(F in stratum.rank). The other rank rows run without it (file_text = 0), as before.

Metrics: file MRR (1/rank of the first answer file, 0 when absent), Acc@k = an answer file among the
first k files (k = 1, 5, 10). Pooled over repositories = mean over all their tasks. Intervals: 95%
percentile intervals of a paired bootstrap over the pooled tasks (2,000 resamples, seed 0), for a
row's Acc@5 and for the difference of two rows on the same tasks.
Tokens to reach the answer (the reader protocol of benchmarks/memory_transfer.py on the item list):
pages of 10 items, each item costing its summary-level tokens (cl100k; a note's summary line) and,
for rank rows, the tokens of its ``why`` (the search tool counts them in the item's tokens), the
reader stopping at the first page that shows an answer file, at most 5 pages (all 5 counted when
never reached). Today's rows read the searcher's items; rank rows read stratum.rank.rerank's items.

Weights (--fit): coordinate ascent over a small grid (MINED_KEYS + file_text; --fit-all: every weight),
maximising the mean of the pooled MRRs of "rank: day one" (default mined, no agent notes) and
"rank: all" (agent notes + default mined), both with the whole-file list, on each repository's *own past*: a second store at an earlier commit C' (PAST_AT), tasks = qualifying
commits after C' and before C (at most --n per repository), memories built the same way relative
to C'. Nothing of the evaluation window (after C) is read by the fit.

Usage: .venv/bin/python benchmarks/retrieval_memory.py [REPO ...] [--n 200] [--fit [--fit-all]]
Writes benchmarks/results/retrieval_memory_<repo>.csv and retrieval_memory_summary.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from dataclasses import dataclass, replace
from typing import NamedTuple
from datetime import datetime
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402
from memory_transfer import MAX_CALLS, PAGE_SIZE  # noqa: E402

EVAL_AT = {"flask": "2021-01-01", "requests": "2017-01-01", "werkzeug": "2021-01-01"}
PAST_AT = {"flask": "2019-01-01", "requests": "2015-01-01", "werkzeug": "2019-01-01"}
OUT = HERE / ".out" / "rank"
DEEP = 150
KS = (1, 5, 10)
GRID = {"symbols": (0.0, 0.25, 0.5, 1.0), "notes": (0.25, 0.5, 1.0, 2.0, 4.0), "mined": (0.1, 0.25, 0.5, 1.0, 2.0),
        "changes": (0.25, 0.5, 1.0, 1.5, 2.0, 4.0), "cochange": (0.0, 0.05, 0.1, 0.25, 0.5, 1.0),
        "graph": (0.0, 0.05, 0.1, 0.25), "seeds": (1, 3, 5), "file_text": (0.0, 0.25, 0.5, 1.0, 1.5, 2.0)}
DAY_ONE = ("mined", "changes", "symbols", "cochange", "graph")     # the signals a fresh index has
FILE_DEPTH = 50                     # whole-file keyword list depth (as each text source list)
# --fit refits the mined channels only (the others keep their earlier past-fitted values); --fit-all
# refits every GRID key. Why not all by default: this benchmark's agent notes are the subjects of
# earlier fixes, the same text as the mined fixes, so a joint fit lowers ``notes`` (to 0.25) for a
# redundancy real root-cause notes do not have (docs/bench/retrieval.md).
MINED_KEYS = ("mined", "changes", "file_text")


# ---- memories ------------------------------------------------------------------------------------
@dataclass
class Doc:
    id: str
    kind: str
    time: datetime
    files: list[str]
    node: dict
    vector: np.ndarray | None = None


def note_doc(kind: str, sha: str, subject: str, when: datetime, files: list[str], file_ids: dict, repo: str) -> Doc:
    from stratum import notenodes
    from stratum import notes as N

    targets = [N.Target(given=f, node_id=file_ids[f], content_hash=None, path=f, kind="file") for f in files]
    nid = "n" + sha[:19] + kind[0]
    note = N.Note(id=nid, record_uid=sha, kind="rca", text=subject, about=targets, author="agent", session=None,
                  tags=[], created_at=when)
    node, _ = notenodes.note_to_records(note, repo)
    return Doc(nid, "rca", when, list(files), node)


def embed_docs(docs: list[Doc], embedder, cache: Path) -> None:
    """Vectors for the docs' embed texts, cached on disk by text (re-runs embed nothing)."""
    from stratum.ids import content_hash
    from stratum.textprep import embed_text

    store = dict(np.load(cache)) if cache.exists() else {}
    texts = {d.id: embed_text(d.node) for d in docs}
    keys = {d.id: content_hash(texts[d.id]) for d in docs}
    missing = sorted({keys[d.id] for d in docs if keys[d.id] not in store})
    by_key = {keys[d.id]: texts[d.id] for d in docs}
    for i in range(0, len(missing), 256):
        part = missing[i:i + 256]
        for k, v in zip(part, embedder.embed([by_key[k] for k in part])):
            store[k] = np.asarray(v, dtype=np.float32)
    if missing:
        np.savez(cache, **store)
    for d in docs:
        d.vector = store[keys[d.id]]


@dataclass
class Setup:
    """One repository indexed at one commit, its tasks and its memories."""
    name: str
    c: str
    c_time: datetime
    tools: object
    shard: object
    tasks: list
    agent: list[Doc]
    pooled: list[Doc]
    mined: list[Doc]
    counts: dict
    store: Path = Path()
    dirty: bool = False
    day1: list = None               # the default mining: fixes + changes
    files: object = None            # FileList: the whole-file keyword list


def setup(name: str, at: str, n: int, *, before: datetime | None = None, log=print) -> Setup:
    from pipeline.fixes import mine_fixes
    from pipeline.history import mine
    from stratum.config import IndexConfig
    from stratum.tools import Tools

    repo = (HERE / ".repos" / name).resolve()
    c = C.resolve_commit(repo, at)
    src, store = C.store_at(repo, c, out=OUT, log=log, num_cpus=1, code_only=True)
    history = C.load_history(repo)
    window = C.window_shas(repo, c)
    c_paths = C.paths_at(repo, c)
    all_tasks, dropped = C.make_tasks(history, c, window, c_paths)
    if before is not None:
        all_tasks = [t for t in all_tasks if t.time < before]
    tasks = all_tasks[:n]
    tools = Tools.open([str(store)])
    shard = tools.shards.shards[0]
    kinds, paths, idcol = shard.col("kind"), shard.col("path"), shard.col("id")
    file_ids = {paths[i]: idcol[i] for i in range(len(shard)) if kinds[i] == "file"}
    # the past as the checkout at C knows it (targets at C through its own rename following)
    past = C.load_history(src)
    c_time = max(x.time for x in past)
    agent, pooled = [], []
    for cm in past:
        if not cm.qualifies:
            continue
        files = list(dict.fromkeys(ch.current_path for ch in cm.code_changes
                                   if ch.current_path and ch.current_path in file_ids))
        if not files:
            continue
        pooled.append(note_doc("pooled", cm.sha, cm.subject, cm.time, files, file_ids, shard.repo))
        if cm.is_bugfix():
            agent.append(note_doc("agent", cm.sha, cm.subject, cm.time, files, file_ids, shard.repo))
    for t in all_tasks:                      # window commits: visible only to later queries
        files = [f for f in t.targets if f in file_ids]
        if not files:
            continue
        pooled.append(note_doc("pooled", t.sha, t.subject, t.time, files, file_ids, shard.repo))
        if t.bugfix:
            agent.append(note_doc("agent", t.sha, t.subject, t.time, files, file_ids, shard.repo))
    res = mine(src)
    cfg = IndexConfig()                       # the job's defaults: which kinds it mines, with which rule
    fx = mine_fixes(res.commits, res.file_changes, file_ids, shard.repo, rule=cfg.history.bugfix_rule)
    dx = mine_fixes(res.commits, res.file_changes, file_ids, shard.repo, rule=cfg.history.bugfix_rule,
                    fixes=cfg.mine_fixes, changes=cfg.mine_changes)
    mined, day1 = ([Doc(nd["id"], nd["kind"], nd["created_at"], [t["path"] for t in json.loads(nd["meta"])["about"]],
                        nd) for nd in r.nodes] for r in (fx, dx))
    emb = shard.warm.searcher.embedder        # the query embedder: the same model as the store
    embed_docs(agent + pooled + mined + day1, emb, store.parent / "doc_vectors.npz")
    counts = {"dropped": dropped, "mining": dx.counts, "agent_notes_total": len(agent),
              "pooled_notes_total": len(pooled), "mined_fixes": len(mined), "mined_day_one": len(day1),
              "tasks": len(tasks)}
    from stratum.store import Store

    m = Store(store).manifest()
    model = (m.embedding or {}).get("model", "none")
    counts["model"] = model
    counts["store_nodes"] = len(shard)
    log(f"{name}@{c[:12]}: store {store} ({len(shard)} nodes, model {model}, code only)")
    log(f"{name}@{c[:12]}: {len(tasks)} tasks, {len(agent)} agent notes, {len(pooled)} pooled, "
        f"{len(mined)} mined fixes, {len(day1)} mined fixes + changes")
    return Setup(name, c, c_time, tools, shard, tasks, agent, pooled, mined, counts, Path(store), day1=day1,
                 files=FileList(src, sorted(file_ids)))


class FileList:
    """The whole-file keyword list over the code files at C (stratum.filetext.FileText: the product's
    BM25 over each file's path and entire source), queried like the text lists."""

    def __init__(self, src: Path, paths: list[str]):
        from stratum.filetext import FileText

        texts = []
        for p in paths:
            try:
                texts.append((Path(src) / p).read_text(errors="replace"))
            except OSError:
                texts.append("")
        self.text = FileText(paths, texts)

    def hits(self, query: str) -> list[str]:
        return self.text.hits(query, FILE_DEPTH)


# ---- searching and ranking -----------------------------------------------------------------------
def visible(docs: list[Doc], t, c_time: datetime, *, mined: bool = False) -> list[Doc]:
    if mined and any(d.time > c_time for d in docs):
        raise SystemExit("leak: a mined fix is newer than the index commit C")
    # a window commit from a merged branch can be older than C's newest commits: hide what is not older
    return [d for d in docs if d.time < t.time]


class Hit(NamedTuple):
    row: int
    score: float
    sources: tuple
    id: str


_CACHE: dict[str, dict] = {}


def search(s: Setup, query: str, docs: list[Doc], kinds: tuple[str, ...] = ()) -> list[Hit]:
    """The fused hits, cached on disk per store version, query and visible note set (re-runs with other
    weights, and the fit, search nothing twice; delete doc_vectors.npz/search_cache.pkl to redo)."""
    import hashlib
    import pickle

    from stratum.search import ExtraDoc

    path = str(s.store.parent / "search_cache.pkl")
    if path not in _CACHE:
        _CACHE[path] = _Unpickler(open(path, "rb")).load() if Path(path).exists() else {}
    # the store's version is in the key: a hit is a row number, and a re-index (a parse rule that adds
    # nodes: session 23's lambda nodes) moves rows, so hits cached from the last version named other
    # nodes (werkzeug's code-only MRR read 0.317 instead of 0.533 until this key)
    key = hashlib.sha1("\x00".join([f"v{s.shard.manifest.version}", query] + ([",".join(kinds)] if kinds else [])
                                   + sorted(d.id for d in docs)).encode()).hexdigest()
    cache = _CACHE[path]
    if key not in cache:
        extra = [ExtraDoc(d.id, d.node["full"], d.vector, d.kind, d.node["path"] or "", "") for d in docs]
        page = s.shard.warm.searcher.search(query, kinds=kinds, limit=DEEP, extra_docs=extra)
        cache[key] = [(int(i.row), float(i.score), tuple(i.sources), i.id) for i in page.items]
        s.dirty = True
    return [Hit(*x) for x in cache[key]]


class _Unpickler(__import__("pickle").Unpickler):
    def find_class(self, module, name):
        return Hit if name == "Hit" else super().find_class(module, name)


def save_cache(s: Setup) -> None:
    import pickle

    path = s.store.parent / "search_cache.pkl"
    if getattr(s, "dirty", False):
        tmp = path.with_suffix(".tmp")
        pickle.dump(_CACHE[str(path)], open(tmp, "wb"))
        tmp.replace(path)
        s.dirty = False


class Query:
    """One task under one memory condition: the fused hits, the signals, cached rankings."""

    def __init__(self, s: Setup, t, docs: list[Doc]):
        from stratum import rank as R

        for d in docs:
            if d.time >= t.time:
                raise SystemExit(f"leak: note {d.id} is not older than {t.sha[:10]}")
        self.t = t
        self.items = search(s, t.query, docs)
        info = {d.id: R.NoteInfo(d.kind, tuple(d.files), created_at=d.time) for d in docs}
        self.docs = {d.id: d for d in docs}
        self.signals = CachedSignals(s.shard, info)
        self.cands = R.candidates_of(self.items)
        self.file_hits = s.files.hits(t.query)

    def today(self) -> list[str]:
        files = []
        for it in self.items:
            h = self.signals.hit(it)
            files.append(list(h.note.files) if h.note else ([h.file] if h.file else []))
        return C.rank_files(files)

    def ranked(self, weights) -> list[str]:
        from stratum import rank as R

        return [f.path for f in R.rank_files(self.cands, self.signals, weights, file_hits=self.file_hits)]

    def tokens_today(self, s: Setup) -> int:
        return reader_tokens(s, [(it.id, it.row) for it in self.items], self)

    def tokens_ranked(self, s: Setup, weights) -> int:
        from stratum import rank as R

        return reader_tokens(s, [(r.id, r.row, r.why) for r in R.rerank(self.cands, self.signals, weights,
                                                                          file_hits=self.file_hits)], self)


def reader_tokens(s: Setup, items: list[tuple], q: Query) -> int:
    """Tokens the reader pays; an item (id, row, why) also pays for its ``why``, as the search tool
    counts it in the item's tokens."""
    from stratum import tokens as T

    want = set(q.t.targets)
    tok = s.shard.col("summary_tokens")
    total = 0
    for p in range(MAX_CALLS):
        page = items[p * PAGE_SIZE:(p + 1) * PAGE_SIZE]
        if not page:
            break
        hit = False
        for nid, row, *why in page:
            total += T.count(why[0]) if why else 0
            if nid in q.docs:
                d = q.docs[nid]
                total += int(d.node["summary_tokens"] or 0)
                hit = hit or bool(want & set(d.files))
            else:
                total += int(tok[row] or 0)
                path = s.shard.col("path")[row]
                hit = hit or (s.shard.col("kind")[row] not in ("dir", "repo") and path in want)
        if hit:
            break
    return total


class CachedSignals:
    """signals.ShardSignals with co-change and structure memoised per path (the fit re-ranks each
    query hundreds of times)."""

    _co: dict = {}
    _st: dict = {}

    def __init__(self, shard, extra):
        from stratum.signals import ShardSignals

        self.inner = ShardSignals(shard, None, extra)
        self.key = id(shard)

    def hit(self, c):
        return self.inner.hit(c)

    def cochange(self, path):
        k = (self.key, path)
        if k not in self._co:
            self._co[k] = self.inner.cochange(path)
        return self._co[k]

    def structure(self, path):
        k = (self.key, path)
        if k not in self._st:
            self._st[k] = self.inner.structure(path)
        return self._st[k]

    def locate(self, path):
        return self.inner.locate(path)


# ---- conditions --------------------------------------------------------------------------------
def conditions(WF):
    """(row label, memory condition, how to rank): a memory condition names the notes searched.
    Rows without "whole-file list" in the label rank without it (file_text = 0), as before."""
    W = replace(WF, file_text=0.0)
    return [
        ("hybrid (today), code only", "code", None),
        ("rank: text only (sanity: = today)", "code", W.only()),
        ("rank: + symbols aggregate alone", "code", W.only("symbols")),
        ("rank: + co-change alone", "code", W.only("cochange")),
        ("rank: + graph alone", "code", W.only("graph")),
        ("rank: code signals (symbols+co-change+graph)", "code", W.only("symbols", "cochange", "graph")),
        ("hybrid (today), agent notes as documents", "agent", None),
        ("rank: + agent notes alone", "agent", W.only("notes")),
        ("hybrid (today), mined fixes only as documents", "mined", None),
        ("rank: + mined fixes alone (fixes only)", "mined", W.only("mined")),
        ("rank: day one, mined fixes only (+ code signals)", "mined", W.only("mined", "symbols", "cochange", "graph")),
        ("rank: all, agent notes + mined fixes only (+ code signals)", "agent+mined", replace(W, changes=0.0)),
        ("hybrid (today), day one mined (fixes + changes) as documents", "day1", None),
        ("rank: + mined changes alone", "day1", W.only("changes")),
        ("rank: + mined fixes + changes alone", "day1", W.only("mined", "changes")),
        ("rank: day one (default: mined fixes + changes + code signals)", "day1", W.only(*DAY_ONE)),
        ("rank: all (agent notes + mined fixes + changes + code signals)", "agent+day1", W),
        ("hybrid (today), pooled notes", "pooled", None),
        ("rank: all, pooled notes + day one mined", "pooled+day1", W),
        ("rank: code signals + whole-file list", "code", WF.only("symbols", "cochange", "graph", "file_text")),
        ("rank: day one + whole-file list", "day1", WF.only(*DAY_ONE, "file_text")),
        ("rank: all + whole-file list", "agent+day1", WF),
        ("rank: all, pooled notes + day one mined + whole-file list", "pooled+day1", WF),
    ]


def memory_docs(s: Setup, t, cond: str) -> list[Doc]:
    docs = []
    for part in cond.split("+"):
        if part == "agent":
            docs += visible(s.agent, t, s.c_time)
        elif part == "pooled":
            docs += visible(s.pooled, t, s.c_time)
        elif part == "mined":
            docs += visible(s.mined, t, s.c_time, mined=True)
        elif part == "day1":
            docs += visible(s.day1, t, s.c_time, mined=True)
    return docs


def run_queries(s: Setup, conds: list[str]) -> list[dict[str, Query]]:
    out = []
    t0 = time.perf_counter()
    for k, t in enumerate(s.tasks, 1):
        out.append({c: Query(s, t, memory_docs(s, t, c)) for c in conds})
        if k % 25 == 0 or k == len(s.tasks):
            save_cache(s)
            print(f"  {s.name}: {k}/{len(s.tasks)} tasks searched ({time.perf_counter() - t0:.0f} s)", flush=True)
    return out


def metrics(ranks: list[int | None]) -> dict:
    out = {"n": len(ranks), "mrr": round(C.mean(C.mrr(r) for r in ranks), 4)}
    for k in KS:
        out[f"acc@{k}"] = round(C.mean(1.0 if r and r <= k else 0.0 for r in ranks), 4)
    return out


def evaluate(setups: list[Setup], W, *, tokens: bool = True) -> tuple[dict, list[dict]]:
    conds = conditions(W)
    per_repo, rows = {}, []
    for s in setups:
        t0 = time.perf_counter()
        qs = run_queries(s, sorted({c for _, c, _ in conds}))
        ranks = {label: [] for label, _, _ in conds}
        toks = {label: [] for label, _, _ in conds}
        for q in qs:
            row = {"repo": s.name, **q["code"].t.to_row()}
            for label, cond, w in conds:
                qq = q[cond]
                ranking = qq.today() if w is None else qq.ranked(w)
                r = C.first_rank(ranking, qq.t.targets)
                ranks[label].append(r)
                row[label] = r
                if tokens and label in TOKEN_ROWS:
                    tk = qq.tokens_today(s) if w is None else qq.tokens_ranked(s, w)
                    toks[label].append(tk)
                    row[f"tokens: {label}"] = tk
            rows.append(row)
        per_repo[s.name] = {label: {**metrics(ranks[label]),
                                    **({"median_tokens": C.median(toks[label])} if toks[label] else {})}
                            for label, _, _ in conds}
        per_repo[s.name]["_seconds"] = round(time.perf_counter() - t0, 1)
    pooled = {}
    for label, _, _ in conds:
        rs = [r[label] for r in rows]
        pooled[label] = metrics(rs)
        tk = [r[f"tokens: {label}"] for r in rows if f"tokens: {label}" in r]
        if tk:
            pooled[label]["median_tokens"] = C.median(tk)
    return {"per_repo": per_repo, "pooled": pooled}, rows


TOKEN_ROWS = ("hybrid (today), code only", "hybrid (today), agent notes as documents",
              "rank: all, agent notes + mined fixes only (+ code signals)",
              "rank: day one, mined fixes only (+ code signals)",
              "rank: day one (default: mined fixes + changes + code signals)",
              "rank: all (agent notes + mined fixes + changes + code signals)", "hybrid (today), pooled notes",
              "rank: all, pooled notes + day one mined", "rank: day one + whole-file list",
              "rank: all + whole-file list", "rank: all, pooled notes + day one mined + whole-file list")


# ---- fitting on the past -----------------------------------------------------------------------
def fit(setups: list[Setup], start, keys=MINED_KEYS, log=print):
    """Coordinate ascent over GRID on the mean of the pooled MRRs of "rank: day one" (default mined,
    no agent notes) and "rank: all" (agent notes + default mined): the two conditions the product has."""
    per = [q for s in setups for q in run_queries(s, ["code", "day1", "agent+day1"])]
    day1, full = [q["day1"] for q in per], [q["agent+day1"] for q in per]
    log(f"fit: today's hybrid on the past tasks: MRR "
        f"{C.mean(C.mrr(C.first_rank(q['code'].today(), q['code'].t.targets)) for q in per):.4f}")

    def mrr(qs, w) -> float:
        return C.mean(C.mrr(C.first_rank(q.ranked(w), q.t.targets)) for q in qs)

    def score(w) -> float:
        return (mrr(day1, w.only(*DAY_ONE, "file_text")) + mrr(full, w)) / 2

    best, best_s = start, score(start)
    log(f"fit: {len(per)} past tasks; start {best_s:.4f}")
    for rnd in range(2):
        changed = False
        for name, values in ((k, GRID[k]) for k in keys):
            for v in values:
                w = replace(best, **{name: v})
                sc = score(w)
                if sc > best_s + 1e-9:
                    best, best_s, changed = w, sc, True
            log(f"  round {rnd + 1} {name} -> {getattr(best, name)} (MRR {best_s:.4f})")
        if not changed:
            break
    log(f"fit: day one {mrr(day1, start.only(*DAY_ONE, 'file_text')):.4f} -> "
        f"{mrr(day1, best.only(*DAY_ONE, 'file_text')):.4f}, all {mrr(full, start):.4f} -> {mrr(full, best):.4f}")
    return best, best_s


# ---- report ------------------------------------------------------------------------------------
CI_PAIRS = (("rank: day one + whole-file list", "rank: day one (default: mined fixes + changes + code signals)"),
            ("rank: all + whole-file list", "rank: all (agent notes + mined fixes + changes + code signals)"),
            ("rank: all, pooled notes + day one mined + whole-file list", "rank: all, pooled notes + day one mined"),
            ("rank: day one (default: mined fixes + changes + code signals)", "hybrid (today), code only"))


def bootstrap(rows: list[dict], a: str, b: str | None = None, n: int = 2000, seed: int = 0) -> dict:
    """95% intervals (paired bootstrap over tasks, percentile) of row a's MRR and Acc@5, or of a - b."""
    rng = np.random.default_rng(seed)
    def per(label):
        r = [x[label] for x in rows]
        return (np.array([C.mrr(v) for v in r]), np.array([1.0 if v and v <= 5 else 0.0 for v in r]))
    ma, aa = per(a)
    if b is not None:
        mb, ab = per(b)
        ma, aa = ma - mb, aa - ab
    idx = rng.integers(0, len(rows), size=(n, len(rows)))
    out = {}
    for name, x in (("mrr", ma), ("acc@5", aa)):
        means = x[idx].mean(1)
        out[name] = (round(float(x.mean()), 4), round(float(np.percentile(means, 2.5)), 4),
                     round(float(np.percentile(means, 97.5)), 4))
    return out


def intervals(rows: list[dict]) -> list[str]:
    lines = []
    for a, b in CI_PAIRS:
        ci = bootstrap(rows, a, b)
        lines.append(f"{a}  minus  {b}: MRR {ci['mrr'][0]:+.3f} [{ci['mrr'][1]:+.3f}, {ci['mrr'][2]:+.3f}], "
                     f"Acc@5 {ci['acc@5'][0]:+.3f} [{ci['acc@5'][1]:+.3f}, {ci['acc@5'][2]:+.3f}]")
    for a in ("rank: all, pooled notes + day one mined + whole-file list", "rank: day one + whole-file list"):
        ci = bootstrap(rows, a)
        lines.append(f"{a}: Acc@5 {ci['acc@5'][0]:.3f} [{ci['acc@5'][1]:.3f}, {ci['acc@5'][2]:.3f}]")
    return lines


def table(res: dict, repos: list[str]) -> str:
    lines = ["| repo | n | ranking | MRR | Acc@1 | Acc@5 | Acc@10 | median tokens to answer |",
             "|---|---|---|---|---|---|---|---|"]
    for repo in repos + ["pooled"]:
        block = res["pooled"] if repo == "pooled" else res["per_repo"][repo]
        for label, v in block.items():
            if label.startswith("_"):
                continue
            tk = v.get("median_tokens")
            lines.append(f"| {repo} | {v['n']} | {label} | {v['mrr']:.3f} | {v['acc@1']:.3f} | {v['acc@5']:.3f} | "
                         f"{v['acc@10']:.3f} | {'' if tk is None else f'{tk:g}'} |")
    return "\n".join(lines)


def main() -> int:
    from stratum import rank as R

    ap = argparse.ArgumentParser(description="memory that steers selection: rank fusion on real history")
    ap.add_argument("repos", nargs="*", default=["flask", "requests", "werkzeug"])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--fit", action="store_true", help="fit the mined weights on each repository's past first")
    ap.add_argument("--fit-all", action="store_true", help="with --fit: refit every weight of GRID")
    args = ap.parse_args()
    print(C.__doc__)
    print(__doc__.split("Usage:")[0])
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\n")
    W = R.DEFAULT_WEIGHTS
    fitted = None
    if args.fit:
        past = []
        for r in args.repos:
            cut = C.resolve_commit((HERE / ".repos" / r).resolve(), EVAL_AT[r])
            cut_time = next(x.time for x in C.load_history(HERE / ".repos" / r) if x.sha == cut)
            past.append(setup(r, PAST_AT[r], args.n, before=cut_time))
        keys = tuple(GRID) if args.fit_all else MINED_KEYS
        W, sc = fit(past, R.DEFAULT_WEIGHTS, keys)
        fitted = {"keys": keys, "weights": vars(W), "past_mrr": round(sc, 4),
                  "past": {s.name: {"C'": s.c, **s.counts} for s in past}}
        print("fitted weights:", json.dumps(vars(W)))
        for s in past:
            s.tools.close()
    setups = [setup(r, EVAL_AT[r], args.n) for r in args.repos]
    res, rows = evaluate(setups, W)
    print("\nweights:", json.dumps(vars(W)))
    print("\n" + table(res, args.repos))
    print("\n95% intervals (paired bootstrap over the pooled tasks, 2,000 resamples):")
    ci = intervals(rows)
    print("\n".join(ci))
    C.RESULTS.mkdir(parents=True, exist_ok=True)
    for s in setups:
        with open(C.RESULTS / f"retrieval_memory_{s.name}.csv", "w", newline="") as fh:
            mine = [r for r in rows if r["repo"] == s.name]
            w = csv.DictWriter(fh, fieldnames=list(mine[0]))
            w.writeheader()
            for r in mine:
                w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    (C.RESULTS / "retrieval_memory_summary.json").write_text(json.dumps(
        {"command": " ".join(sys.argv), "machine": C.machine(), "weights": vars(W), "fit": fitted, "intervals": ci,
         "repos": {s.name: {"C": s.c, **s.counts} for s in setups}, "results": res},
        indent=1, default=str) + "\n")
    for s in setups:
        s.tools.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
