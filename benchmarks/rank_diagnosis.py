"""Where the file ranking misses its top 5, and which fusions were tried, on the PAST window only.

Companion of benchmarks/retrieval_memory.py (same stores, tasks, memories and caches; its docstring
and common.py's definitions apply and are printed). Everything here reads the *fit* window only:
stores at C' (retrieval_memory.PAST_AT), tasks = the qualifying commits between C' and the
evaluation index commit C (at most --n per repository); the evaluation window is never loaded.

Conditions: "day one" = mined fixes + changes, no agent notes (weights .only(DAY_ONE, file_text));
"all" = agent notes + day one. Ranking = stratum.rank.rank_files with DEFAULT_WEIGHTS and the
whole-file keyword list (the adopted default) unless a row says otherwise.

Per-file features (one row per candidate file of a task): the fusion's parts taken with unit
weights (T text, A symbols, N agent notes, M mined fixes, Ch mined changes; Co co-change and G graph
from the default run, divided by their weights), F = the whole-file list's 1/(60 + rank),
history priors from the day-one mined nodes (all <= C'): log(1 + number of past commits touching
the file), the same for fixes, and a recency-decayed count (0.5 ** (age at C' / half-life));
is_test (tests/ or test_*.py or *_test.py or conftest.py), log(1 + full tokens).

Experiments (each adds to or replaces the default score; adopted only if it helps here):
- priors (BugLocator-style bug-fix / change history): + w * prior, w on a grid, half-lives 30-365 d;
- test files: a penalty when the query does not name tests, a boost when it does;
- note evidence: sharper weighting of a note's share (rank-based 1/(k + r), score ** p), other
  aggregations (max, sum, 1/j^2, 1/sqrt j), only the top-k notes;
- learned combinations (numpy): pairwise logistic on hard negatives, listwise softmax (ListNet);
  query-type routing (identifier-like vs prose queries get their own weights); per-query channel
  confidence (top-score margin / peak) scaling each channel's weight;
- mined notes as their own list: a second search restricted to fix/change notes (50 deep per
  source list) merged into the candidates; similar past commits by raw cosine (BugLocator's
  SimiScore): the k most similar visible mined nodes lift their files by sim ** p / sqrt(files);
- held out one repository at a time (LORO): fit on two repositories' pasts, score the third.
- cost of the whole-file list: rank.FileText build time per store and hits() p50/p95 over the tasks'
  queries (perf_counter, one process).
- oracle: the best single list per task (what a perfect per-query choice of list could reach).

Usage: .venv/bin/python benchmarks/rank_diagnosis.py [--n 200]
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import common as C  # noqa: E402
import retrieval_memory as RM  # noqa: E402

REPOS = ("flask", "requests", "werkzeug")
CONDS = {"day one": "day1", "all": "agent+day1"}
COLS = ("T", "A", "N", "M", "Ch", "Co", "G", "F", "prior", "fixprior", "prior_d", "test", "lsize")
TEST_WORD = re.compile(r"\btests?\b|\btesting\b", re.I)


def is_test(p: str) -> bool:
    b = p.rsplit("/", 1)[-1]
    return p.startswith("tests/") or "/tests/" in p or b.startswith("test_") or b.endswith("_test.py") or b == "conftest.py"


class Task:
    """One past task under one condition: candidate files, their features, which are answers."""

    def __init__(self, s, q, weights):
        from stratum import rank as R

        self.repo, self.query, self.targets, self.q = s.name, q.t.query, set(q.t.targets), q
        unit = {f.path: f for f in R.rank_files(q.cands, q.signals, replace(
            weights, symbols=1.0, notes=1.0, mined=1.0, changes=1.0, cochange=0.0, graph=0.0, file_text=1.0),
            file_hits=q.file_hits)}
        dflt = {f.path: f for f in R.rank_files(q.cands, q.signals, weights, file_hits=q.file_hits)}
        self.files = sorted(set(unit) | set(dflt))
        cnt, fx, dec, size = s.prior
        X = np.zeros((len(self.files), len(COLS)))
        for i, f in enumerate(self.files):
            u = unit.get(f)
            d = dflt[f].parts if f in dflt else {}
            X[i] = [u.text if u else 0.0] + [(u.parts.get(k, 0.0) if u else 0.0) for k in
                                             ("symbols", "notes", "mined", "changes")] + \
                   [d.get("cochange", 0.0) / weights.cochange if weights.cochange else 0.0,
                    d.get("graph", 0.0) / weights.graph if weights.graph else 0.0,
                    u.parts.get("file_text", 0.0) if u else 0.0,
                    math.log1p(cnt[f]), math.log1p(fx[f]), math.log1p(dec[f]), float(is_test(f)), math.log1p(size.get(f, 0))]
        self.X = X
        self.y = np.array([f in self.targets for f in self.files])

    def rank(self, score: np.ndarray) -> int | None:
        order = np.lexsort((np.arange(len(self.files)), -score))      # ties: path
        hit = np.nonzero(self.y[order])[0]
        return int(hit[0]) + 1 if len(hit) else None


def _priors(s, half_life: float):
    cnt, fx, dec = Counter(), Counter(), Counter()
    for d in s.day1:
        age = (s.c_time - d.time).total_seconds() / 86400.0
        for f in d.files:
            cnt[f] += 1
            dec[f] += 0.5 ** (age / half_life)
            if d.kind == "fix":
                fx[f] += 1
    col = s.shard.col
    size = {col("path")[i]: int(col("full_tokens")[i] or 0) for i in range(len(s.shard)) if col("kind")[i] == "file"}
    return cnt, fx, dec, size


def metrics(ranks) -> dict:
    n = len(ranks)
    return {"mrr": sum(1 / r for r in ranks if r) / n, **{f"a{k}": sum(1 for r in ranks if r and r <= k) / n
                                                          for k in (1, 5, 10)}}


def fmt(m: dict) -> str:
    return f"MRR {m['mrr']:.3f}  Acc@1 {m['a1']:.3f}  @5 {m['a5']:.3f}  @10 {m['a10']:.3f}"


def vec(**kw) -> np.ndarray:
    w = np.zeros(len(COLS))
    for k, v in kw.items():
        w[COLS.index(k)] = v
    return w


def score_all(tasks, w, extra=None):
    return metrics([t.rank(t.X @ w + (extra(t) if extra else 0.0)) for t in tasks])


# ---- the experiments ---------------------------------------------------------------------------
def diagnose(tasks, w) -> None:
    """For the tasks whose first answer is not in the top 5: where it is, what is above it, what
    put it where it is."""
    miss, pos, above, has = 0, Counter(), Counter(), Counter()
    kinds = Counter("test" if is_test(f) else "__init__" if f.endswith("__init__.py") else "source"
                    for t in tasks for f in t.targets)
    pri_ans, pri_above, size_ans, size_above = [], [], [], []
    for t in tasks:
        s = t.X @ w
        r = t.rank(s)
        if r is not None and r <= 5:
            continue
        miss += 1
        pos["not among the candidates" if r is None else "6-10" if r <= 10 else "11-20" if r <= 20 else "> 20"] += 1
        order = np.lexsort((np.arange(len(t.files)), -s))
        for i in order[:5]:
            f = t.files[i]
            above["test" if is_test(f) else "__init__.py" if f.endswith("__init__.py") else
                  "docs/ or examples/" if f.startswith(("docs/", "examples/")) else "source"] += 1
        if r is None:
            continue
        x = t.X[order[r - 1]]
        for k in ("T", "A", "M", "Ch", "Co", "G", "F"):
            has[k] += bool(x[COLS.index(k)] > 0)
        has["no text hit (brought by memory)"] += x[0] == 0
        pri_ans.append(math.expm1(x[COLS.index("prior")]))
        size_ans.append(math.expm1(x[COLS.index("lsize")]))
        pri_above += [math.expm1(t.X[i][COLS.index("prior")]) for i in order[:5]]
        size_above += [math.expm1(t.X[i][COLS.index("lsize")]) for i in order[:5]]
    print(f"  answer files: {dict(kinds)}; tasks whose answers are all tests: "
          f"{sum(all(is_test(f) for f in t.targets) for t in tasks)}; queries naming tests: "
          f"{sum(bool(TEST_WORD.search(t.query)) for t in tasks)}")
    print(f"  not in the top 5: {miss} of {len(tasks)}; first answer at: {dict(pos)}")
    print(f"  the 5 files above it: {dict(above)}")
    print(f"  signals of the first answer (of {miss - pos['not among the candidates']} found): {dict(has)}")
    print(f"  median past commits touching: answer {np.median(pri_ans):.0f}, files above it {np.median(pri_above):.0f}; "
          f"median full tokens: answer {np.median(size_ans):.0f}, above {np.median(size_above):.0f}")


def fit_grid(tasks, w0, grid: dict, rounds: int = 2) -> np.ndarray:
    best, bs = w0.copy(), score_all(tasks, w0)["mrr"]
    for _ in range(rounds):
        for k, vals in grid.items():
            for v in vals:
                w = best.copy()
                w[COLS.index(k)] = v
                sc = score_all(tasks, w)["mrr"]
                if sc > bs + 1e-9:
                    best, bs = w, sc
    return best


def loro(tasks, w0, fit) -> tuple[dict, dict]:
    """Fit on two repositories, score the third; pooled over the three held-out scores."""
    held, base = [], []
    for r in REPOS:
        w = fit([t for t in tasks if t.repo != r], w0)
        te = [t for t in tasks if t.repo == r]
        held += [t.rank(t.X @ w) for t in te]
        base += [t.rank(t.X @ w0) for t in te]
    return metrics(held), metrics(base)


def pairwise_logistic(tasks, w0, l2=1e-2, iters=300, lr=0.5, neg=30):
    D = []
    for t in tasks:
        if not t.y.any():
            continue
        P, N = t.X[t.y], t.X[~t.y]
        hard = N[np.argsort(-(N @ w0))[:neg]]
        D += [p[None, :] - hard for p in P[:3]]
    D = np.concatenate(D)
    sd = D.std(0) + 1e-9
    Dn, w = D / sd, w0 * sd
    for _ in range(iters):
        z = Dn @ w
        w -= lr * (-(Dn * (1 / (1 + np.exp(np.clip(z, -50, 50))))[:, None]).mean(0) + l2 * w)
    return w / sd


def listwise(tasks, w0, l2=1e-2, iters=300, lr=0.3):
    allX = np.concatenate([t.X for t in tasks])
    sd = allX.std(0) + 1e-9
    data = [(t.X / sd, t.y / t.y.sum()) for t in tasks if t.y.any()]
    w = w0 * sd
    for _ in range(iters):
        g = np.zeros_like(w)
        for Z, q in data:
            s = Z @ w
            p = np.exp(s - s.max())
            g += Z.T @ (p / p.sum() - q)
        w -= lr * (g / len(data) + l2 * w)
    return w / sd


def confidence(tasks, w, cols, alpha: float, how: str) -> dict:
    ranks = []
    for t in tasks:
        ww = w.copy()
        for k in cols:
            c = np.sort(t.X[:, COLS.index(k)])[::-1]
            if len(c) > 1 and c[0] > 0:
                conf = (c[0] - c[1]) / c[0] if how == "margin" else c[0] / (c[:10].mean() + 1e-12) - 1
                ww[COLS.index(k)] *= 1 + alpha * conf
        ranks.append(t.rank(t.X @ ww))
    return metrics(ranks)


def note_shares(t, w, how: str, k: float = 0.0, topk: int | None = None) -> np.ndarray:
    """The default score with the mined/agent channels re-aggregated from the note hits."""
    from stratum import rank as R

    per: dict[str, dict[str, list[float]]] = {"notes": {}, "mined": {}, "changes": {}}
    seen = Counter()
    for c in t.q.cands:
        h = t.q.signals.hit(c)
        if h.note is None:
            continue
        ch = {R.AGENT: "notes", R.MINED: "mined", R.CHANGES: "changes"}[h.note.channel]
        seen[ch] += 1
        if topk and seen[ch] > topk:
            continue
        files = [f for f in dict.fromkeys(h.note.files) if f]
        v = c.score if how in ("harm", "max", "sum", "harm2", "sqrt") else (
            1.0 / (k + seen[ch]) if how == "rank" else c.score ** k * 60 ** (k - 1))
        for f in files:
            per[ch].setdefault(f, []).append(v / math.sqrt(len(files)))
    agg = {"max": lambda xs: xs[0], "sum": sum, "harm2": lambda xs: sum(x / j ** 2 for j, x in enumerate(xs, 1)),
           "sqrt": lambda xs: sum(x / math.sqrt(j) for j, x in enumerate(xs, 1))}.get(
        how, lambda xs: sum(x / j for j, x in enumerate(xs, 1)))
    out = t.X @ w
    for ch, col in (("notes", "N"), ("mined", "M"), ("changes", "Ch")):
        j = COLS.index(col)
        for i, f in enumerate(t.files):
            xs = sorted(per[ch].get(f, []), reverse=True)
            out[i] += w[j] * ((agg(xs) if xs else 0.0) - t.X[i, j])
    return out


def oracle(tasks) -> dict:
    ranks = []
    for t in tasks:
        best = None
        for k in ("T", "A", "N", "M", "Ch", "Co", "G", "F"):
            c = t.X[:, COLS.index(k)]
            order = [i for i in np.lexsort((np.arange(len(t.files)), -c)) if c[i] > 0]
            r = next((j for j, i in enumerate(order, 1) if t.y[i]), None)
            if r and (best is None or r < best):
                best = r
        ranks.append(best)
    return metrics(ranks)


def ident(q: str) -> bool:
    from stratum.codetokens import looks_like_identifier

    return any("`" in w or looks_like_identifier(w.strip("`'\".,:;()[]{}!?")) for w in q.split())


def main() -> int:
    from stratum import rank as R

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    print(C.__doc__)
    print(__doc__.split("Usage:")[0])
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}\n")
    W = R.DEFAULT_WEIGHTS
    setups, by = [], {label: [] for label in CONDS}
    for r in REPOS:
        cut = C.resolve_commit((HERE / ".repos" / r).resolve(), RM.EVAL_AT[r])
        cut_time = next(x.time for x in C.load_history(HERE / ".repos" / r) if x.sha == cut)
        s = RM.setup(r, RM.PAST_AT[r], args.n, before=cut_time)
        s.prior = _priors(s, 365.0)
        for hl in (30.0, 90.0, 180.0, 365.0):
            _PRI[(r, hl)] = _priors(s, hl)[2]
        qv = np.asarray(s.shard.warm.searcher.embedder.embed([t.query for t in s.tasks]), dtype=np.float32)
        for qs, v in zip(RM.run_queries(s, list(CONDS.values())), qv):
            for label, cond in CONDS.items():
                w = W.only(*RM.DAY_ONE, "file_text") if label == "day one" else W
                by[label].append(Task(s, qs[cond], w))
            day1 = qs["day1"]
            docs = list(day1.docs.values())
            t = by["day one"][-1]
            t.notes_list = RM.search(s, day1.t.query, docs, kinds=("fix", "change"))
            M = np.stack([d.vector for d in docs])
            sims = M @ v / (np.linalg.norm(M, axis=1) * np.linalg.norm(v) + 1e-9)
            t.sims = [(float(x), d.files) for x, d in zip(sims, docs)]
        RM.save_cache(s)
        timing(s)
        setups.append(s)
    GR = {"A": (0, .1, .25, .5, 1), "M": (0, .1, .25, .5, 1), "Ch": (.5, 1, 1.5, 2, 3), "Co": (0, .05, .1, .25),
          "G": (0, .1, .25, .5), "F": (0, .5, 1, 2)}
    for label, tasks in by.items():
        w0 = vec(T=1, A=W.symbols, N=W.notes if label == "all" else 0.0, M=W.mined, Ch=W.changes,
                 Co=W.cochange, G=W.graph, F=W.file_text)
        nof = w0.copy()
        nof[COLS.index("F")] = 0.0
        print(f"\n== {label} ({len(tasks)} past tasks)")
        print(f"  default, no whole-file list        {fmt(score_all(tasks, nof))}")
        print(f"  default (with the whole-file list) {fmt(score_all(tasks, w0))}")
        print("  diagnosis (default, no whole-file list):")
        diagnose(tasks, nof)
        held, base = loro(tasks, nof, lambda tr, w: fit_grid(tr, w, {"F": (0, .25, .5, 1, 1.5, 2)}))
        print(f"  whole-file list, weight fitted held out (LORO): {fmt(held)}  (without: {fmt(base)})")
        print(f"  oracle over single lists: {fmt(oracle(tasks))}")
        for name in ("prior", "fixprior", "prior_d"):
            best = max(((v, score_all(tasks, w0 + vec(**{name: v}))) for v in (-.003, .001, .002, .003, .005, .01, .02)),
                       key=lambda x: x[1]["mrr"])
            print(f"  + history prior {name:9s} best w {best[0]:+.3f}: {fmt(best[1])}")
        for hl in (30.0, 90.0, 180.0):
            for t in tasks:
                t.X[:, COLS.index("prior_d")] = [math.log1p(_priors_cache(t, hl)[f]) for f in t.files]
            best = max(((v, score_all(tasks, w0 + vec(prior_d=v))) for v in (.002, .005, .01, .02)),
                       key=lambda x: x[1]["mrr"])
            print(f"  + decayed prior, half-life {hl:.0f} d, best w {best[0]:.3f}: {fmt(best[1])}")
        for t in tasks:
            t.X[:, COLS.index("prior_d")] = [math.log1p(_priors_cache(t, 365.0)[f]) for f in t.files]
        held, base = loro(tasks, w0, lambda tr, w: fit_grid(tr, w, {"prior_d": (0, .001, .002, .003, .005, .01)}))
        print(f"  + decayed prior (365 d), fitted held out (LORO): {fmt(held)}  (default: {fmt(base)})")
        for v in (.005, .01, .02):
            pen = score_all(tasks, w0, lambda t: -v * t.X[:, COLS.index("test")] * (not TEST_WORD.search(t.query)))
            boost = score_all(tasks, w0, lambda t: v * t.X[:, COLS.index("test")] * bool(TEST_WORD.search(t.query)))
            print(f"  test files {v}: penalty unless the query names tests {fmt(pen)}; boost when it does {fmt(boost)}")
        for how, k, topk in (("max", 0, None), ("sum", 0, None), ("harm2", 0, None), ("sqrt", 0, None),
                             ("harm", 0, 10), ("harm", 0, 20), ("rank", 10, None), ("rank", 20, None),
                             ("pow", 2, None), ("pow", 4, None)):
            m = metrics([t.rank(note_shares(t, w0, how, k, topk)) for t in tasks])
            print(f"  note evidence {how} k={k} top={topk}: {fmt(m)}")
        for name, learn in (("pairwise logistic", pairwise_logistic), ("listwise softmax", listwise)):
            w = learn(tasks, w0)
            held, base = loro(tasks, w0, learn)
            print(f"  {name}: in-sample {fmt(score_all(tasks, w))}; held out (LORO) {fmt(held)} (default {fmt(base)})")
        routed, base = [], []
        for r in REPOS:
            for g in (True, False):
                tr = [t for t in tasks if t.repo != r and ident(t.query) == g]
                te = [t for t in tasks if t.repo == r and ident(t.query) == g]
                w = fit_grid(tr, w0, GR, rounds=1)
                routed += [t.rank(t.X @ w) for t in te]
                base += [t.rank(t.X @ w0) for t in te]
        print(f"  query-type routing (identifier-like / prose weights), LORO: {fmt(metrics(routed))} (default {fmt(metrics(base))})")
        best = max(((how, cols, a, confidence(tasks, w0, cols, a, how)) for how in ("margin", "peak")
                    for cols in (("T",), ("Ch",), ("F",), ("T", "Ch", "F")) for a in (0.5, 1, 2, 4)),
                   key=lambda x: x[3]["mrr"])
        print(f"  per-query channel confidence, best of 32 variants ({best[0]} {best[1]} x{best[2]}): {fmt(best[3])}")
        if label == "day one":
            for ch in (1.0, 1.5, 2.0):
                print(f"  mined notes as their own list, changes {ch}: {fmt(notes_list(tasks, replace(W.only(*RM.DAY_ONE, 'file_text'), changes=ch)))}")
            for k in (10, 30, 100):
                for p in (1, 4):
                    best = max(((a, score_all(tasks, w0, lambda t: a * knn(t, k, p))) for a in (.005, .01, .02, .05)),
                               key=lambda x: x[1]["mrr"])
                    print(f"  similar past commits k={k} p={p}, best weight {best[0]}: {fmt(best[1])}")
    for s in setups:
        s.tools.close()
    return 0


_PRI: dict = {}


def notes_list(tasks, w) -> dict:
    from stratum import rank as R

    ranks = []
    for t in tasks:
        cands = list(t.q.cands)
        have = {c.id for c in cands}
        cands += [R.Candidate(e.row, e.score, tuple(e.sources), e.id) for e in t.notes_list if e.id not in have]
        ranks.append(C.first_rank([f.path for f in R.rank_files(cands, t.q.signals, w, file_hits=t.q.file_hits)],
                                  t.targets))
    return metrics(ranks)


def knn(t: Task, k: int, p: float) -> np.ndarray:
    out = dict.fromkeys(t.files, 0.0)
    for sim, files in sorted(t.sims, key=lambda x: -x[0])[:k]:
        for f in files:
            if f in out:
                out[f] += max(sim, 0.0) ** p / math.sqrt(len(files))
    return np.array([out[f] for f in t.files])


def timing(s) -> None:
    import time

    from stratum.filetext import FileText

    paths = s.files.text.paths
    texts = [(s.store.parent / s.name / p).read_text(errors="replace") if (s.store.parent / s.name / p).exists() else ""
             for p in paths]
    t0 = time.perf_counter()
    ft = FileText(paths, texts)
    build = time.perf_counter() - t0
    ts = []
    for t in s.tasks:
        t1 = time.perf_counter()
        ft.hits(t.query, RM.FILE_DEPTH)
        ts.append(time.perf_counter() - t1)
    ts.sort()
    print(f"  {s.name}: whole-file list over {len(paths)} files: build {build:.2f} s; hits p50 "
          f"{ts[len(ts) // 2] * 1e3:.3f} ms, p95 {ts[int(len(ts) * 0.95)] * 1e3:.3f} ms ({len(ts)} queries)")


def _priors_cache(t: Task, half_life: float) -> Counter:
    """Decayed counts per file for a task's repository (the setup's mined day-one nodes)."""
    return _PRI[(t.repo, half_life)]


if __name__ == "__main__":
    raise SystemExit(main())
