"""A learned (gradient-boosted, LambdaMART) file ranker against the hand fusion, on the PAST window only.

Why: on the fit window the hand fusion (stratum.rank.rank_files, DEFAULT_WEIGHTS, whole-file list)
reaches Acc@5 ~0.835 while a per-task oracle choice of the best single list reaches 0.93-0.94, and
the linear learned models of benchmarks/rank_diagnosis.py stayed below the hand fusion. This asks
whether a non-linear learner with interactions, over richer per-candidate features, finds more of
that gap *held out*.

Data (as rank_diagnosis.py; common.py's and retrieval_memory.py's definitions apply and are printed):
stores at C' (retrieval_memory.PAST_AT), tasks = the qualifying commits between C' and the
evaluation index commit C (at most --n per repository), memories visible to each query as
retrieval_memory builds them. The evaluation window (after C) is never loaded.
Conditions: "day one" = mined fixes + changes, no agent notes (weights DEFAULT_WEIGHTS.only(DAY_ONE,
file_text)); "all" = agent notes + day one (DEFAULT_WEIGHTS). Each condition gets its own models.

Candidates of a task: exactly the files the hand fusion ranks for it (rank_files over the first
RERANK fused hits, note-lifted files, co-change and graph partners, the whole-file list's 50). Both
rankers order the same candidates, so the *ceiling* (an answer among the candidates) is shared.
Label: 1 for an answer file (a code file the commit changed, as at C'), else 0.

Features of a candidate file f (FEATURES; "rr" = 1 / rank of f in that list's own file order, 0
when f is not in it):
- fusion parts with unit weights: T (best code hit's fused score), A (other code hits, 1/j), N
  (agent notes), M (mined fixes), Ch (mined changes), F (whole-file list, 1 / (60 + rank)); Co and
  G (co-change, graph) from the default run divided by their weights; rr of each of these 8;
- the hand fusion itself: its score, that score over the task's best, log of its rank;
- the fused text list's sources: how many of vector / keyword / name its best hit came from;
- the unfused lists (HybridSearcher.list_hits, 50+ deep, unmerged notes merged in as search does):
  vector list: rr over code files, best cosine, best cosine minus the list's top, number of f's
  nodes in it, rr of the best note about f in it; keyword (BM25) list: the same with BM25 over the
  list's top; exact name: some node of f is named by a query identifier;
- notes: how many matching agent notes, mined fixes, mined changes among the hits are about f;
- query: words, characters, identifier-like (a word in backticks or shaped like code), names tests,
  names docs (doc/docs/documentation/typo/readme/changelog), number of candidates, the hand
  fusion's top-score margin (S1 - S2) / S1;
- file: is test, is __init__.py, under docs/ or examples/, path depth, log(1 + past commits
  touching it), log(1 + past fixes), log(1 + recency-decayed commits, half-life 365 d) (all from
  the mined history <= C'), log(1 + full tokens);
- agreement: how many of the 9 lists (T, vector, keyword, N, M, Ch, Co, G, F) hold f in their top 5,
  and in their top 10.

Learner: LightGBM 4.7 LambdaMART (objective lambdarank, labels 0/1, one group per task, ndcg@5,
truncation 20, learning rate 0.05, min 20 rows a leaf, feature fraction 0.8, one thread,
deterministic, seed 0). Held out = leave one repository out (LORO): fit on two repositories'
tasks, score the third's; pooled over the three held-out repositories. Hyper-parameters (leaves x
rounds in GRID) are chosen inside each training pair only (nested LORO: fit on one, score the
other, both ways; criterion MRR + Acc@5), then refitted on the pair. Also reported: one fixed
setting (15 leaves, 200 rounds; no selection), a pointwise binary-logistic GBM with the same
selection, and the primary model without the unfused lists' features (UNFUSED: what serving could
skip). Ties in a model's score: the hand fusion's order. The primary model (LambdaMART, nested
selection) is refitted with seeds 1..--seeds-1 (feature sampling differs): how stable its
difference is. Metrics: file MRR, Acc@1/5/10 (first answer file within k), pooled over all
held-out tasks; 95% paired bootstrap intervals (2,000 resamples of tasks, seed 0) of the
difference model - hand fusion in Acc@5 and MRR. Adopt only if the Acc@5 interval excludes 0 and
MRR is not worse.

lightgbm is not a project dependency: it is imported from the interpreter, else from --lgbm-site
(a separate venv's site-packages, appended to sys.path here only: `python3.11 -m venv V && V/bin/pip
install lightgbm==4.7.0 numpy==<.venv's>`, V = benchmarks/.out/lgbm-venv by default, else --lgbm-site).

Usage: OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/rank_learned.py [--n 200]
       [--stores DIR] [--cached]
Writes benchmarks/.out/rank/learned/{features.pkl,report.txt,ranks.csv}.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import pickle
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402
import rank_diagnosis as D  # noqa: E402
import retrieval_memory as RM  # noqa: E402

REPOS = D.REPOS
CONDS = D.CONDS
OUT = HERE / ".out" / "rank" / "learned"
LGBM_SITE = HERE / ".out" / "lgbm-venv" / "lib" / "python3.11" / "site-packages"   # V below, by default
DOC_WORD = re.compile(r"\b(docs?|documentation|typos?|readme|changelog)\b", re.I)
PARTS = ("T", "A", "N", "M", "Ch", "Co", "G", "F")
AGREE = ("T", "vec", "kw", "N", "M", "Ch", "Co", "G", "F")
FEATURES = (PARTS + tuple(f"rr_{p}" for p in PARTS)
            + ("hand", "hand_rel", "hand_lrank", "n_sources",
               "vec_rr", "vec_cos", "vec_cos_gap", "vec_nodes", "vec_note_rr",
               "kw_rr", "kw_rel", "kw_nodes", "kw_note_rr", "name",
               "n_agent", "n_fix", "n_change",
               "q_words", "q_chars", "q_ident", "q_tests", "q_docs", "n_cands", "hand_margin",
               "is_test", "is_init", "is_doc", "depth", "l_commits", "l_fixes", "l_decayed", "l_size",
               "agree5", "agree10"))
GRID = {"leaves": (2, 3, 7, 15, 31), "rounds": (25, 50, 100, 200, 400)}   # runs 1-2 (7-31 x 50-400, then
# 3-31 x 25-400) chose the grid's smallest trees in most folds: it reaches down to stumps (additive)
UNFUSED = ("n_sources", "vec_rr", "vec_cos", "vec_cos_gap", "vec_nodes", "vec_note_rr", "kw_rr", "kw_rel", "kw_nodes",
           "kw_note_rr", "name")       # what only the unfused lists give (ablation: without them)
FIXED = (15, 200)
STUMPS = (2, 400)        # what the nested selection chose most often (its feature gains are printed)
CHANNEL = {"rca": "agent", "fix": "fix", "change": "change"}
CODE = frozenset(("file", "class", "function", "method"))      # stratum.rank.CODE_ITEM_KINDS


@dataclass
class Task:
    """One past task under one condition: the hand fusion's candidates, their features, labels."""
    repo: str
    cond: str
    sha: str
    query: str
    files: list[str]            # in the hand fusion's order
    X: np.ndarray
    y: np.ndarray


# ---- features ------------------------------------------------------------------------------------
def _file_order(rows, n: int, path, kind, notes: dict) -> tuple[dict, dict, dict]:
    """From one unfused list (rows best first): code file -> 1-based rank of its first node,
    file -> how many of its nodes, file -> 1-based rank of the first note about it (notes: slot ->
    files)."""
    first: dict[str, int] = {}
    count: Counter[str] = Counter()
    note: dict[str, int] = {}
    for rank, r in enumerate(rows.tolist(), 1):
        if r >= n:
            for f in notes.get(r - n, ()):
                note.setdefault(f, rank)
        elif kind[r] in CODE:
            f = path[r]
            first.setdefault(f, len(first) + 1)
            count[f] += 1
    return first, count, note



def task_features(s, q, weights, cond: str, prior: tuple) -> Task:
    from stratum import rank as R
    from stratum.noteindex import NoteIndex
    from stratum.search import ExtraDoc

    unit = {f.path: f for f in R.rank_files(q.cands, q.signals, replace(
        weights, symbols=1.0, notes=1.0, mined=1.0, changes=1.0, cochange=0.0, graph=0.0, file_text=1.0),
        file_hits=q.file_hits)}
    hand = R.rank_files(q.cands, q.signals, weights, file_hits=q.file_hits)
    files = [f.path for f in hand]
    dflt = {f.path: f for f in hand}
    P = np.zeros((len(files), len(PARTS)))
    for i, f in enumerate(files):
        u, d = unit.get(f), dflt[f].parts
        P[i] = [u.text if u else 0.0] + [(u.parts.get(k, 0.0) if u else 0.0) for k in
                                         ("symbols", "notes", "mined", "changes")] + \
               [d.get("cochange", 0.0) / weights.cochange if weights.cochange else 0.0,
                d.get("graph", 0.0) / weights.graph if weights.graph else 0.0,
                u.parts.get("file_text", 0.0) if u else 0.0]
    # unfused lists with the query's visible notes merged in, as search merges them
    docs = list(q.docs.values())
    view = NoteIndex.of_docs([ExtraDoc(d.id, d.node["full"], d.vector, d.kind, d.node["path"] or "", "")
                              for d in docs]).view() if docs else None
    lh = s.shard.warm.searcher.list_hits(q.t.query, extra_docs=view)
    slot_files = {j: q.docs[nid].files for j, nid in enumerate(view.ix.ids)} if view is not None else {}
    path, kind = s.shard.col("path"), s.shard.col("kind")
    vfirst, vcount, vnote = _file_order(lh.vector[0], lh.n, path, kind, slot_files)
    kfirst, kcount, knote = _file_order(lh.keyword[0], lh.n, path, kind, slot_files)
    vbest: dict[str, float] = {}
    kbest: dict[str, float] = {}
    for rows, scores, best in ((lh.vector[0], lh.vector[1], vbest), (lh.keyword[0], lh.keyword[1], kbest)):
        for r, sc in zip(rows.tolist(), scores.tolist()):
            if r < lh.n and kind[r] in CODE:
                best.setdefault(path[r], sc)
    vtop = float(lh.vector[1][0]) if len(lh.vector[1]) else 0.0
    ktop = float(lh.keyword[1][0]) if len(lh.keyword[1]) else 0.0
    named = {path[r] for r in lh.name.tolist()}
    # notes among the reranked hits, per file and channel; the sources of each file's best code hit
    nnotes: dict[str, Counter] = defaultdict(Counter)
    nsrc: dict[str, int] = {}
    for c in q.cands[:R.RERANK]:
        h = q.signals.hit(c)
        if h.note is not None:
            ch = CHANNEL.get(q.docs[c.id].kind, "agent") if c.id in q.docs else "agent"
            for f in dict.fromkeys(h.note.files):
                nnotes[f][ch] += 1
        elif h.file and h.kind in CODE:
            nsrc.setdefault(h.file, len(c.sources))
    cnt, fx, dec, size = prior
    hs = np.array([f.score for f in hand])
    top = hs[0] if len(hs) and hs[0] > 0 else 1.0
    margin = (hs[0] - hs[1]) / hs[0] if len(hs) > 1 and hs[0] > 0 else 0.0
    words = q.t.query.split()
    qf = [len(words), len(q.t.query), float(D.ident(q.t.query)), float(bool(D.TEST_WORD.search(q.t.query))),
          float(bool(DOC_WORD.search(q.t.query))), len(files), margin]
    # each part's own file order (ties: the hand fusion's order)
    rr = np.zeros_like(P)
    for j in range(len(PARTS)):
        col = P[:, j]
        order = [i for i in np.lexsort((np.arange(len(files)), -col)) if col[i] > 0]
        for k, i in enumerate(order, 1):
            rr[i, j] = 1.0 / k
    X = np.zeros((len(files), len(FEATURES)))
    for i, f in enumerate(files):
        ranks = {p: (1.0 / rr[i, j] if rr[i, j] else math.inf) for j, p in enumerate(PARTS)}
        ranks["vec"], ranks["kw"] = vfirst.get(f, math.inf), kfirst.get(f, math.inf)
        b = f.rsplit("/", 1)[-1]
        X[i] = list(P[i]) + list(rr[i]) + [
            hs[i], hs[i] / top, math.log(i + 1), nsrc.get(f, 0),
            1.0 / vfirst[f] if f in vfirst else 0.0, vbest.get(f, 0.0), vbest[f] - vtop if f in vbest else -1.0,
            vcount[f], 1.0 / vnote[f] if f in vnote else 0.0,
            1.0 / kfirst[f] if f in kfirst else 0.0, kbest[f] / ktop if f in kbest and ktop else 0.0,
            kcount[f], 1.0 / knote[f] if f in knote else 0.0, float(f in named),
            nnotes[f]["agent"], nnotes[f]["fix"], nnotes[f]["change"],
            *qf,
            float(D.is_test(f)), float(b == "__init__.py"), float(f.startswith(("docs/", "examples/"))),
            f.count("/"), math.log1p(cnt[f]), math.log1p(fx[f]), math.log1p(dec[f]), math.log1p(size.get(f, 0)),
            sum(r <= 5 for r in ranks.values()), sum(r <= 10 for r in ranks.values())]
    y = np.array([f in set(q.t.targets) for f in files], dtype=float)
    return Task(s.name, cond, q.t.sha, q.t.query, files, X, y)


def build(n: int, stores: Path) -> tuple[dict[str, list[Task]], dict]:
    """Every past task's features under both conditions (searches cached per store by
    retrieval_memory), and per-repository counts."""
    from stratum import rank as R

    RM.OUT = stores
    W = R.DEFAULT_WEIGHTS
    by: dict[str, list[Task]] = {label: [] for label in CONDS}
    info = {}
    for r in REPOS:
        t0 = time.perf_counter()
        repo = (HERE / ".repos" / r).resolve()
        cut = C.resolve_commit(repo, RM.EVAL_AT[r])
        cut_time = next(x.time for x in C.load_history(repo) if x.sha == cut)
        s = RM.setup(r, RM.PAST_AT[r], n, before=cut_time)
        if any(t.time >= cut_time for t in s.tasks):
            raise SystemExit(f"{r}: a task is not older than the evaluation index commit")
        prior = D._priors(s, 365.0)
        for qs in RM.run_queries(s, list(CONDS.values())):
            for label, cond in CONDS.items():
                w = W.only(*RM.DAY_ONE, "file_text") if label == "day one" else W
                by[label].append(task_features(s, qs[cond], w, label, prior))
        RM.save_cache(s)
        nodes = len(s.shard)  # type: ignore[arg-type]
        info[r] = {"store": str(s.store), "c_prime": s.c[:12], "tasks": len(s.tasks), "nodes": nodes,
                   "model": s.counts.get("model"), "seconds": round(time.perf_counter() - t0, 1)}
        print(f"  {r}: features of {len(s.tasks)} tasks x {len(CONDS)} conditions "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
        s.tools.close()  # type: ignore[attr-defined]
    return by, info


# ---- learning and scoring ---------------------------------------------------------------------------
def load_lgb(site: Path):
    try:
        import lightgbm
    except ImportError:
        if not (site / "lightgbm").is_dir():
            raise SystemExit(f"lightgbm is not importable and not under {site}; install it into a separate "
                             "venv (module docstring) and pass --lgbm-site")
        sys.path.append(str(site))          # appended: the project's own numpy stays first
        import lightgbm
    return lightgbm


def fit(lgb, tasks: list[Task], leaves: int, rounds: int, objective: str, cols: list[int], seed: int = 0):
    X = np.concatenate([t.X[:, cols] for t in tasks])
    y = np.concatenate([t.y for t in tasks])
    params = {"objective": objective, "learning_rate": 0.05, "num_leaves": leaves, "min_data_in_leaf": 20,
              "feature_fraction": 0.8, "num_threads": 1, "deterministic": True, "force_row_wise": True,
              "seed": seed, "verbose": -1}
    if objective == "lambdarank":
        params.update(metric="ndcg", eval_at=[5], lambdarank_truncation_level=20)
    ds = lgb.Dataset(X, y, group=[len(t.files) for t in tasks], feature_name=[FEATURES[j] for j in cols],
                     free_raw_data=False)
    return lgb.train(params, ds, num_boost_round=rounds)


def first_rank(t: Task, score: np.ndarray | None) -> int | None:
    """1-based rank of the first answer under ``score`` (ties: the hand fusion's order), or the hand
    fusion's own when ``score`` is None."""
    order = np.arange(len(t.files)) if score is None else np.lexsort((np.arange(len(t.files)), -score))
    hit = np.nonzero(t.y[order])[0]
    return int(hit[0]) + 1 if len(hit) else None


def metrics(ranks) -> dict:
    n = len(ranks)
    return {"mrr": sum(1 / r for r in ranks if r) / n,
            **{f"a{k}": sum(1 for r in ranks if r and r <= k) / n for k in (1, 5, 10)}}


def crit(m: dict) -> float:
    return m["mrr"] + m["a5"]


def choose(lgb, tasks: list[Task], objective: str, cols: list[int], seed: int = 0) -> tuple[int, int]:
    """Leaves and rounds by nested LORO inside the training repositories (fit on one, score the other)."""
    repos = sorted({t.repo for t in tasks})
    best, bs = FIXED, -1.0
    for leaves in GRID["leaves"]:
        scores: dict[int, list] = {k: [] for k in GRID["rounds"]}
        for r in repos:
            tr = [t for t in tasks if t.repo != r]
            te = [t for t in tasks if t.repo == r]
            m = fit(lgb, tr, leaves, max(GRID["rounds"]), objective, cols, seed)
            for k in GRID["rounds"]:
                scores[k] += [first_rank(t, m.predict(t.X[:, cols], num_iteration=k)) for t in te]
        for k, ranks in scores.items():
            c = crit(metrics(ranks))
            if c > bs + 1e-12:
                best, bs = (leaves, k), c
    return best


def loro(lgb, tasks: list[Task], objective: str, select: bool, cols: list[int], seed: int = 0
         ) -> tuple[list, list, list]:
    """Held-out ranks of the model and of the hand fusion (same tasks, same order), and what was chosen."""
    held, chosen = {}, []
    for r in REPOS:
        tr = [t for t in tasks if t.repo != r]
        leaves, rounds = choose(lgb, tr, objective, cols, seed) if select else FIXED
        chosen.append((r, leaves, rounds))
        m = fit(lgb, tr, leaves, rounds, objective, cols, seed)
        for t in tasks:
            if t.repo == r:
                held[id(t)] = first_rank(t, m.predict(t.X[:, cols]))
    return [held[id(t)] for t in tasks], [first_rank(t, None) for t in tasks], chosen


def oracle(tasks: list[Task]) -> list:
    """Per task, the best first-answer rank any single list gives (its own file order)."""
    cols = [FEATURES.index(f"rr_{p}") for p in PARTS] + [FEATURES.index("vec_rr"), FEATURES.index("kw_rr")]
    out = []
    for t in tasks:
        best = t.X[t.y.astype(bool)][:, cols].max() if t.y.any() else 0.0
        out.append(round(1 / best) if best > 0 else None)
    return out


def bootstrap(a: list, b: list, n: int = 2000, seed: int = 0) -> dict:
    """Paired bootstrap over tasks of the differences a - b in Acc@5 and MRR: (mean, 2.5%, 97.5%)."""
    rng = np.random.default_rng(seed)
    acc = np.array([(1.0 if x and x <= 5 else 0.0) - (1.0 if y and y <= 5 else 0.0) for x, y in zip(a, b)])
    rr = np.array([(1 / x if x else 0.0) - (1 / y if y else 0.0) for x, y in zip(a, b)])
    out = {}
    for name, d in (("a5", acc), ("mrr", rr)):
        idx = rng.integers(0, len(d), (n, len(d)))
        bs = d[idx].mean(1)
        out[name] = (float(d.mean()), float(np.percentile(bs, 2.5)), float(np.percentile(bs, 97.5)))
    return out


def fmt(m: dict) -> str:
    return f"MRR {m['mrr']:.3f}  Acc@1 {m['a1']:.3f}  @5 {m['a5']:.3f}  @10 {m['a10']:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200, help="tasks per repository (rank_diagnosis: 200)")
    ap.add_argument("--stores", type=Path, default=RM.OUT, help="where the past stores live (retrieval_memory.OUT)")
    ap.add_argument("--seeds", type=int, default=5, help="the primary model again with seeds 1..N-1 (stability)")
    ap.add_argument("--cached", action="store_true", help="reuse features.pkl of an earlier run with the same --n")
    ap.add_argument("--lgbm-site", type=Path, default=Path(os.environ.get("STRATUM_LGBM_SITE", LGBM_SITE)))
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    log_lines: list[str] = []

    def say(*a) -> None:
        line = " ".join(str(x) for x in a)
        print(line, flush=True)
        log_lines.append(line)

    lgb = load_lgb(args.lgbm_site)
    t_start = time.perf_counter()
    say(__doc__.split("Usage:")[0])
    say(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}; lightgbm {lgb.__version__}; "
        f"started {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; load {os.getloadavg()}")
    cache = OUT / "features.pkl"
    if args.cached and cache.exists():
        by, info, n = pickle.load(open(cache, "rb"))
        if n != args.n:
            raise SystemExit(f"{cache} holds --n {n}; run without --cached")
        say(f"features from {cache}")
    else:
        by, info = build(args.n, args.stores)
        pickle.dump((by, info, args.n), open(cache, "wb"))
    say(f"stores and tasks: {info}")
    say(f"features built in {time.perf_counter() - t_start:.0f} s\n")
    rows = []
    for label, tasks in by.items():
        base = [first_rank(t, None) for t in tasks]
        found = sum(bool(t.y.any()) for t in tasks)
        say(f"== {label}: {len(tasks)} past tasks; answer among the candidates (ceiling): {found} "
            f"({found / len(tasks):.3f}); median candidates {int(np.median([len(t.files) for t in tasks]))}")
        say(f"  hand fusion (default)                          {fmt(metrics(base))}; Acc@20 "
            f"{sum(1 for b in base if b and b <= 20) / len(base):.3f}")
        say(f"  oracle: best single list per task (T A N M Ch Co G F, vector, keyword) {fmt(metrics(oracle(tasks)))}")
        for r in REPOS:
            say(f"    {r:9s} hand {fmt(metrics([b for b, t in zip(base, tasks) if t.repo == r]))}")
        every = list(range(len(FEATURES)))
        fused_only = [j for j, f in enumerate(FEATURES) if f not in UNFUSED]
        for name, objective, select, cols in (
                ("LambdaMART, nested selection", "lambdarank", True, every),
                (f"LambdaMART, fixed {FIXED[0]} leaves x {FIXED[1]}", "lambdarank", False, every),
                ("binary GBM, nested selection", "binary", True, every),
                ("LambdaMART, nested, without the unfused lists", "lambdarank", True, fused_only)):
            t0 = time.perf_counter()
            held, hb, chosen = loro(lgb, tasks, objective, select, cols)
            assert hb == base
            ci = bootstrap(held, base)
            say(f"  {name:46s} {fmt(metrics(held))}  ({time.perf_counter() - t0:.0f} s; chosen {chosen})")
            say(f"    minus hand: Acc@5 {ci['a5'][0]:+.3f} [{ci['a5'][1]:+.3f}, {ci['a5'][2]:+.3f}]  "
                f"MRR {ci['mrr'][0]:+.3f} [{ci['mrr'][1]:+.3f}, {ci['mrr'][2]:+.3f}]")
            won = sum(1 for h, b in zip(held, base) if h and h <= 5 and not (b and b <= 5))
            lost = sum(1 for h, b in zip(held, base) if b and b <= 5 and not (h and h <= 5))
            say(f"    tasks into the top 5: {won}, out of it: {lost}")
            for r in REPOS:
                say(f"    {r:9s} held out {fmt(metrics([h for h, t in zip(held, tasks) if t.repo == r]))}")
            if objective == "lambdarank" and select and cols is every:
                for t, h, b in zip(tasks, held, base):
                    rows.append({"condition": label, "repo": t.repo, "sha": t.sha, "query": t.query,
                                 "candidates": len(t.files), "hand_rank": b or "", "learned_rank": h or ""})
        for seed in range(1, args.seeds):
            held, _, chosen = loro(lgb, tasks, "lambdarank", True, every, seed)
            ci = bootstrap(held, base)
            say(f"  LambdaMART, nested selection, seed {seed}: {fmt(metrics(held))}; minus hand: Acc@5 "
                f"{ci['a5'][0]:+.3f} [{ci['a5'][1]:+.3f}, {ci['a5'][2]:+.3f}]  MRR {ci['mrr'][0]:+.3f} "
                f"[{ci['mrr'][1]:+.3f}, {ci['mrr'][2]:+.3f}]; chosen {chosen}")
        for leaves, rounds in (STUMPS, FIXED):
            m = fit(lgb, tasks, leaves, rounds, "lambdarank", every)
            gain = m.feature_importance("gain")
            top = sorted(zip(FEATURES, gain / gain.sum()), key=lambda x: -x[1])[:12]
            say(f"  gain share of the top features, {leaves} leaves x {rounds} fitted on all three pasts: "
                + ", ".join(f"{k} {v:.2f}" for k, v in top))
    with open(OUT / "ranks.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    say(f"\ntotal {time.perf_counter() - t_start:.0f} s; "
        f"finished {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    (OUT / "report.txt").write_text("\n".join(log_lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
