"""What an answer returns is what the session's budget charges for it: the sum of the returned
items' tokens (the envelope's tokens_returned) is what the call adds to budget.used, plus what it
evicted to fit. Each item is served once, and its cost is its context entry's. Walk in each
direction, search, tree, prefetch and get, in-process and over a real gRPC server, on real indexes of
real git repositories (the shop sample, and a small repository with an import cycle and tests).

Before, a walk returned a node once per edge and the controller charged it once: walking
shop/cart.py both ways returned 333 tokens and charged 178."""

from __future__ import annotations

import grpc
import pytest

from serving._gen import stratum_pb2 as pb
from serving._gen import stratum_pb2_grpc as pb_grpc
from serving.server import serve
from stratum.config import IndexConfig
from stratum.linerange import context_key
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow

CALLS = {
    "walk out": lambda t, s: t.walk(s, "shop/cart.py", direction="out", page_size=50),
    "walk in": lambda t, s: t.walk(s, "shop/cart.py", direction="in", page_size=50),
    "walk both": lambda t, s: t.walk(s, "shop/cart.py", direction="both", page_size=50),
    "walk both from pricing": lambda t, s: t.walk(s, "shop/pricing.py", direction="both", page_size=50),
    "walk imports+tests in": lambda t, s: t.walk(s, "shop/cart.py", ["imports", "tests"], "in"),
    "search": lambda t, s: t.search(s, "discount cart total", page_size=50),
    "search notes": lambda t, s: t.search(s, "fix rounding bug", page_size=20),
    "tree": lambda t, s: t.tree(s, "", depth=4, page_size=50),
    "prefetch": lambda t, s: t.prefetch(s, ["shop/cart.py"]),
    "get": lambda t, s: t.get(s, "shop/cart.py", "full"),
    "get lines": lambda t, s: t.get(s, "shop/cart.py", lines="13-15"),
}


@pytest.fixture(scope="module")
def tools(indexed_store):
    t = Tools.open([str(indexed_store[1])])
    yield t
    t.close()


def _session(tools, budget=20000):
    return tools.open_session(author="charged", budget=budget).data["session"]


def _entries(tools, s) -> dict[str, int]:
    return {e["node_id"]: e["tokens"] for e in tools.status(s).data["session"]["entries"]}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_an_answer_charges_what_it_returns_each_item_once(tools, call):
    s = _session(tools)
    r = CALLS[call](tools, s)
    e = r.envelope
    keys = [context_key(it) for it in r.items]
    assert r.items and len(set(keys)) == len(keys), keys            # nothing served twice
    assert e.tokens_returned == sum(it.tokens for it in r.items) == e.budget.used
    assert _entries(tools, s) == {k: it.tokens for k, it in zip(keys, r.items)}    # each item is its entry


@pytest.mark.parametrize("call, args", [
    ("walk", dict(target="shop/cart.py", direction="out")),
    ("walk", dict(target="shop/cart.py", direction="in")),
    ("walk", dict(target="shop/cart.py", direction="both")),
    ("search", dict(query="discount cart total")),
    ("tree", dict(path="", depth=4)),
])
def test_pages_cut_by_a_tight_budget_charge_what_they_return(tools, call, args):
    """Page after page under a budget that cuts them and evicts earlier pages: each page's items
    are new (a node is on one page only), so each page charges exactly its tokens."""
    s = _session(tools, 90)
    seen, token, used = [], "", 0
    while True:
        r = getattr(tools, call)(s, **args, page_size=50, page_token=token)
        e = r.envelope
        assert e.tokens_returned == sum(it.tokens for it in r.items)
        assert e.budget.used - used + sum(ev.tokens_freed for ev in e.evictions) == e.tokens_returned, (
            [(it.id, it.tokens) for it in r.items], e.evictions)
        seen += [it.id for it in r.items]
        used, token = e.budget.used, e.next_page_token
        if not e.has_more:
            break
    assert len(seen) == len(set(seen))


def test_a_walk_serves_a_node_once_with_all_its_edges(tools):
    items = tools.walk(_session(tools), "shop/cart.py", direction="both", page_size=50).items
    by_path = {}
    for it in items:
        if it.kind == "file":
            assert it.path not in by_path, it.path
            by_path[it.path] = it
    assert (by_path["tests/test_cart.py"].edge, by_path["tests/test_cart.py"].direction) == ("imports,tests,cochange", "in")
    assert by_path["tests/test_cart.py"].meta["edges"] == "imports in; tests in; cochange"
    pricing = by_path["shop/pricing.py"]
    assert (pricing.edge, pricing.direction, pricing.meta["edges"]) == ("imports,cochange", "out", "imports out; cochange")
    assert int(pricing.meta["support"]) == 3                # the co-change edge's attributes stay on it
    invoice = by_path["shop/invoice.py"]
    assert (invoice.edge, invoice.direction) == ("imports", "in") and "edges" not in invoice.meta


@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    """Tools over a repository where a.py and b.py import each other and tests/test_a.py tests a.py."""
    from pipeline.job import index_repository

    root = tmp_path_factory.mktemp("cycle")
    r = Repo(root / "repo")
    r.commit("init", {"pkg/__init__.py": "",
                      "pkg/a.py": "from pkg import b\n\n\ndef alpha():\n    \"\"\"One.\"\"\"\n    return b.beta() - 1\n",
                      "pkg/b.py": "from pkg import a\n\n\ndef beta():\n    \"\"\"Two.\"\"\"\n    return 2\n",
                      "tests/test_a.py": "from pkg.a import alpha\n\n\ndef test_alpha():\n    assert alpha() == 1\n"})
    r.commit("both", {"pkg/a.py": "from pkg import b\n\n\ndef alpha():\n    \"\"\"One.\"\"\"\n    return b.beta() - 1  # x\n",
                      "pkg/b.py": "from pkg import a\n\n\ndef beta():\n    \"\"\"Two.\"\"\"\n    return 1 + 1\n"})
    index_repository(r.path, root / "store", IndexConfig(num_cpus=1, ray=False))
    t = Tools.open([str(root / "store")])
    yield t
    t.close()


def test_an_import_cycle_walked_both_ways_is_one_item_both_ways(cycle):
    s = _session(cycle)
    r = cycle.walk(s, "pkg/a.py", direction="both", page_size=50)
    b = [it for it in r.items if it.path == "pkg/b.py" and it.kind == "file"]
    assert len(b) == 1 and b[0].edge.split(",")[0] == "imports" and b[0].direction == "both"
    assert b[0].meta["edges"].startswith("imports in; imports out")
    assert r.envelope.tokens_returned == sum(it.tokens for it in r.items) == r.envelope.budget.used
    assert len({it.id for it in r.items}) == len(r.items)
    tests = cycle.walk(_session(cycle), "pkg/a.py", ["imports", "tests"], "in").items
    assert [(it.path, it.edge, it.direction) for it in tests if it.path == "tests/test_a.py"] == [
        ("tests/test_a.py", "imports,tests", "in")]


def test_over_grpc_the_envelope_charges_what_it_returns(tools):
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        stub = pb_grpc.StratumStub(grpc.insecure_channel(f"127.0.0.1:{port}"))

        def fresh():
            return stub.OpenSession(pb.OpenSessionRequest(author="wire", budget=20000), timeout=30).session

        calls = [("Walk", lambda s, d: stub.Walk(pb.WalkRequest(session=s, target="shop/cart.py", direction=d,
                                                                page_size=50), timeout=30), d)
                 for d in ("out", "in", "both")]
        calls += [("Search", lambda s, _: stub.Search(pb.SearchRequest(session=s, query="discount cart total",
                                                                       page_size=50), timeout=30), ""),
                  ("Tree", lambda s, _: stub.Tree(pb.TreeRequest(session=s, path="", depth=4, page_size=50),
                                                  timeout=30), ""),
                  ("Prefetch", lambda s, _: stub.Prefetch(pb.PrefetchRequest(session=s, focus=["shop/cart.py"]),
                                                          timeout=30), "")]
        for name, call, arg in calls:
            msg = call(fresh(), arg)
            e = msg.envelope
            assert msg.items and len({it.id for it in msg.items}) == len(msg.items), (name, arg)
            assert e.tokens_returned == sum(it.tokens for it in msg.items) == e.budget.used, (name, arg)
    finally:
        server.stop(None)


def test_a_prefetch_fills_free_room_only_and_says_why_when_it_adds_nothing(tools):
    """A probe: a prefetch budget above the session's evicted and demoted the working set it had
    just warmed, and an empty prefetch never said why."""
    s = _session(tools, budget=1000)
    first = tools.prefetch(s, ["shop/cart.py"], budget=700)
    assert first.items
    held = _entries(tools, s)
    more = tools.prefetch(s, ["shop/cart.py"], budget=10 ** 6)
    assert not more.envelope.evictions and all(held[k] <= v for k, v in _entries(tools, s).items() if k in held)
    assert any("free room" in w for w in more.envelope.warnings)
    none = tools.prefetch(_session(tools, budget=1000), ["shop/cart.py"], budget=1)
    assert not none.items and any(w.startswith("nothing to prefetch") for w in none.envelope.warnings)
