"""Replay benchmark: the controller's S(v) policy against plain LRU (the paper's RQ3), on traces
built from a real repository's history.

A measurement of this replay, not a claim about agents. Run with --help for the options;
the definitions printed at the start of a run are the ones its numbers use.

    .venv/bin/python benchmarks/controller_policy.py --repo benchmarks/.repos/flask
"""

from __future__ import annotations

import argparse
import ast
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.gitio import decode, head_commit, run_git  # noqa: E402
from stratum import tokens  # noqa: E402
from stratum.controller import Controller, RecordGraph  # noqa: E402
from stratum.errors import BudgetExceeded  # noqa: E402
from stratum.ids import node_id  # noqa: E402
from stratum.policies import RANK, LRUPolicy, ScorePolicy, ScoreWeights  # noqa: E402

DEFINITIONS = """\
Definitions (controller_policy replay)
- Graph: the repository at HEAD, Python files only (vendored dirs skipped), one node per file.
  Detail levels, counted with cl100k_base: full = the file's text; api = module docstring plus every
  class/def signature and docstring (rendered from `ast`); summary = one line (path + first
  docstring line). imports edges: `import`/`from` statements resolved to files of the repo
  (src/ layouts and relative imports handled); tests edges: tests/**/test_X.py -> the one file X.py.
- Co-change: commits BEFORE the replay window only (no peeking), merges skipped, commits touching more
  than 30 files skipped; pairs of .py files that exist at HEAD; weight = number of shared commits,
  pairs with fewer than 2 dropped. Renames are followed (git -M), so history before a move counts
  for the file's path at HEAD.
- Replay window: the last N commits (oldest first) that change >= 1 .py file existing at HEAD
  (<= 30 files). Each commit is one task of a simulated agent in ONE session (budget carried across
  tasks), with a fixed seed:
    1. open: get each changed file at full (the controller infers the focus from these gets);
    2. explore: for each changed file, get up to K of its imports/tests neighbours at api level
       (sampled with the seed);
    3. edit loop, R rounds: get each changed file at full again, and one already-explored neighbour
       at api.
  Changed files come from the real history; neighbour reads come from the same graph that G uses,
  so the 'neighbour' column favours graph-aware policies by construction; the 'edit' column
  (changed files, from history) does not.
- Every access goes through Controller.admit, as a tool call would. A hit: the node was already in
  context at the asked level or higher. Tokens fetched: tokens added on misses (an upgrade adds the
  difference). Re-fetched: fetched tokens for a (node, level) the session had held before and lost
  to an eviction or demotion. Refused: accesses that could not be served at the asked level (admit
  raised BudgetExceeded: it does not fit even after evicting everything evictable); the access then
  falls back to api, then summary, as a tool would, and counts as a miss. A refused access fetches
  the shorter rendering, so tokens fetched are comparable only between rows with equal refusals.
- Admit cost: CPU time of the replay thread per access (time.thread_time_ns; all admit attempts
  of that access), so preemption by other processes on the shared machine is not counted.
- Controller: default ControllerConfig (15% reserve, history half-life 16 calls, focus inferred
  from the last file got at full, G up to 2 hops over imports/tests).
- Policies: score = S(v) with the default weights (G .4, C .2, H .4, P 1) and its ladder (others to
  summary, then dropped; focus neighbours to api; focus files full until the others are gone;
  neighbours and focus below api only as a last resort to fit the limit); score strict = the same
  but neighbours never below api (a request that cannot fit is refused); lru = drop the least
  recently used entries whole; ablations: S(v) with one signal weighted (same ladder as score).
"""


# ---- the graph of a real repository ---------------------------------------------------------------

SKIP_DIRS = {"node_modules", "vendor", "third_party", "third-party", "external", ".venv", "venv",
             "site-packages", "build", "dist"}


def py_files(repo: Path) -> list[str]:
    out = decode(run_git(repo, "ls-files", "-z", "--", "*.py")).split("\0")
    return sorted(p for p in out if p and not (set(Path(p).parts[:-1]) & SKIP_DIRS))


def module_names(path: str) -> list[str]:
    """Dotted names a file may be imported as (with and without a leading src/ or lib/)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    names = [".".join(parts[i:]) for i in range(len(parts)) if parts[i:]]
    return names


def render_api(tree: ast.Module) -> str:
    lines = []
    doc = ast.get_docstring(tree)
    if doc:
        lines.append(doc)

    def walk(body, indent):
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                ret = f" -> {ast.unparse(n.returns)}" if n.returns else ""
                kw = "async def" if isinstance(n, ast.AsyncFunctionDef) else "def"
                lines.append(f"{indent}{kw} {n.name}({ast.unparse(n.args)}){ret}")
            elif isinstance(n, ast.ClassDef):
                bases = ", ".join(ast.unparse(b) for b in n.bases)
                lines.append(f"{indent}class {n.name}({bases})" if bases else f"{indent}class {n.name}")
            else:
                continue
            d = ast.get_docstring(n)
            if d:
                lines.append(indent + "    " + d.replace("\n", "\n" + indent + "    "))
            if isinstance(n, ast.ClassDef):
                walk(n.body, indent + "    ")
    walk(tree.body, "")
    return "\n".join(lines)


@dataclass
class RepoGraph:
    repo: str
    files: list[str]
    levels: dict[str, dict[str, int]]
    imports: set[tuple[str, str]]
    tests: set[tuple[str, str]]
    neighbours: dict[str, list[str]] = field(default_factory=dict)


def build_graph(repo: Path) -> RepoGraph:
    files = py_files(repo)
    by_module: dict[str, list[str]] = defaultdict(list)
    for p in files:
        for m in module_names(p):
            by_module[m].append(p)
    levels, imports, parsed = {}, set(), {}
    texts, apis, sums = [], [], []
    for p in files:
        text = (repo / p).read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = ast.Module(body=[], type_ignores=[])
        parsed[p] = tree
        doc = (ast.get_docstring(tree) or "").strip().splitlines()
        texts.append(text)
        apis.append(render_api(tree) or p)
        sums.append(f"{p}: {doc[0] if doc else 'module'}")
    for p, f, a, s in zip(files, tokens.count_many(texts), tokens.count_many(apis), tokens.count_many(sums)):
        levels[p] = {"summary": s, "api": min(a, f) or s, "full": max(f, s)}

    def resolve(name: str) -> str | None:
        cands = by_module.get(name, [])
        return cands[0] if len(cands) == 1 else (min(cands, key=len) if cands else None)

    for p in files:
        pkg = list(Path(p).with_suffix("").parts)
        if pkg[-1] != "__init__":
            pkg = pkg[:-1]
        else:
            pkg = pkg[:-1]
        for n in ast.walk(parsed[p]):
            targets = []
            if isinstance(n, ast.Import):
                targets = [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = pkg[: len(pkg) - (n.level - 1)] if n.level > 1 else pkg
                    mod = ".".join(base + ([n.module] if n.module else []))
                else:
                    mod = n.module or ""
                targets = [mod] + [f"{mod}.{a.name}" for a in n.names]
            for t in targets:
                # the longest prefix of the dotted name that is a file of the repo
                parts = t.split(".")
                for k in range(len(parts), 0, -1):
                    hit = resolve(".".join(parts[:k]))
                    if hit:
                        if hit != p:
                            imports.add((p, hit))
                        break
    tests = set()
    stems = defaultdict(list)
    for p in files:
        stems[Path(p).stem].append(p)
    for p in files:
        name = Path(p).name
        if ("tests" in Path(p).parts or name.startswith("test_")) and name.startswith("test_"):
            cands = [c for c in stems.get(name[5:-3], []) if "tests" not in Path(c).parts]
            if len(cands) == 1:
                tests.add((p, cands[0]))
    g = RepoGraph(str(repo), files, levels, imports, tests)
    nb = defaultdict(set)
    for a, b in imports | tests:
        nb[a].add(b)
        nb[b].add(a)
    g.neighbours = {p: sorted(nb[p]) for p in files}
    return g


# ---- history --------------------------------------------------------------------------------------

def commits(repo: Path) -> list[tuple[str, list[str]]]:
    """(sha, changed paths named as at HEAD) oldest first, merges skipped. Renames are followed
    (git's default similarity) so a file's history before a move counts for its current path;
    files deleted before HEAD keep their old names (they match no HEAD file)."""
    out = decode(run_git(repo, "-c", "core.quotepath=off", "log", "--no-merges", "-M",
                         "--format=@@@%H", "--name-status"))
    newest_first, sha, changes = [], None, []
    for line in out.splitlines():
        if line.startswith("@@@"):
            if sha:
                newest_first.append((sha, changes))
            sha, changes = line[3:], []
        elif line.strip():
            parts = line.split("\t")
            changes.append((parts[0], parts[1:]))
    if sha:
        newest_first.append((sha, changes))
    current: dict[str, str] = {}   # path as it was at some point -> its path at HEAD
    res = []
    for sha, changes in newest_first:
        paths = []
        for status, ps in changes:
            if status.startswith("R") and len(ps) == 2:
                old, new = ps
                cur = current.get(new, new)
                current[old] = cur
                paths.append(cur)
            else:
                paths.append(current.get(ps[-1], ps[-1]))
        res.append((sha, paths))
    res.reverse()
    return res


def split_history(hist, files: set[str], window: int, max_files: int = 30):
    tasks = []
    for i in range(len(hist) - 1, -1, -1):
        sha, paths = hist[i]
        if len(paths) > max_files:
            continue
        py = sorted({p for p in paths if p in files})
        if py:
            tasks.append((i, sha, py))
        if len(tasks) == window:
            break
    tasks.reverse()
    start = tasks[0][0] if tasks else len(hist)
    support = Counter()
    for sha, paths in hist[:start]:
        if len(paths) > max_files:
            continue
        py = sorted({p for p in paths if p in files})
        for a, b in combinations(py, 2):
            support[(a, b)] += 1
    cochange = {k: v for k, v in support.items() if v >= 2}
    return [(sha, py) for _, sha, py in tasks], cochange, start


# ---- the trace and its replay ----------------------------------------------------------------------

def make_trace(g: RepoGraph, tasks, k: int, rounds: int, seed: int):
    rng = random.Random(seed)
    trace = []  # (task index, path, level, kind)
    for ti, (_, changed) in enumerate(tasks):
        explored = []
        for p in changed:
            trace.append((ti, p, "full", "edit"))
        for p in changed:
            nbs = [n for n in g.neighbours.get(p, []) if n not in changed]
            for n in rng.sample(nbs, min(k, len(nbs))):
                trace.append((ti, n, "api", "neighbour"))
                explored.append(n)
        for _ in range(rounds):
            for p in changed:
                trace.append((ti, p, "full", "edit"))
            if explored:
                trace.append((ti, rng.choice(explored), "api", "neighbour"))
    return trace


def record_graph(g: RepoGraph, cochange) -> tuple[RecordGraph, dict[str, str]]:
    ids = {p: node_id("bench", p, "file") for p in g.files}
    nodes = [{"id": ids[p], "kind": "file", "path": p, "parent_id": None,
              **{f"{lvl}_tokens": t for lvl, t in g.levels[p].items()}} for p in g.files]
    edges = [{"src": ids[a], "dst": ids[b], "kind": "imports"} for a, b in sorted(g.imports)]
    edges += [{"src": ids[a], "dst": ids[b], "kind": "tests"} for a, b in sorted(g.tests)]
    edges += [{"src": ids[a], "dst": ids[b], "kind": "cochange", "weight": float(w), "support": w}
              for (a, b), w in sorted(cochange.items())]
    return RecordGraph(nodes, edges), ids


def replay(trace, g: RepoGraph, rg: RecordGraph, ids, budget: int, policy) -> dict:
    ctl = Controller(budget, policy, rg)
    held_before: dict[str, int] = {}   # node -> highest level rank it has held in this session
    m = Counter()
    admit_ns = []
    for _, path, level, kind in trace:
        nid = ids[path]
        cur = ctl.level_of(nid)
        hit = cur is not None and RANK[cur] >= RANK[level]
        m["accesses"] += 1
        m[f"accesses_{kind}"] += 1
        if hit:
            m["hits"] += 1
            m[f"hits_{kind}"] += 1
        t0 = time.thread_time_ns()
        r = None
        for lvl in FALLBACK[level]:
            try:
                r = ctl.admit([(nid, lvl, g.levels[path][lvl])])
                break
            except BudgetExceeded:
                pass
        admit_ns.append(time.thread_time_ns() - t0)
        if lvl != level or r is None:
            m["refused"] += 1
        if r is None:
            continue
        fetched = sum(a.tokens_added for a in r.admitted)
        m["fetched"] += fetched
        if fetched and held_before.get(nid, -1) >= RANK[lvl]:
            m["refetched"] += fetched
        held_before[nid] = max(held_before.get(nid, -1), RANK[lvl])
        m["evictions"] += len(r.evictions)
        m["short"] += r.reserve_short > 0
    m["admit_us_p50"] = statistics.median(admit_ns) / 1000
    m["admit_us_p99"] = sorted(admit_ns)[int(0.99 * (len(admit_ns) - 1))] / 1000
    return dict(m)


# a refused level falls back to the next shorter rendering, as a tool would
FALLBACK = {"full": ("full", "api", "summary"), "api": ("api", "summary"), "summary": ("summary",)}
POLICIES = {
    "score": lambda: ScorePolicy(),
    "score strict": lambda: ScorePolicy(strict_neighbours=True),
    "lru": lambda: LRUPolicy(),
    "score G only": lambda: ScorePolicy(ScoreWeights(g=1, c=0, h=0, p=1)),
    "score C only": lambda: ScorePolicy(ScoreWeights(g=0, c=1, h=0, p=1)),
    "score H only": lambda: ScorePolicy(ScoreWeights(g=0, c=0, h=1, p=1)),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", action="append", required=True, help="a git clone (repeatable)")
    ap.add_argument("--window", type=int, default=200, help="commits replayed per repository")
    ap.add_argument("--budgets", default="16000,32000,64000", help="session budgets in tokens")
    ap.add_argument("--k", type=int, default=3, help="neighbours explored per changed file")
    ap.add_argument("--rounds", type=int, default=2, help="edit-loop rounds per task")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--policies", default=",".join(POLICIES))
    args = ap.parse_args(argv)
    print(DEFINITIONS)
    budgets = [int(b) for b in args.budgets.split(",")]
    pols = [p.strip() for p in args.policies.split(",")]
    header = ("| repo | budget | policy | accesses | hit rate | edit hits | neighbour hits | tokens fetched "
              "| re-fetched | evictions | refused | admit CPU p50 µs | admit CPU p99 µs |\n"
              "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    results: dict[tuple[str, int, str], tuple[float, int]] = {}
    for repo in args.repo:
        root = Path(repo)
        t0 = time.perf_counter()
        g = build_graph(root)
        hist = commits(root)
        tasks, cochange, start = split_history(hist, set(g.files), args.window)
        rg, ids = record_graph(g, cochange)
        trace = make_trace(g, tasks, args.k, args.rounds, args.seed)
        full = [lv["full"] for lv in g.levels.values()]
        print(f"\n**{root.name}** @ {head_commit(root)}: {len(g.files)} .py files, "
              f"{sum(full)} tokens at full (median file {int(statistics.median(full))}, max {max(full)}), "
              f"{len(g.imports)} imports, {len(g.tests)} tests, {len(cochange)} co-change pairs from "
              f"{start} earlier commits; window {len(tasks)} commits {tasks[0][0][:10]}..{tasks[-1][0][:10]}; "
              f"{len(trace)} accesses; built in {time.perf_counter() - t0:.1f}s\n", flush=True)
        print(header)
        for b in budgets:
            for name in pols:
                m = replay(trace, g, rg, ids, b, POLICIES[name]())
                hr = m.get("hits", 0) / m["accesses"]
                he = m.get("hits_edit", 0) / max(1, m.get("accesses_edit", 0))
                hn = m.get("hits_neighbour", 0) / max(1, m.get("accesses_neighbour", 0))
                print(f"| {root.name} | {b} | {name} | {m['accesses']} | {hr:.3f} | {he:.3f} | {hn:.3f} "
                      f"| {m['fetched']} | {m.get('refetched', 0)} | {m.get('evictions', 0)} "
                      f"| {m.get('refused', 0)} | {m['admit_us_p50']:.0f} | {m['admit_us_p99']:.0f} |",
                      flush=True)
                results[(root.name, b, name)] = (hr, m["fetched"])
    if "score" in pols and "lru" in pols:
        print("\n**S(v) vs LRU**, same run (ratio = score / lru)\n")
        print("| repo | budget | hit rate score | hit rate lru | ratio | tokens fetched score "
              "| tokens fetched lru | ratio |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for (repo, b, name), (hr, fe) in results.items():
            if name != "score":
                continue
            lhr, lfe = results[(repo, b, "lru")]
            print(f"| {repo} | {b} | {hr:.3f} | {lhr:.3f} | {hr / lhr if lhr else float('nan'):.2f} "
                  f"| {fe} | {lfe} | {fe / lfe if lfe else float('nan'):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
