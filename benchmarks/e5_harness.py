"""E5 harness: the paper's memory-transfer protocol with a real model behind any OpenAI-compatible API.

Protocol (PAPER.md, E5), per task (a bug-fix commit: its symptom and the files it changed):
1. A *writer* session (one per task) gets the symptom and the tools tree/search/get/walk/remember,
   investigates, writes ``rca`` notes (where the cause is and why) and ``failure`` notes (leads that
   were wrong) with ``remember``, and ends with ``ROOT CAUSE: <path>``. Its notes go to the delta
   log of a private copy of the store (durable, then live through the overlay).
2. A fresh *reader* session (new Tools over the store, new session, the same prompt in every
   condition) gets the same symptom and tree/search/get/walk, at most 16 tool calls, and must end
   with ``ROOT CAUSE: <path>``. Conditions: **A** the store without notes; **B** the writer's store
   (its notes inherited); **P** (optional) one store pooling the notes of every task's writer.
3. A trial succeeds when the named path is one of the files the fix changed (equal, or equal after
   dropping leading directories on either side, e.g. ``flask/app.py`` for ``src/flask/app.py``).
   Tokens are the endpoint's own ``usage`` counts summed over the session's requests.

Transport: JSON over HTTP with urllib only (``POST {base_url}/chat/completions``, ``tools`` with
function schemas built from the Tools methods' signatures and docstrings, ``tool_calls`` answered by
``role: tool`` messages). The key is read from the environment variable named by ``--api-key-env``
(default OPENAI_API_KEY; unset: no Authorization header, for local servers). When the tool-call
budget is spent, tool calls are refused with a message and the next request carries no tools.

Nothing is claimed that was not run: the summary counts only trials that completed; trials whose
endpoint failed are listed as errors. Tasks default to the memory-transfer fix list
(benchmarks/results/memory_<repo>.csv, in time order; answers = the changed code files that are not
tests, fixes that changed only tests skipped) against the store at that benchmark's index commit C.

Usage:
  .venv/bin/python benchmarks/e5_harness.py --base-url URL --model NAME [--repo flask] [--tasks 8]
      [--trials 3] [--conditions A,B] [--reader-calls 16] [--writer-calls 40] [--out DIR] [--dry-run]
  .venv/bin/python benchmarks/e5_harness.py --tasks-file tasks.json ...   (own tasks: id, store,
      symptom, answers[, repo, sha])
"""

from __future__ import annotations

import argparse
import csv
import inspect
import json
import math
import os
import re
import shutil
import socket
import statistics
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from stratum import notes as N  # noqa: E402
from stratum import schema as S  # noqa: E402
from stratum.errors import InvalidArgument, StratumError, Unavailable  # noqa: E402

READER_TOOLS = ("search", "get", "walk", "tree")
WRITER_TOOLS = READER_TOOLS + ("remember",)
ANSWER = re.compile(r"ROOT\s*CAUSE\s*:\s*`?([^\s`'\",;]+)", re.I)

WRITER_SYSTEM = (
    "You are a software engineer investigating a bug in the repository {repo}, through tools over an "
    "index of its code (search, tree, get, walk). Find the file that contains the root cause. Record "
    "what you learn for engineers who meet this symptom later: call remember with kind \"rca\" about "
    "the file (or path::function) that holds the cause, saying what the cause is and why; for each "
    "lead that turned out wrong, call remember with kind \"failure\" about that code, saying why. "
    "End your final message with one line: ROOT CAUSE: <repository-relative path>.")
READER_SYSTEM = (
    "You are a software engineer diagnosing a bug in the repository {repo}, through tools over an index "
    "of its code (search, tree, get, walk). Search results may include notes left by earlier sessions. "
    "You may make at most {calls} tool calls. Name the file that contains the root cause: end your "
    "final message with one line: ROOT CAUSE: <repository-relative path>.")
USER = "Symptom: {symptom}"
BUDGET_SPENT = ("You have used all {calls} tool calls. Answer now from what you have seen, ending with "
                "ROOT CAUSE: <path>.")


# ---- the endpoint -------------------------------------------------------------------------------
@dataclass
class Endpoint:
    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    temperature: float = 0.0
    max_tokens: int = 2048
    retries: int = 2                 # for 429 / 5xx / network errors, with backoff

    def public(self) -> dict:
        """What is recorded with results (never the key)."""
        return {"base_url": self.base_url, "model": self.model, "api_key_env": self.api_key_env,
                "temperature": self.temperature, "max_tokens": self.max_tokens}


@dataclass
class Reply:
    message: dict
    usage: dict
    finish_reason: str = ""


class ChatClient:
    """A minimal OpenAI-compatible chat-completions client on urllib (no extra dependency)."""

    def __init__(self, ep: Endpoint):
        if not ep.base_url or not re.match(r"https?://", ep.base_url):
            raise InvalidArgument(f"--base-url must be an http(s) URL, got {ep.base_url!r}")
        if not ep.model:
            raise InvalidArgument("--model is required")
        self.ep = ep
        self.url = ep.base_url.rstrip("/") + "/chat/completions"
        self._key = os.environ.get(ep.api_key_env, "")
        self.requests = 0

    def chat(self, messages: list[dict], tools: list[dict] | None = None) -> Reply:
        body = {"model": self.ep.model, "messages": messages, "temperature": self.ep.temperature,
                "max_tokens": self.ep.max_tokens}
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        last: Unavailable | None = None
        for attempt in range(self.ep.retries + 1):
            if attempt:
                time.sleep(min(2 ** attempt, 30))
            req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            self.requests += 1
            try:
                with urllib.request.urlopen(req, timeout=self.ep.timeout) as resp:
                    raw = resp.read()
            except urllib.error.HTTPError as e:
                detail = e.read()[:500].decode("utf-8", "replace")
                last = Unavailable(f"{self.url} answered HTTP {e.code}: {detail}",
                                   retryable=e.code == 429 or e.code >= 500)
                if not last.retryable:
                    raise last from None
                continue
            except (urllib.error.URLError, socket.timeout, ConnectionError) as e:
                last = Unavailable(f"{self.url} could not be reached: {getattr(e, 'reason', e)}")
                continue
            return _parse_reply(raw, self.url)
        raise last


def _parse_reply(raw: bytes, url: str) -> Reply:
    try:
        d = json.loads(raw)
        choice = d["choices"][0]
        msg = choice["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise Unavailable(f"{url} returned something that is not a chat completion: {raw[:300]!r}",
                          retryable=False) from None
    return Reply(msg, d.get("usage") or {}, choice.get("finish_reason") or "")


# ---- tool schemas from the Tools methods --------------------------------------------------------
_ENUMS = {("get", "level"): list(S.LEVELS), ("walk", "direction"): ["out", "in", "both"],
          ("remember", "kind"): list(S.AGENT_NOTE_KINDS)}
_ITEM_ENUMS = {("walk", "edges"): list(S.EDGE_KINDS) + ["notes"], ("search", "kinds"): list(S.NODE_KINDS)}


def _json_type(annotation: str) -> dict:
    a = annotation.replace(" ", "")
    if a.startswith(("list[", "tuple[", "Sequence[", "collections.abc.Sequence[")):
        return {"type": "array", "items": {"type": "string"}}
    if a.startswith("int"):
        return {"type": "integer"}
    if a.startswith("bool"):
        return {"type": "boolean"}
    return {"type": "string"}


def tool_schema(name: str) -> dict:
    """An OpenAI function schema for the Tools method ``name``: its docstring, its parameters."""
    from stratum.tools import Tools

    fn = getattr(Tools, name)
    doc = " ".join(inspect.getdoc(fn).split())
    props, required = {}, []
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.name == "session":
            continue
        prop = _json_type(str(p.annotation))
        if (name, p.name) in _ENUMS:
            prop["enum"] = _ENUMS[(name, p.name)]
        if (name, p.name) in _ITEM_ENUMS:
            prop["items"] = {"type": "string", "enum": _ITEM_ENUMS[(name, p.name)]}
        if p.name == "page_token":
            prop["description"] = "next_page_token of the previous page of the same call"
        if p.default is inspect.Parameter.empty:
            required.append(p.name)
        elif p.default not in ((), None, ""):
            prop["default"] = list(p.default) if isinstance(p.default, tuple) else p.default
        props[p.name] = prop
    return {"type": "function", "function": {"name": name, "description": doc,
                                             "parameters": {"type": "object", "properties": props,
                                                            "required": required}}}


def render(resp) -> dict:
    """A tool response as the model sees it: items and what the envelope says remains."""
    e = resp.envelope
    items = []
    for it in resp.items:
        d = {"id": it.id, "kind": it.kind, "path": it.path, "text": it.text}
        for k in ("qualname", "score", "edge", "direction", "warnings"):
            v = getattr(it, k)
            if v not in ("", None, []):
                d[k] = v
        items.append(d)
    out = {"items": items, "returned": e.returned, "total": e.total, "total_is_lower_bound": e.total_is_lower_bound,
           "has_more": e.has_more, "tokens_returned": e.tokens_returned, "budget_remaining": e.budget.remaining}
    if e.has_more:
        out["next_page_token"] = e.next_page_token
        out["next_hint"] = e.next_hint
    if e.warnings:
        out["warnings"] = e.warnings
    data = {k: v for k, v in resp.data.items() if k != "session"}
    if data:
        out["data"] = data
    return out


# ---- one session --------------------------------------------------------------------------------
@dataclass
class SessionLog:
    role: str
    final: str = ""
    answer: str | None = None
    tool_calls: list[dict] = field(default_factory=list)     # name, arguments, error or None
    refused_calls: int = 0                                     # asked for after the budget was spent
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    notes_written: list[str] = field(default_factory=list)
    tool_tokens: int = 0                                       # envelope tokens_returned, summed
    error: str | None = None


def run_session(client: ChatClient, tools, *, role: str, repo: str, symptom: str, allowed: tuple[str, ...],
                max_calls: int, author: str, max_rounds: int | None = None) -> SessionLog:
    """Drive one chat session with tool calling until a final answer (or the round limit)."""
    log = SessionLog(role)
    schemas = [tool_schema(n) for n in allowed]
    system = (WRITER_SYSTEM if role == "writer" else READER_SYSTEM).format(repo=repo, calls=max_calls)
    messages = [{"role": "system", "content": system}, {"role": "user", "content": USER.format(symptom=symptom)}]
    sid = tools.open_session(author=author, model=client.ep.model, budget=10 ** 9).data["session"]
    max_rounds = max_rounds or (max_calls + 4)
    try:
        for _ in range(max_rounds):
            spent = len(log.tool_calls) >= max_calls
            reply = client.chat(messages, None if spent else schemas)
            log.requests += 1
            log.prompt_tokens += int(reply.usage.get("prompt_tokens") or 0)
            log.completion_tokens += int(reply.usage.get("completion_tokens") or 0)
            msg = {"role": "assistant", "content": reply.message.get("content")}
            calls = reply.message.get("tool_calls") or []
            if calls:
                msg["tool_calls"] = calls
            messages.append(msg)
            if not calls:
                log.final = reply.message.get("content") or ""
                log.answer = parse_answer(log.final)
                return log
            for tc in calls:
                if len(log.tool_calls) >= max_calls:
                    log.refused_calls += 1
                    content = json.dumps({"error": {"code": "tool_budget_spent",
                                                    "message": BUDGET_SPENT.format(calls=max_calls)}})
                else:
                    content = _execute(tools, sid, tc, allowed, log)
                messages.append({"role": "tool", "tool_call_id": tc.get("id", ""), "content": content})
            if len(log.tool_calls) >= max_calls:
                messages.append({"role": "user", "content": BUDGET_SPENT.format(calls=max_calls)})
        log.error = f"no final answer after {max_rounds} requests"
        return log
    finally:
        tools.close_session(sid)


def _execute(tools, sid: str, tc: dict, allowed: tuple[str, ...], log: SessionLog) -> str:
    fn = (tc.get("function") or {})
    name = fn.get("name") or ""
    raw = fn.get("arguments") or "{}"
    rec = {"name": name, "arguments": raw, "error": None}
    log.tool_calls.append(rec)
    try:
        if name not in allowed:
            raise InvalidArgument(f"unknown tool {name!r}; tools: {', '.join(allowed)}")
        try:
            args = json.loads(raw) if isinstance(raw, str) else dict(raw)
        except ValueError:
            raise InvalidArgument(f"arguments of {name} are not JSON: {raw[:200]!r}") from None
        if not isinstance(args, dict):
            raise InvalidArgument(f"arguments of {name} must be a JSON object")
        method = getattr(tools, name)
        params = set(inspect.signature(method).parameters) - {"session"}
        unknown = sorted(set(args) - params)
        if unknown:
            raise InvalidArgument(f"{name} has no parameter(s) {unknown}; it takes {sorted(params)}")
        try:
            inspect.signature(method).bind(sid, **args)
        except TypeError as e:    # a required argument missing: the model's mistake, told to it
            raise InvalidArgument(f"{name}: {e}") from None
        resp = method(sid, **args)
    except StratumError as e:
        rec["error"] = e.code
        return json.dumps({"error": e.to_dict()})
    log.tool_tokens += resp.envelope.tokens_returned
    if name == "remember":
        log.notes_written.append(resp.data.get("note_id", ""))
    return json.dumps(render(resp), ensure_ascii=False)


def parse_answer(text: str) -> str | None:
    """The path after the last ``ROOT CAUSE:`` (backticks, ./, ::symbol and :line dropped)."""
    found = ANSWER.findall(text or "")
    if not found:
        return None
    p = found[-1].strip().strip(".")
    p = p.split("::", 1)[0]
    p = re.sub(r":\d+(-\d+)?$", "", p)
    while p.startswith("./"):
        p = p[2:]
    return p.strip("/") or None


def matches(answer: str | None, targets: list[str]) -> bool:
    """Equal, or equal after dropping leading directories of either side (src/flask/app.py ~ flask/app.py)."""
    if not answer:
        return False
    for t in targets:
        if answer == t or t.endswith("/" + answer) or answer.endswith("/" + t):
            return True
    return False


# ---- tasks, conditions, trials ------------------------------------------------------------------
@dataclass
class Task:
    id: str
    repo: str
    store: str
    symptom: str
    answers: list[str]
    sha: str = ""


def tasks_from_memory(repo: str, n: int, results: Path | None = None) -> list[Task]:
    """The first ``n`` fixes of the memory-transfer list of ``repo``, against its store at C."""
    results = results or HERE / "results"
    summ = json.loads((results / "memory_summary.json").read_text())
    info = next((r for r in summ["results"] if r["repo"] == repo), None)
    if info is None:
        raise InvalidArgument(f"no memory-transfer run for {repo} in {results}: run benchmarks/memory_transfer.py")
    with open(results / f"memory_{repo}.csv") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for r in rows:
        answers = [p for p in r["targets"].split() if not is_test_path(p)]
        if answers and len(out) < n:        # a root cause is in code, not in a test
            out.append(Task(f"{repo}-{r['sha'][:10]}", repo, info["store"], r["query"], answers, r["sha"]))
    return out


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return any(p in ("test", "tests", "testing") for p in parts[:-1]) or name.startswith("test_") or \
        name.endswith("_test.py") or name == "conftest.py"


def tasks_from_file(path: Path) -> list[Task]:
    out = []
    for d in json.loads(Path(path).read_text()):
        missing = {"id", "store", "symptom", "answers"} - set(d)
        if missing:
            raise InvalidArgument(f"task {d.get('id', '?')} in {path} lacks {sorted(missing)}")
        out.append(Task(d["id"], d.get("repo", Path(d["store"]).parent.name), d["store"], d["symptom"],
                        list(d["answers"]), d.get("sha", "")))
    return out


def _fresh_copy(store: str, dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(store, dest, ignore=shutil.ignore_patterns("lock", "deltalog"))
    return dest


def _copy_notes(src_store: Path, dst_tools, dst_session: str) -> int:
    """Re-write the active notes of a writer's store into another store (condition P)."""
    from stratum.tools import Tools

    t = Tools.open([str(src_store)])
    ov = next(iter(t.overlays.values()))
    n = 0
    for note in ov.notes.values():
        if note.status == N.ACTIVE:
            dst_tools.remember(dst_session, note.kind, note.text, [x.given for x in note.about], tags=list(note.tags))
            n += 1
    t.close()
    return n


def run(tasks: list[Task], client: ChatClient, *, out: Path, trials: int = 3, conditions=("A", "B"),
        reader_calls: int = 16, writer_calls: int = 40, log=print) -> dict:
    """Writers, then reader trials per condition; every trial appended to out/trials.jsonl."""
    from stratum.tools import Tools

    from stratum.store import Store

    missing = sorted({t.store for t in tasks if not Store(t.store).exists()})
    if missing:
        raise InvalidArgument(f"no published store at {', '.join(missing)}: index it first "
                              "(benchmarks/memory_transfer.py builds the stores its tasks use)")
    out.mkdir(parents=True, exist_ok=True)
    trials_path = out / "trials.jsonl"
    records: list[dict] = []

    def record(rec: dict) -> None:
        records.append(rec)
        with open(trials_path, "a") as fh:
            fh.write(json.dumps(rec, default=str) + "\n")

    writer_stores: dict[str, Path] = {}
    for t in tasks:
        ws = _fresh_copy(t.store, out / "stores" / t.id / "writer")
        tools = Tools.open([str(ws)])
        try:
            lg = run_session(client, tools, role="writer", repo=t.repo, symptom=t.symptom, allowed=WRITER_TOOLS,
                             max_calls=writer_calls, author=f"writer:{client.ep.model}")
        except Unavailable as e:
            lg = SessionLog("writer", error=str(e))
        finally:
            tools.close()
        writer_stores[t.id] = ws
        record({"task": t.id, "role": "writer", "condition": "W", "success": matches(lg.answer, t.answers),
                "answers": t.answers, **asdict(lg), "endpoint": client.ep.public()})
        log(f"writer {t.id}: answer={lg.answer} notes={len(lg.notes_written)} error={lg.error}")

    pooled = None
    if "P" in conditions:
        pooled = _fresh_copy(tasks[0].store, out / "stores" / "pooled") if tasks else None
        if pooled is not None:
            pt = Tools.open([str(pooled)])
            ps = pt.open_session(author="pool").data["session"]
            for t in tasks:
                if Path(t.store).resolve() == Path(tasks[0].store).resolve():
                    _copy_notes(writer_stores[t.id], pt, ps)
            pt.close()

    for t in tasks:
        for cond in conditions:
            store = {"A": _fresh_copy(t.store, out / "stores" / t.id / "plain") if cond == "A" else None,
                     "B": writer_stores[t.id], "P": pooled}[cond]
            for k in range(trials):
                tools = Tools.open([str(store)])       # a fresh reader: new process view of the store
                try:
                    lg = run_session(client, tools, role="reader", repo=t.repo, symptom=t.symptom,
                                     allowed=READER_TOOLS, max_calls=reader_calls, author="reader")
                except Unavailable as e:
                    lg = SessionLog("reader", error=str(e))
                finally:
                    tools.close()
                record({"task": t.id, "role": "reader", "condition": cond, "trial": k,
                        "success": matches(lg.answer, t.answers), "answers": t.answers, **asdict(lg),
                        "endpoint": client.ep.public()})
                log(f"reader {t.id} {cond}#{k}: answer={lg.answer} ok={matches(lg.answer, t.answers)} "
                    f"calls={len(lg.tool_calls)} prompt_tokens={lg.prompt_tokens} error={lg.error}")
    summary = summarise(records, conditions)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def summarise(records: list[dict], conditions=("A", "B")) -> dict:
    """Successes and tokens per condition, from completed trials only."""
    out = {"conditions": {}, "errors": [r for r in ({"task": x["task"], "role": x["role"], "condition": x["condition"],
                                                     "error": x["error"]} for x in records) if r["error"]]}
    for cond in conditions:
        done = [r for r in records if r["role"] == "reader" and r["condition"] == cond and not r["error"]]
        if not done:
            out["conditions"][cond] = {"completed": 0}
            continue
        out["conditions"][cond] = {
            "completed": len(done), "successes": sum(1 for r in done if r["success"]),
            "median_prompt_tokens": statistics.median(r["prompt_tokens"] for r in done),
            "median_completion_tokens": statistics.median(r["completion_tokens"] for r in done),
            "median_tool_calls": statistics.median(len(r["tool_calls"]) for r in done)}
    a, b = out["conditions"].get("A", {}), out["conditions"].get("B", {})
    if a.get("completed") and b.get("completed"):
        cells = (a["successes"], a["completed"] - a["successes"], b["successes"], b["completed"] - b["successes"])
        out["fisher_p_A_vs_B"] = fisher_exact(*cells)
        out["fisher_p_A_less_than_B"] = fisher_exact(*cells, alternative="less")
    w = [r for r in records if r["role"] == "writer"]
    out["writers"] = {"tasks": len(w), "completed": sum(1 for r in w if not r["error"]),
                      "solved": sum(1 for r in w if r["success"] and not r["error"]),
                      "notes": sum(len(r["notes_written"]) for r in w)}
    return out


def fisher_exact(a: int, b: int, c: int, d: int, alternative: str = "two-sided") -> float:
    """Fisher exact test p for the 2x2 table [[a, b], [c, d]] (rows: conditions; columns: success,
    failure). two-sided: the tables no likelier than the observed one; less: A succeeds less often
    than B (the paper's 6/24 vs 21/24 gives p = 1.3e-5 one-sided, 2.5e-5 two-sided)."""
    n1, n2, k = a + b, c + d, a + c
    denom = math.comb(n1 + n2, k)

    def p(x: int) -> float:
        return math.comb(n1, x) * math.comb(n2, k - x) / denom

    lo, hi = max(0, k - n2), min(k, n1)
    if alternative == "less":
        return min(1.0, sum(p(x) for x in range(lo, a + 1)))
    if alternative != "two-sided":
        raise InvalidArgument(f"alternative must be two-sided or less, got {alternative!r}")
    p0 = p(a)
    return min(1.0, sum(p(x) for x in range(lo, hi + 1) if p(x) <= p0 * (1 + 1e-9)))


def table(summary: dict) -> str:
    lines = ["| condition | trials completed | root cause named | median prompt tokens | median tool calls |",
             "|---|---|---|---|---|"]
    for cond, v in summary["conditions"].items():
        if not v.get("completed"):
            lines.append(f"| {cond} | 0 | - | - | - |")
            continue
        lines.append(f"| {cond} | {v['completed']} | {v['successes']}/{v['completed']} | "
                     f"{v['median_prompt_tokens']:g} | {v['median_tool_calls']:g} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="E5: writer/reader memory transfer with a real model")
    ap.add_argument("--base-url", required=True, help="e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1")
    ap.add_argument("--model", required=True)
    ap.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the key")
    ap.add_argument("--repo", action="append", default=[], help="memory-transfer repo(s) to take tasks from")
    ap.add_argument("--tasks", type=int, default=8, help="tasks in all (split over the repos)")
    ap.add_argument("--tasks-file", help="JSON list of tasks: id, store, symptom, answers[, repo, sha]")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--conditions", default="A,B", help="comma-separated subset of A,B,P")
    ap.add_argument("--reader-calls", type=int, default=16)
    ap.add_argument("--writer-calls", type=int, default=40)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--out", default=str(HERE / ".out" / "e5"))
    ap.add_argument("--dry-run", action="store_true", help="print tasks, prompts and tool schemas; call nothing")
    args = ap.parse_args(argv)
    conditions = tuple(c.strip() for c in args.conditions.split(",") if c.strip())
    bad = [c for c in conditions if c not in ("A", "B", "P")]
    if bad:
        raise SystemExit(f"unknown condition(s) {bad}: choose from A, B, P")
    if args.tasks_file:
        tasks = tasks_from_file(Path(args.tasks_file))
    else:
        repos = args.repo or ["requests", "flask"]
        per = -(-args.tasks // len(repos))
        tasks = [t for r in repos for t in tasks_from_memory(r, per)][: args.tasks]
    ep = Endpoint(args.base_url, args.model, args.api_key_env, args.timeout, retries=args.retries)
    print(__doc__.split("Usage:")[0])
    print(f"command: {' '.join(sys.argv if argv is None else ['e5_harness.py', *argv])}")
    print(f"endpoint: {json.dumps(ep.public())}; key in ${ep.api_key_env}: {'set' if os.environ.get(ep.api_key_env) else 'not set'}")
    print(f"tasks: {len(tasks)}, trials: {args.trials}, conditions: {conditions}, reader calls: {args.reader_calls}")
    for t in tasks:
        print(f"  {t.id}: {t.symptom!r} -> {t.answers}")
    if args.dry_run:
        print(READER_SYSTEM.format(repo="<repo>", calls=args.reader_calls))
        print(json.dumps([tool_schema(n) for n in WRITER_TOOLS], indent=1))
        return 0
    client = ChatClient(ep)
    out = Path(args.out) / f"{time.strftime('%Y%m%d-%H%M%S')}-{re.sub(r'[^A-Za-z0-9_.-]', '_', args.model)}"
    summary = run(tasks, client, out=out, trials=args.trials, conditions=conditions,
                  reader_calls=args.reader_calls, writer_calls=args.writer_calls)
    print(f"\nresults: {out}\n" + table(summary))
    if "fisher_p_A_vs_B" in summary:
        print(f"Fisher exact p (A vs B): two-sided {summary['fisher_p_A_vs_B']:.3g}, "
              f"one-sided (A below B) {summary['fisher_p_A_less_than_B']:.3g}")
    if summary["errors"]:
        print(f"{len(summary['errors'])} session(s) failed and are not counted (see trials.jsonl)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
