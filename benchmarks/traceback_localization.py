"""Fault localization from a pasted test failure: does ``search`` find the definition that broke?

Mutation-based, on real code and real tests: one definition of flask is broken at a time, flask's
own test suite runs, and the whole failure pytest printed is the query, as an agent would paste it.
The index is of the unmutated commit (no future leakage: the store cannot know the mutant).

Definitions (printed):
- **store**: flask (benchmarks/.repos/flask) indexed at 2ac89889f4cc (benchmarks/.out/notes/runs/n0,
  the notes_scale store, MiniLM vectors, mined fix/change nodes); searched on a private copy
  (benchmarks/.out/tbloc/store), indexed again there by the code under test at the same commit
  (its parse and edges, e.g. the calls edges a frame's callees follow; vectors from the store's
  cache), through ``stratum.tools.Tools.search``, one session (author "bench",
  a budget no page can exceed, so no page is cut by it), the first 50 items served, read page
  after page (page_size 50: a search's first page may end early, where the evidence drops).
- **test environment**: a clone of the indexed commit (benchmarks/.out/tbloc/flask) and a venv
  (benchmarks/.out/tbloc/venv) holding it editable, with the versions its ``uv.lock`` pins for its
  ``tests`` group (pytest, asgiref, greenlet, python-dotenv) and its runtime dependencies. Tests:
  ``<venv>/bin/python -m pytest -x -q -p no:cacheprovider tests`` in the clone, no bytecode written
  (a stale .pyc could outlive a restored file), tests failing unmutated deselected.
- **mutant**: one operator applied to one function or method of ``src/flask/**/*.py`` (nested
  functions included), patched into the source text by the ast positions, everything else
  byte-identical, restored (and checked against git) after its run:
  ``return``: the definition's first ``return <expr>`` (source order, its own body: not inside a
  nested def, class or lambda; not ``return None``, not bare) becomes ``return None``;
  ``if``: its first ``if``/``elif <cond>:`` becomes ``if not (<cond>):``.
  **sample**: every candidate (at most one per operator and definition), sorted by id, shuffled with
  random.Random(--seed); the first --max-mutants (a larger sample holds the smaller one; 0, the
  default: all).
- **killed**: pytest's exit status is not 0 within TIMEOUT s (a failed test, or an error while
  collecting); its whole output (stdout + stderr) is kept (benchmarks/.out/tbloc/runs.jsonl).
  **survived**: exit 0. **timed out**: no answer within TIMEOUT s (neither; not searched).
- **answer**: the index's node of the mutated definition: same file, same qualified name (the
  index names a second definition of a name ``name#2``, e.g. a property setter), its line range
  holding the ``def`` line. The index holds no function nested in a function: a nested mutant's
  answer is its innermost indexed enclosing definition (counted, "nested").
- **conditions** (the same killed mutants):
  **traceback-aware**: the whole output as the query (when longer than
  limits.MAX_TRACEBACK_CHARS, its last MAX_TRACEBACK_CHARS characters; counted): frames read,
  the text lists read ``tracebacks.condensed`` of it when it is over MAX_QUERY_CHARS.
  **text only** (what an agent got before): the output's last MAX_QUERY_CHARS characters, with
  frame reading off for the call (``stratum.tools.TB.frames`` returns ``[]``).
  **tail + frames** (diagnostic): the same last MAX_QUERY_CHARS characters with frames read: what
  the frames of the tail alone bring, apart from the longer paste.
- **rank**: the answer's place among the 50 items (1-based; none: not among them). **file rank**:
  the place of the first code item (file, class, function, method) whose path is the mutated file.
  Acc@k: rank <= k; MRR: mean of 1/rank (0 when none).
- **on the stack**: a frame of the output (pytest's ``path:LINE: ...``, Python's ``File "path",
  line N``; read here by this script, not by stratum) lies in the mutated file within the answer's
  line range: the broken definition raised or was on the way. Otherwise the fault is upstream of
  the failure (a wrong value returned earlier, seen by an assert in a test). **located**: the tool's
  own reading (``tracebacks.locate`` on the traceback-aware query) names the answer.
- **intervals**: paired bootstrap over the killed mutants (2,000 resamples, numpy seed 0,
  percentile 95%) of the MRR difference between two conditions.

Run: .venv/bin/python benchmarks/traceback_localization.py [--max-mutants N (0: all)] [--seed 1] [--reuse]
Writes benchmarks/.out/tbloc/results.json (every mutant's row, the summary) and runs.jsonl (the
pytest outputs); --reuse takes the outputs kept there for the same mutant and source, so only the
search part runs again.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import tomllib
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))

import common as C  # noqa: E402  (puts the project root on sys.path)
from stratum.limits import MAX_QUERY_CHARS, MAX_TRACEBACK_CHARS  # noqa: E402

REPO = HERE / ".repos" / "flask"
INDEX = HERE / ".out" / "notes" / "runs" / "n0"    # shared with notes_scale: read, never written
OUT = HERE / ".out" / "tbloc"
SEED = 1
MAX_MUTANTS = 0                # all candidates (431 at 2ac8988: 11-13 min on 2 cores)
TIMEOUT = 120                  # seconds per pytest run
PAGE_SIZE = 50
LOCK_GROUP = "tests"           # flask's uv.lock dependency group the suite needs
CODE_KINDS = ("file", "class", "function", "method")
CONDITIONS = ("traceback-aware", "text only", "tail + frames")
_LOC = re.compile(r'^(?P<path>[^\s:"]+\.py):(?P<line>\d+): |File "(?P<path2>[^"]+\.py)", line (?P<line2>\d+)', re.M)
_EXC = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Group)\b.*")
_SUMMARY = re.compile(r"^(?P<what>FAILED|ERROR) (?P<node>\S+)", re.M)


# ---- the test environment -----------------------------------------------------------------------

def _first(tools, session: str, q: str, n: int = PAGE_SIZE) -> list:
    """The first ``n`` items of the served list: a search's first page may end before its size
    (stratum.pagecut), the next page continues."""
    items: list = []
    token = ""
    while len(items) < n:
        r = tools.search(session, q, page_size=n, page_token=token)
        items += r.items
        if not r.envelope.has_more:
            break
        token = r.envelope.next_page_token
    return items[:n]

def lock_pins(checkout: Path) -> list[str]:
    """``name==version`` for the lock's tests group and the project's runtime dependencies."""
    lock = tomllib.loads((checkout / "uv.lock").read_text())
    versions = {p["name"]: p["version"] for p in lock["package"] if "version" in p}
    proj = tomllib.loads((checkout / "pyproject.toml").read_text())
    names = [re.split(r"[<>=!~ ;\[]", d, maxsplit=1)[0].lower() for d in
             proj["project"]["dependencies"] + proj["dependency-groups"][LOCK_GROUP]]
    missing = [n for n in names if n not in versions]
    if missing:
        raise SystemExit(f"uv.lock pins no version of {missing}")
    return sorted(f"{n}=={versions[n]}" for n in names)


def environment(sha: str, log=print) -> tuple[Path, Path]:
    """(clone, venv python), made once and reused while the pins match."""
    clone = C.checkout_at(REPO, sha, OUT / "flask")
    restore(clone)
    for cache in (clone / "src").rglob("__pycache__"):     # written before this script set no-bytecode
        shutil.rmtree(cache)
    venv = OUT / "venv"
    py = venv / "bin" / "python"
    pins = lock_pins(clone)
    marker = venv / "tbloc-pins.txt"
    want = "\n".join([str(clone.resolve()), *pins])
    if py.exists() and marker.exists() and marker.read_text() == want:
        return clone, py
    log(f"test venv: {venv} (flask editable, {', '.join(pins)})")
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "-e", str(clone), *pins], check=True)
    marker.write_text(want)
    return clone, py


def restore(clone: Path) -> None:
    """The clone's tracked files as committed (a run stopped mid-mutant leaves one patched)."""
    subprocess.run(["git", "-C", str(clone), "checkout", "-q", "--", "."], check=True)


def pytest(clone: Path, py: Path, deselect: list[str], *, stop_first: bool = True,
           timeout: float = TIMEOUT) -> dict:
    """One run of the suite: exit status (None: timed out), seconds, the whole output."""
    cmd = [str(py), "-m", "pytest", *(["-x"] if stop_first else []), "-q", "-p", "no:cacheprovider", "tests"]
    for node in deselect:
        cmd += ["--deselect", node]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)                 # the run's own process group (pytest and its children)
        out, _ = proc.communicate()
        rc = None
    return {"rc": rc, "seconds": round(time.perf_counter() - t0, 2), "output": out.decode("utf-8", "replace")}


# ---- mutants ------------------------------------------------------------------------------------
@dataclass
class Mutant:
    id: str                 # path::qualname::op@line (a getter and its setter share a name)
    path: str               # repository path (src/flask/...)
    qualname: str           # as the source nests it (Class.method, f.inner)
    op: str                 # "return" or "if"
    line: int               # the mutated statement's line
    def_start: int          # the def's first line (decorators included) and last line
    def_end: int
    def_line: int           # the ``def`` keyword's line
    nested: bool            # a function inside a function
    start: int              # byte offsets of the replaced expression in the file
    end: int
    new: str                # what replaces it


def _own(node: ast.AST):
    """The statements and expressions of a def's own body, not those of a nested def, class or lambda."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield n
        todo.extend(ast.iter_child_nodes(n))


def _offsets(src: bytes) -> list[int]:
    starts, pos = [0], 0
    for line in src.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def mutants_of(path: str, src: bytes) -> list[Mutant]:
    """Both operators' mutants of every function and method in one file (ast columns are UTF-8 bytes)."""
    tree = ast.parse(src)
    starts = _offsets(src)
    out: list[Mutant] = []

    def span(e: ast.expr) -> tuple[int, int]:
        return starts[e.lineno - 1] + e.col_offset, starts[e.end_lineno - 1] + e.end_col_offset

    def visit(node: ast.AST, names: list[str], in_def: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, names + [child.name], in_def)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = ".".join(names + [child.name])
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                body = list(_own(child))
                rets = [n for n in body if isinstance(n, ast.Return) and n.value is not None
                        and not (isinstance(n.value, ast.Constant) and n.value.value is None)]
                ifs = [n for n in body if isinstance(n, ast.If)]
                for op, nodes in (("return", rets), ("if", ifs)):
                    if not nodes:
                        continue
                    n = min(nodes, key=lambda x: (x.lineno, x.col_offset))
                    e = n.value if op == "return" else n.test
                    a, b = span(e)
                    new = "None" if op == "return" else f"not ({src[a:b].decode()})"
                    out.append(Mutant(f"{path}::{q}::{op}@{n.lineno}", path, q, op, n.lineno, first, child.end_lineno,
                                      child.lineno, in_def, a, b, new))
                visit(child, names + [child.name], True)
            else:
                visit(child, names, in_def)

    visit(tree, [], False)
    return out


def candidates(clone: Path) -> list[Mutant]:
    out = []
    for f in sorted((clone / "src" / "flask").rglob("*.py")):
        rel = f.relative_to(clone).as_posix()
        out += mutants_of(rel, f.read_bytes())
    return sorted(out, key=lambda m: m.id)


def sample(cands: list[Mutant], n: int, seed: int) -> list[Mutant]:
    """The first ``n`` of the candidates shuffled (0: all of them, in the shuffled order)."""
    order = list(cands)
    random.Random(seed).shuffle(order)
    return order[:n] if n > 0 else order


def patched(src: bytes, m: Mutant) -> bytes:
    return src[:m.start] + m.new.encode() + src[m.end:]


@contextmanager
def applied(clone: Path, m: Mutant):
    """The clone with this mutant in its file, restored byte for byte afterwards (checked by git)."""
    f = clone / m.path
    orig = f.read_bytes()
    new = patched(orig, m)
    ast.parse(new)                              # a mutant always compiles (else it is a bug here)
    f.write_bytes(new)
    try:
        yield hashlib.blake2b(new, digest_size=8).hexdigest()
    finally:
        f.write_bytes(orig)
        dirty = subprocess.run(["git", "-C", str(clone), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        if dirty:
            raise SystemExit(f"{clone} not restored after {m.id}: {dirty}")


# ---- the store's answer -------------------------------------------------------------------------
class Answers:
    """Index nodes of the definitions (kind function/method/class) by file."""

    def __init__(self, sh):
        col = sh.col
        self.by_path: dict[str, list[tuple[int, int, str, str]]] = {}
        kinds = col("kind").array.to_pylist()
        paths = col("path").array.to_pylist()
        quals = col("qualname").array.to_pylist()
        ids = col("id").array.to_pylist()
        s, e = col("start_line").array.to_pylist(), col("end_line").array.to_pylist()
        for k, p, q, i, a, b in zip(kinds, paths, quals, ids, s, e):
            if k in ("function", "method", "class") and p:
                self.by_path.setdefault(p, []).append((int(a or 0), int(b or 0), q, i))

    def answer(self, m: Mutant) -> tuple[str, str, int, int, str] | None:
        """(id, qualname, start, end, how) of the mutant's node: "name" (same qualified name, the
        index's ``#n`` suffix aside), "enclosing" (a nested def: the innermost indexed one around it)."""
        defs = self.by_path.get(m.path, [])
        same = [d for d in defs if d[2].split("#", 1)[0] == m.qualname and d[0] <= m.def_line <= d[1]]
        if same:
            a, b, q, i = same[0]
            return i, q, a, b, "name"
        around = [d for d in defs if d[0] <= m.line <= d[1]]
        if not around:
            return None
        a, b, q, i = max(around, key=lambda d: d[0])
        return i, q, a, b, "enclosing"


def on_stack(output: str, path: str, start: int, end: int) -> bool:
    """Whether a printed frame is in ``path`` between those lines (read independently of stratum)."""
    for m in _LOC.finditer(output):
        p = (m.group("path") or m.group("path2")).replace("\\", "/")
        line = int(m.group("line") or m.group("line2"))
        if (p == path or p.endswith("/" + path)) and start <= line <= end:
            return True
    return False


def failure_lines(output: str) -> tuple[str, str]:
    """(pytest's summary line: the failing test or module and the error, its first ``E`` line: the
    exception or the failed assert; with -x there is one failure)."""
    s = _SUMMARY.search(output)
    es = [ln[1:].strip() for ln in output.splitlines() if ln.startswith("E ") and ln[1:].strip()]
    if not es:              # an exception group: Python's own traceback inside pytest's, lines behind "|"
        es = [x for x in (ln.strip(" |") for ln in output.splitlines()) if _EXC.match(x)][-1:]
    return (output[s.start():output.find("\n", s.start())].strip()[:300] if s else ""), (es[0][:300] if es else "")


# ---- the searches -------------------------------------------------------------------------------
def ranks(items, node_id: str, path: str) -> tuple[int | None, int | None]:
    r = next((k for k, it in enumerate(items, 1) if it.id == node_id), None)
    f = next((k for k, it in enumerate(items, 1) if it.kind in CODE_KINDS and it.path == path), None)
    return r, f


@contextmanager
def frames_off():
    import stratum.tools as T

    orig = T.TB.frames
    T.TB.frames = lambda query: []
    try:
        yield
    finally:
        T.TB.frames = orig


def search_all(tools, session: str, sh, output: str, ans_id: str, path: str) -> dict:
    from stratum import tracebacks as TB

    whole = output.strip()[-MAX_TRACEBACK_CHARS:]
    tail = output.strip()[-MAX_QUERY_CHARS:]
    out = {"chars": len(output.strip()), "cut_to_max": len(output.strip()) > MAX_TRACEBACK_CHARS}
    for cond, q, off in (("traceback-aware", whole, False), ("text only", tail, True),
                         ("tail + frames", tail, False)):
        if off:
            with frames_off():
                items = _first(tools, session, q)
        else:
            items = _first(tools, session, q)
        r, f = ranks(items, ans_id, path)
        out[cond] = {"rank": r, "file_rank": f, "top": f"{items[0].path}::{items[0].qualname}" if items else "",
                     "top_why": items[0].why[:120] if items else ""}
    fs = TB.frames(whole)
    located = TB.locate(sh, fs)
    out["frames"] = len(fs)
    out["located"] = len(located)
    out["located_at"] = next((k for k, x in enumerate(located, 1) if x.id == ans_id), None)
    return out


# ---- metrics ------------------------------------------------------------------------------------
def metrics(rows: list[dict], cond: str) -> dict:
    out = {"n": len(rows)}
    for what, key in (("def", "rank"), ("file", "file_rank")):
        rs = [r[cond][key] for r in rows]
        for k in (1, 5, 10):
            out[f"{what}_acc@{k}"] = round(C.mean(1.0 if x and x <= k else 0.0 for x in rs), 3)
        out[f"{what}_mrr"] = round(C.mean(C.mrr(x) for x in rs), 3)
    return out


def bootstrap_diff(rows: list[dict], a: str, b: str, key: str, n: int = 2000, seed: int = 0) -> list[float]:
    """[mean, low, high] of MRR(a) - MRR(b) (paired over mutants, percentile 95%)."""
    import numpy as np

    if not rows:
        return [float("nan")] * 3
    d = np.array([C.mrr(r[a][key]) - C.mrr(r[b][key]) for r in rows])
    idx = np.random.default_rng(seed).integers(0, len(d), size=(n, len(d)))
    means = d[idx].mean(1)
    return [round(float(d.mean()), 3), round(float(np.percentile(means, 2.5)), 3),
            round(float(np.percentile(means, 97.5)), 3)]


def splits(rows: list[dict]) -> tuple[tuple[str, list[dict]], ...]:
    return (("all", rows), ("on the stack", [r for r in rows if r["on_stack"]]),
            ("not on the stack", [r for r in rows if not r["on_stack"]]))


def table(rows: list[dict]) -> str:
    lines = ["| condition | killed mutants | n | def Acc@1 | def Acc@5 | def Acc@10 | def MRR | file Acc@1 "
             "| file Acc@5 | file Acc@10 | file MRR |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for cond in CONDITIONS:
        for name, rs in splits(rows):
            m = metrics(rs, cond)
            lines.append(f"| {cond} | {name} | {m['n']} | {m['def_acc@1']:.3f} | {m['def_acc@5']:.3f} | "
                         f"{m['def_acc@10']:.3f} | {m['def_mrr']:.3f} | {m['file_acc@1']:.3f} | "
                         f"{m['file_acc@5']:.3f} | {m['file_acc@10']:.3f} | {m['file_mrr']:.3f} |")
    return "\n".join(lines)


def intervals(rows: list[dict]) -> dict:
    out = {}
    for a, b in (("traceback-aware", "text only"), ("tail + frames", "text only"),
                 ("traceback-aware", "tail + frames")):
        for name, rs in splits(rows):
            for key in ("rank", "file_rank"):
                out[f"{a} - {b} | {name} | {'def' if key == 'rank' else 'file'}"] = bootstrap_diff(rs, a, b, key)
    return out


# ---- the run ------------------------------------------------------------------------------------
def load_cache(path: Path) -> dict[str, dict]:
    got = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                got[r["id"]] = r
    return got


def unmutated(clone: Path, py: Path) -> tuple[dict, list[str]]:
    """The whole suite once, unmutated (no -x): its run and the tests to deselect (those failing)."""
    base = pytest(clone, py, [], stop_first=False, timeout=600)
    found = list(_SUMMARY.finditer(base["output"]))
    if base["rc"] not in (0, 1) or any(m.group("what") == "ERROR" for m in found):
        print(base["output"][-3000:])
        raise SystemExit("the unmutated suite does not run cleanly (collection errors): fix the environment")
    return base, [m.group("node") for m in found if m.group("what") == "FAILED"]


def run_mutants(chosen: list[Mutant], clone: Path, py: Path, deselect: list[str], *, reuse: bool,
                timeout: float) -> tuple[dict[str, dict], int]:
    """Each mutant's pytest run (kept in runs.jsonl; with ``reuse``, taken from there when its mutated
    source and deselected tests are the same): {id: run}, and how many ran now."""
    path = OUT / "runs.jsonl"
    before = load_cache(path)
    cache = before if reuse else {}
    kept, ran, t0 = {}, 0, time.perf_counter()
    for k, m in enumerate(chosen, 1):
        with applied(clone, m) as digest:
            got = cache.get(m.id)
            if got is None or got.get("source") != digest or got.get("deselect") != deselect:
                got = {"id": m.id, "source": digest, "deselect": deselect,
                       **pytest(clone, py, deselect, timeout=timeout)}
                ran += 1
        kept[m.id] = got
        if k % 25 == 0:
            print(f"  {k}/{len(chosen)} mutants ({ran} run, {time.perf_counter() - t0:.0f} s)", flush=True)
    with open(path, "w") as fh:               # this sample's outputs and those kept before
        for r in {**before, **kept}.values():
            fh.write(json.dumps(r) + "\n")
    return kept, ran


def reindex(store: Path) -> None:
    """The copy indexed again by the code under test at the same commit (its parse and edges, e.g.
    the calls edges a frame's callees follow; vectors from the store's cache, same model)."""
    from dataclasses import replace

    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.store import Store

    m = Store(store).manifest()
    cfg = IndexConfig(num_cpus=1, ray=False)
    cfg = replace(cfg, embed=replace(cfg.embed, model=(m.embedding or {}).get("model") or cfg.embed.model))
    index_repository(m.repo_path, store, cfg)
    if Store(store).manifest().indexed_commit != m.indexed_commit:
        raise SystemExit(f"{m.repo_path} is no longer at {m.indexed_commit[:12]}: the store would move")


def localize(chosen: list[Mutant], kept: dict[str, dict]) -> tuple[list[dict], list[str], list[str]]:
    """Every mutant's row (a killed one's ranks in each condition), the answers the index names
    differently, the killed mutants with no answer in the index."""
    from stratum import notethreads
    from stratum.tools import Tools

    store = C.copy_store(INDEX, OUT / "store")
    reindex(store)
    notethreads.prepare_kernels()               # as stratum serve does (notes_scale does the same)
    tools = Tools.open([str(store)])
    try:
        session = tools.open_session(author="bench", budget=10 ** 9).data["session"]
        sh = next(iter(tools.memory))
        answers = Answers(sh)
        rows, naming, skipped = [], [], []
        for m in chosen:
            run = kept[m.id]
            status = "timed out" if run["rc"] is None else ("survived" if run["rc"] == 0 else "killed")
            row = {**{k: v for k, v in asdict(m).items() if k not in ("start", "end")}, "status": status,
                   "rc": run["rc"], "seconds": run["seconds"]}
            rows.append(row)
            if status != "killed":
                continue
            ans = answers.answer(m)
            if ans is None:
                skipped.append(f"{m.id}: no indexed definition around line {m.line}")
                row["status"] = "killed, no answer in the index"
                continue
            aid, aq, a, b, how = ans
            if how != "name" or aq != m.qualname:
                naming.append(f"{m.path}::{m.qualname} -> the index's {aq} ({how})")
            test, eline = failure_lines(run["output"])
            row.update(answer_id=aid, answer_qualname=aq, answer_how=how, failed=test, error_line=eline,
                       on_stack=on_stack(run["output"], m.path, a, b),
                       **search_all(tools, session, sh, run["output"], aid, m.path))
    finally:
        tools.close()
    return rows, list(dict.fromkeys(naming)), skipped


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-mutants", type=int, default=MAX_MUTANTS,
                    help="mutants run: the first of the shuffled candidates (0, the default: every candidate)")
    ap.add_argument("--seed", type=int, default=SEED, help="the candidates' shuffle")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per pytest run")
    ap.add_argument("--reuse", action="store_true",
                    help="take the pytest outputs kept in runs.jsonl (same mutant, same mutated source)")
    args = ap.parse_args()
    print(__doc__.split("Run:")[0].strip(), "\n")
    t0 = time.perf_counter()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    print(f"command: {' '.join(sys.argv)}\nmachine: {C.machine()}, load {os.getloadavg()[0]:.1f}\nstarted: {started}")

    from stratum.store import Store

    sha = Store(INDEX).manifest().indexed_commit
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    print(f"index commit {sha[:12]}; the clone's HEAD {head[:12]}"
          f"{' (same)' if head == sha else ' (differs: tests run at the index commit)'}")
    OUT.mkdir(parents=True, exist_ok=True)
    clone, py = environment(sha)
    base, deselect = unmutated(clone, py)
    print(f"unmutated suite: {base['output'].strip().splitlines()[-1]} ({base['seconds']} s); "
          f"deselected: {deselect or 'none'}")

    cands = candidates(clone)
    chosen = sample(cands, args.max_mutants, args.seed)
    by_op = {op: sum(1 for m in cands if m.op == op) for op in ("return", "if")}
    print(f"candidates: {len(cands)} ({by_op['return']} return, {by_op['if']} if) in "
          f"{len({m.path for m in cands})} files; sample: {len(chosen)} (seed {args.seed})")
    t1 = time.perf_counter()
    kept, ran = run_mutants(chosen, clone, py, deselect, reuse=args.reuse, timeout=args.timeout)
    t2 = time.perf_counter()
    rows, naming, skipped = localize(chosen, kept)
    t3 = time.perf_counter()

    killed = [r for r in rows if r["status"] == "killed"]
    summary = {
        "command": " ".join(sys.argv), "machine": C.machine(), "started": started, "index_commit": sha,
        "clone_head": head, "seed": args.seed, "timeout_s": args.timeout, "candidates": len(cands),
        "candidates_by_op": by_op, "sample": len(chosen),
        "counts": {s: sum(1 for r in rows if r["status"] == s) for s in
                   ("killed", "survived", "timed out", "killed, no answer in the index")},
        "killed_by_op": {op: sum(1 for r in killed if r["op"] == op) for op in ("return", "if")},
        "on_stack": sum(1 for r in killed if r["on_stack"]),
        "located_by_tool": sum(1 for r in killed if r["located_at"]),
        "stack_vs_located_disagree": [r["id"] for r in killed if bool(r["on_stack"]) != bool(r["located_at"])],
        "nested": sum(1 for r in killed if r["answer_how"] == "enclosing"),
        "cut_to_max_traceback": sum(1 for r in killed if r["cut_to_max"]),
        "output_chars_median": C.median(r["chars"] for r in killed),
        "output_chars_max": max((r["chars"] for r in killed), default=0),
        "over_max_query_chars": sum(1 for r in killed if r["chars"] > MAX_QUERY_CHARS),
        "naming": naming, "skipped": skipped,
        "unmutated": {"rc": base["rc"], "seconds": base["seconds"], "deselected": deselect,
                      "last_line": base["output"].strip().splitlines()[-1]},
        "pytest_runs": ran, "pytest_reused": len(chosen) - ran, "test_seconds": round(t2 - t1, 1),
        "search_seconds": round(t3 - t2, 1), "seconds": round(time.perf_counter() - t0, 1),
        "conditions": {c: {name: metrics(rs, c) for name, rs in splits(killed)} for c in CONDITIONS},
        "mrr_diff_ci95": intervals(killed),
    }
    (OUT / "results.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, default=str) + "\n")

    print(json.dumps({k: v for k, v in summary.items() if k not in ("conditions", "mrr_diff_ci95", "naming")},
                     default=str))
    print("\nanswers the index names otherwise:\n  " + "\n  ".join(naming or ["none"]))
    print("\n" + table(killed))
    print("\nMRR differences, paired bootstrap 95% (mean [low, high]):")
    for k, v in summary["mrr_diff_ci95"].items():
        print(f"  {k}: {v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]")
    print(f"\nresults: {OUT / 'results.json'}; outputs: {OUT / 'runs.jsonl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
