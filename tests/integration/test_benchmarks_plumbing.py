"""Plumbing of the history benchmarks and the E5 harness on a small real repository.

The repository is built with git in tmp_path and indexed at a fixed commit C by the real pipeline;
the later commits are the evaluated "future". The E5 harness talks to a tiny HTTP server on
127.0.0.1 that scripts OpenAI-style replies: it stands in for the external model service, not for
any of our components (the tools, store, delta log and overlay are all real).
"""

from __future__ import annotations

import csv
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import common as C  # noqa: E402
import e5_harness as E5  # noqa: E402

from tests.gitrepo import Repo  # noqa: E402

CART = ('"""Shopping cart."""\n\nfrom shop.pricing import price_of\n\n\nclass Cart:\n'
        '    """Items a customer intends to buy."""\n\n    def __init__(self):\n        self.items = []\n\n'
        '    def total(self) -> float:\n        """Sum of line prices."""\n'
        '        return sum(price_of(s) * q for s, q in self.items)\n')
PRICING = ('"""Prices and discounts."""\n\nPRICES = {"apple": 0.5}\n\n\n'
           'def price_of(sku: str) -> float:\n    """Unit price of a SKU in euros."""\n    return PRICES[sku]\n')
TAX = '"""Value added tax."""\n\n\ndef vat_rate(country: str) -> float:\n    """VAT rate of a country."""\n    return 0.2\n'
INVOICE = ('"""Render invoices as text."""\n\nfrom shop.cart import Cart\nfrom shop.tax import vat_rate\n\n\n'
           'def render_invoice(cart: Cart) -> str:\n    """One line per item, the total and the VAT."""\n'
           '    return f"total {cart.total():.2f} vat {vat_rate(\'fr\')}"\n')


# ---- fast: definitions ----------------------------------------------------------------------------
def test_symptom_drops_paths_file_names_modules_and_references():
    paths = {"src/flask/app.py", "src/flask/json/tag.py", "src/flask/cli.py", "docs/index.rst"}
    assert C.symptom("Fix `flask.cli` crash in app.py (#1234)", ["src/flask/cli.py"], paths) == "Fix crash in"
    assert C.symptom("fix crash in src/flask/cli.py when run twice", [], paths) == "fix crash in when run twice"
    assert C.symptom("json.tag: handle bytes keys", [], paths) == "handle bytes keys"
    assert C.symptom("input and/or output decoding", [], paths) == "input and/or output decoding"
    assert C.symptom("fix cli run command", ["src/flask/cli.py"], paths, strip_stems=True) == "fix run command"
    assert C.symptom("Fix app.py", [], paths) == ""          # nothing left to search by


def test_ranking_metrics():
    ranking = C.rank_files([["a.py"], [], ["a.py", "b.py"], ["c.py"]])
    assert ranking == ["a.py", "b.py", "c.py"]
    assert C.first_rank(ranking, ["c.py", "b.py"]) == 2
    assert C.recall_at(ranking, ["c.py", "b.py"], 2) == 0.5 and C.hit_at(ranking, ["c.py"], 2) == 0.0
    assert C.mrr(None) == 0.0 and C.mrr(4) == 0.25


def test_e5_answer_parsing_and_fisher():
    assert E5.parse_answer("it is here.\nROOT CAUSE: `./src/flask/app.py::Flask.run`") == "src/flask/app.py"
    assert E5.parse_answer("ROOT CAUSE: requests/models.py:120.") == "requests/models.py"
    assert E5.parse_answer("no idea") is None
    assert E5.is_test_path("tests/test_basic.py") and E5.is_test_path("pkg/foo_test.py")
    assert not E5.is_test_path("src/flask/testing.py")
    assert E5.matches("flask/app.py", ["src/flask/app.py"]) and not E5.matches("app.py2", ["src/flask/app.py"])
    # the paper's 6/24 vs 21/24: p = 1.3e-5 (one-sided)
    assert round(E5.fisher_exact(6, 18, 21, 3, "less"), 6) == 1.3e-5
    assert E5.fisher_exact(6, 18, 21, 3) == pytest.approx(2.549e-5, rel=1e-3)
    assert E5.fisher_exact(3, 3, 3, 3) == pytest.approx(1.0)


def test_e5_tool_schemas_come_from_the_tools_signatures():
    s = {t["function"]["name"]: t["function"] for t in (E5.tool_schema(n) for n in E5.WRITER_TOOLS)}
    assert set(s) == {"search", "get", "walk", "tree", "remember"}
    search = s["search"]["parameters"]
    assert search["required"] == ["query"] and "session" not in search["properties"]
    assert search["properties"]["page_size"] == {"type": "integer", "default": 10}
    assert "meaning and by keyword" in s["search"]["description"]
    assert s["get"]["parameters"]["properties"]["level"]["enum"] == ["summary", "api", "full"]
    assert set(s["remember"]["parameters"]["required"]) == {"kind", "text", "about"}
    assert s["remember"]["parameters"]["properties"]["about"]["type"] == "array"


# ---- slow: a real repository indexed at C ---------------------------------------------------------
@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A repository with commits before C (one bug fix) and after C (the evaluated window)."""
    base = tmp_path_factory.mktemp("g1")
    r = Repo(base / "shop")
    r.commit("initial layout", {"shop/__init__.py": '"""A tiny shop."""\n', "shop/cart.py": CART,
                                "shop/pricing.py": PRICING, "tests/test_cart.py": "from shop.cart import Cart\n"})
    r.commit("fix crash when the cart is empty", {"shop/cart.py": CART.replace("self.items = []", "self.items = list()")})
    r.commit("add vat", {"shop/tax.py": TAX, "shop/invoice.py": INVOICE})
    c = r.commit("render totals with vat", {"shop/tax.py": TAX.replace("0.2", "0.20"),
                                            "shop/invoice.py": INVOICE.replace("One line", "A line")})
    w = {}
    w["vat"] = r.commit("Fix rounding of vat_rate in shop/tax.py (#12)", {"shop/tax.py": TAX.replace("0.20", "round(0.2, 2)")})
    w["coupons"] = r.commit("add coupons to the cart", {"shop/coupons.py": "def coupon():\n    return 1\n",
                                                        "shop/cart.py": CART + "\n# coupons\n"})
    r.mv("shop/invoice.py", "shop/billing.py")
    w["move"] = r.commit("move invoice rendering to billing")
    w["billing"] = r.commit("fix invoice total crash in billing.py", {"shop/billing.py": INVOICE + "\n# fixed\n"})
    w["empty"] = r.commit("fix empty cart crash again", {"shop/cart.py": CART + "\n# coupons\n# again\n"})
    out = base / "out"
    src, store = C.store_at(r.path, c, out=out)
    return {"repo": r.path, "c": c, "w": w, "out": out, "store": store, "src": src, "results": base / "results"}


@pytest.mark.slow
def test_store_at_c_holds_no_future_and_tasks_follow_the_definitions(history):
    from stratum.store import Store

    assert Store(history["store"]).manifest().indexed_commit == history["c"]
    hist = C.load_history(history["repo"])
    window = C.window_shas(history["repo"], history["c"])
    assert window == set(history["w"].values())
    c_paths = C.paths_at(history["repo"], history["c"])
    assert "shop/billing.py" not in c_paths and "shop/coupons.py" not in c_paths
    tasks, dropped = C.make_tasks(hist, history["c"], window, c_paths)
    by = {t.sha: t for t in tasks}
    vat = by[history["w"]["vat"]]
    assert vat.query == "Fix rounding of vat_rate in" and vat.targets == ["shop/tax.py"] and vat.bugfix
    coupons = by[history["w"]["coupons"]]
    assert coupons.targets == ["shop/cart.py"] and coupons.dropped_targets == ["shop/coupons.py"]
    assert by[history["w"]["billing"]].targets == ["shop/invoice.py"]      # renamed after C: mapped back
    assert by[history["w"]["move"]].targets == ["shop/invoice.py"]
    assert dropped["targets_dropped_not_at_C"] >= 1
    fixes, _ = C.make_tasks(hist, history["c"], window, c_paths, bugfix_only=True)
    assert [t.sha for t in fixes] == [history["w"][k] for k in ("vat", "billing", "empty")]


@pytest.mark.slow
def test_retrieval_quality_runs_every_mode(history):
    import retrieval_quality as RQ

    s = RQ.evaluate(history["repo"], history["c"], 50, out=history["out"], results=history["results"], log=lambda *a: None)
    assert s["tasks"] == 5 and set(s["modes"]) == set(RQ.MODES)
    for v in s["modes"].values():
        assert 0.0 <= v["recall@1"] <= v["recall@5"] <= v["recall@10"] <= 1.0 and v["hit@1"] <= v["hit@5"]
    rows = {r["sha"]: r for r in csv.DictReader(open(history["results"] / "retrieval_shop.csv"))}
    assert rows[history["w"]["vat"]]["rank_keyword"] == "1"                 # vat_rate is in shop/tax.py


@pytest.mark.slow
def test_memory_transfer_notes_only_from_earlier_fixes(history):
    import memory_transfer as MT
    from stratum.deltalog import DeltaLog

    s = MT.evaluate(history["repo"], history["c"], out=history["out"], results=history["results"],
                    log=lambda *a: None)
    assert s["fixes"] == 3 and s["notes_before_C"] == 1 and s["notes_pooled_P"] == 4
    assert s["merge_report"]["notes"] == 4
    rows = list(csv.DictReader(open(history["results"] / "memory_shop.csv")))
    assert [int(r["notes_visible"]) for r in rows] == [1, 2, 3]              # before C, then each earlier fix
    empty = rows[-1]
    assert empty["sha"] == history["w"]["empty"] and empty["rank_B"] == "1" and empty["calls_B"] == "1"
    for k in MT.CONDITIONS:
        assert all(int(r[f"tokens_{k}"]) > 0 for r in rows)
    assert not DeltaLog(history["store"] / "deltalog").scan().records     # condition A's store has no notes


# ---- the E5 harness against a scripted endpoint ---------------------------------------------------
class Scripted:
    """An OpenAI-style chat endpoint whose replies a test scripts; records what it was sent."""

    def __init__(self, script):
        self.script = script
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.headers.append(dict(self.headers))
                status, reply = outer.script(body, self.path)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _reply(content=None, calls=(), usage=(100, 10)):
    msg = {"role": "assistant", "content": content}
    if calls:
        msg["tool_calls"] = [{"id": f"call_{i}_{name}", "type": "function",
                              "function": {"name": name, "arguments": json.dumps(args)}}
                             for i, (name, args) in enumerate(calls)]
    return 200, {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": msg,
                                                                      "finish_reason": "tool_calls" if calls else "stop"}],
                 "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]}}


def investigator(answer_for_writer: str):
    """Writer: search, remember an rca about the file it was told, answer. Reader: search, then name
    the file of the first rca note if one came back, else the first code hit's file."""

    def script(body, path):
        assert path == "/v1/chat/completions"
        msgs = body["messages"]
        symptom = next(m["content"] for m in msgs if m["role"] == "user").split(": ", 1)[1]
        tool_msgs = [json.loads(m["content"]) for m in msgs if m["role"] == "tool"]
        writer = any(t["function"]["name"] == "remember" for t in body.get("tools", []))
        if not tool_msgs:
            return _reply(calls=[("search", {"query": symptom, "page_size": 5})])
        if writer and len(tool_msgs) == 1:
            return _reply(calls=[("remember", {"kind": "rca", "about": [answer_for_writer],
                                               "text": f"The cause of '{symptom}' is in {answer_for_writer}: "
                                                       "the rate is not rounded."})])
        if writer:
            return _reply(f"Found it.\nROOT CAUSE: {answer_for_writer}")
        items = tool_msgs[0]["items"]
        notes = [i for i in items if i["kind"] == "rca"]
        return _reply(f"ROOT CAUSE: {(notes or items)[0]['path']}", usage=(300, 20))

    return script


@pytest.mark.slow
def test_e5_writer_notes_reach_the_reader_in_b_not_in_a(history, tmp_path, monkeypatch):
    monkeypatch.setenv("G1_TEST_KEY", "sk-test-123")
    srv = Scripted(investigator("shop/tax.py"))
    try:
        client = E5.ChatClient(E5.Endpoint(srv.url, "scripted-model", api_key_env="G1_TEST_KEY", retries=0))
        task = E5.Task("shop-vat", "shop", str(history["store"]), "VAT shown with too many decimals", ["shop/tax.py"])
        summary = E5.run([task], client, out=tmp_path / "e5", trials=2, conditions=("A", "B", "P"), log=lambda *a: None)
    finally:
        srv.close()
    assert all(h.get("Authorization") == "Bearer sk-test-123" for h in srv.headers)
    assert summary["writers"] == {"tasks": 1, "completed": 1, "solved": 1, "notes": 1}
    b, p = summary["conditions"]["B"], summary["conditions"]["P"]
    assert (b["completed"], b["successes"], b["median_prompt_tokens"]) == (2, 2, 100 + 300)
    assert (p["completed"], p["successes"]) == (2, 2)
    recs = [json.loads(x) for x in open(tmp_path / "e5" / "trials.jsonl")]
    assert len(recs) == 1 + 3 * 2
    for r in recs:
        assert r["endpoint"]["model"] == "scripted-model" and "sk-test" not in json.dumps(r)
    # what the reader saw: the writer's note in B, no note at all in A
    reader_results = [json.loads(m["content"]) for req in srv.requests for m in req["messages"]
                      if m["role"] == "tool" and not any(t["function"]["name"] == "remember" for t in req.get("tools", []))]
    kinds = [{i["kind"] for i in res["items"]} for res in reader_results]
    assert any("rca" in k for k in kinds) and any("rca" not in k for k in kinds)
    a = summary["conditions"]["A"]
    a_recs = [r for r in recs if r["condition"] == "A"]
    assert a["successes"] == sum(1 for r in a_recs if r["answer"] == "shop/tax.py")
    # the base store was not written to: the writer wrote into its own copy
    from stratum.deltalog import DeltaLog

    assert not DeltaLog(history["store"] / "deltalog").scan().records


@pytest.mark.slow
def test_e5_reader_is_cut_at_16_tool_calls(history, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def greedy(body, path):
        if "tools" not in body:
            return _reply("ROOT CAUSE: shop/cart.py")
        calls = [("search", {"query": "cart total"}), ("walk", {"target": "shop/cart.py", "edges": ["imports"]}),
                 ("no_such_tool", {})]
        return _reply(calls=calls)

    srv = Scripted(greedy)
    from stratum.tools import Tools

    tools = Tools.open([str(history["store"])])
    try:
        client = E5.ChatClient(E5.Endpoint(srv.url, "m", retries=0))
        lg = E5.run_session(client, tools, role="reader", repo="shop", symptom="wrong total", allowed=E5.READER_TOOLS,
                            max_calls=16, author="reader")
    finally:
        srv.close()
        tools.close()
    assert len(lg.tool_calls) == 16 and lg.refused_calls == 2 and lg.answer == "shop/cart.py"
    assert sum(1 for c in lg.tool_calls if c["error"] == "invalid_argument") == 5     # the unknown tool, told so
    assert all("Authorization" not in h for h in srv.headers)
    assert "tools" not in srv.requests[-1] and "16 tool calls" in srv.requests[-1]["messages"][-1]["content"]
    assert lg.prompt_tokens == 100 * len(srv.requests) and lg.tool_tokens > 0


@pytest.mark.slow
def test_e5_endpoint_failure_claims_nothing(history, tmp_path):
    srv = Scripted(lambda body, path: (500, {"error": {"message": "model overloaded"}}))
    try:
        client = E5.ChatClient(E5.Endpoint(srv.url, "m", retries=0))
        task = E5.Task("t", "shop", str(history["store"]), "VAT wrong", ["shop/tax.py"])
        summary = E5.run([task], client, out=tmp_path / "e5", trials=1, log=lambda *a: None)
    finally:
        srv.close()
    assert summary["conditions"] == {"A": {"completed": 0}, "B": {"completed": 0}}
    assert "fisher_p_A_vs_B" not in summary and summary["writers"]["completed"] == 0
    assert len(summary["errors"]) == 3 and all("HTTP 500" in e["error"] for e in summary["errors"])
    assert "| A | 0 | - |" in E5.table(summary)
