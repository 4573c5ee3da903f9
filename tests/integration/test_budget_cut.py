"""A page that does not fit the session's budget returns the items that fit and says so (never a
refusal of the whole page, never a silent cut): tree, search and walk, in-process and over gRPC,
on a real index of a real git repository. Refused only when not even the first item fits."""

from __future__ import annotations

import grpc
import pytest

from serving._gen import stratum_pb2 as pb
from serving._gen import stratum_pb2_grpc as pb_grpc
from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.schema import NOTE_KINDS
from stratum.tools import Tools
from tests.integration.test_grpc_server import _check_envelope
from tests.pages import cut_at_the_cliff, search_all

pytestmark = pytest.mark.slow

CALLS = {   # each paged tool, with arguments whose whole answer is ~180-450 tokens, and a budget it overruns
    "tree": (dict(path="", depth=4), 200),
    "search": (dict(query="discount cart total"), 80),     # its first page ends at the evidence cliff: ~100 tokens
    "walk": (dict(target="shop/cart.py", direction="both"), 120),
}


@pytest.fixture(scope="module")
def tools(indexed_store):
    t = Tools.open([str(indexed_store[1])])
    yield t
    t.close()


def _session(tools, budget):
    return tools.open_session(author="cut", budget=budget).data["session"]


@pytest.mark.parametrize("tool", sorted(CALLS))
def test_a_page_over_the_budget_returns_what_fits_and_the_rest_follows(tools, tool):
    call, (args, budget) = getattr(tools, tool), CALLS[tool]
    whole = call(_session(tools, 20000), **args, page_size=50)
    every = whole.items
    if tool == "search":        # its pages may end where the evidence drops: the whole list is their sum
        every = search_all(tools, _session(tools, 20000), args["query"])[0]
    else:
        assert not whole.envelope.has_more
    assert sum(it.tokens for it in every) > budget
    s = _session(tools, budget)
    got, token, cuts, pages = [], "", 0, []
    while True:
        r = call(s, **args, page_size=50, page_token=token)
        e = r.envelope
        assert r.items, "a page that fits nothing more would be BudgetExceeded, not empty"
        assert e.tokens_returned == sum(it.tokens for it in r.items) and e.budget.used <= e.budget.limit
        assert e.returned == len(r.items) and e.total == whole.envelope.total
        pages.append((e.page, e.pages))
        got += [it.id for it in r.items]
        if not e.has_more:
            assert not e.next_hint.startswith("cut")
            break
        assert e.next_page_token and e.pages > e.page
        token = e.next_page_token
        if cut_at_the_cliff(e.next_hint):
            continue
        cuts += 1
        # the hint says it was cut, how much fitted, where the next page starts and how to get more
        rest = every[len(got)]
        where = (f"{rest.kind} note {rest.id}" if rest.kind in NOTE_KINDS else
                 f"{rest.kind} {rest.path}" + (f"::{rest.qualname}" if rest.qualname else ""))
        assert e.next_hint.startswith(f"cut by the budget: {len(r.items)} of ")
        assert f"next_page_token continues with: {where}" in e.next_hint and "larger budget" in e.next_hint
    assert cuts >= 1
    assert got == [it.id for it in every]              # every item once, in order
    assert [p for p, _ in pages] == list(range(1, len(pages) + 1))


def test_nothing_fits_is_refused_saying_what_the_items_cost(tools):
    items = tools.tree(_session(tools, 20000), "", depth=4, page_size=50).items
    first, smallest = items[0], min(it.tokens for it in items)
    s = _session(tools, first.tokens - 1)
    with pytest.raises(E.BudgetExceeded, match=(rf"not even the first item of this page fits the budget: "
                                               rf"repo  costs {first.tokens} tokens \(the smallest on the page "
                                               rf"{smallest}\); this response needs {first.tokens} more tokens")):
        tools.tree(s, "", depth=4, page_size=50)
    assert tools.status(s).envelope.budget.used == 0        # the refusal changed nothing


def test_pins_leave_room_for_part_of_a_page(tools):
    cost = tools.get(_session(tools, 20000), "shop/cart.py", "full").items[0].tokens
    s = _session(tools, cost + 50)      # room for one hit, not the 2-3 of the page (its evidence cliff)
    pinned = tools.get(s, "shop/cart.py", "full").items[0]
    tools.pin(s, "shop/cart.py")
    r = tools.search(s, "discount cart total", page_size=20)
    e = r.envelope
    assert e.has_more and e.next_hint.startswith("cut by the budget") and r.items
    assert e.budget.used <= e.budget.limit and pinned.id in tools.status(s).data["session"]["pins"]
    # the page the budget cut had ended at its evidence cliff (3 of 20): the hint says both (a probe)
    whole = tools.search(_session(tools, 20000), "discount cart total", page_size=20).items
    assert len(whole) < 20 and f"{len(r.items)} of {len(whole)} items fit, the page having ended at " \
        f"{len(whole)} where the evidence drops" in e.next_hint, e.next_hint


def test_over_grpc_a_cut_page_keeps_the_envelope_and_a_refusal_is_resource_exhausted(tools):
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        stub = pb_grpc.StratumStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            sid = c.open_session(author="wire", budget=200).data["session"]
            msg = stub.Tree(pb.TreeRequest(session=sid, path="", depth=4, page_size=50), timeout=30)
            _check_envelope("Tree", msg)
            assert msg.envelope.has_more and msg.envelope.next_hint.startswith("cut by the budget")
            msg = stub.Walk(pb.WalkRequest(session=sid, target="shop/cart.py", direction="both", page_size=50), timeout=30)
            _check_envelope("Walk", msg)
            tiny = c.open_session(author="wire", budget=5).data["session"]
            with pytest.raises(grpc.RpcError) as err:
                stub.Search(pb.SearchRequest(session=tiny, query="discount cart total"), timeout=30)
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "not even the first item of this page fits" in err.value.details()
            with pytest.raises(E.BudgetExceeded, match="the smallest on the page"):
                c.tree(tiny, "", depth=4)
    finally:
        server.stop(None)


def test_a_page_of_items_held_at_another_size_is_cut_not_refused(tools):
    """A probe: a tree filled the session, then a search's first hit (held by the tree at summary,
    its `why` making it larger) fitted, yet the page was refused whole: the run finder counted the
    held hits as adding nothing where the admission charged their larger size."""
    s = _session(tools, 360)
    tree = tools.tree(s, "", depth=4, page_size=50)
    assert not tree.envelope.has_more and tree.envelope.budget.used > 300
    held = {it.id: it.tokens for it in tree.items}
    first = tools.search(_session(tools, 20000), "discount cart total").items[0]
    assert first.id in held
    for it in tree.items:       # a search page now ends at its evidence cliff (3 items here), which eviction
        if it.id != first.id:   # of the tree's items would make room for: the rest of the tree stays
            tools.pin(s, it.id)
    r = tools.search(s, "discount cart total", page_size=50)
    e = r.envelope
    assert any(it.id in held and it.tokens != held[it.id] for it in r.items)     # the case: another size
    assert r.items and e.has_more and e.next_hint.startswith(f"cut by the budget: {len(r.items)} of ")
    assert e.budget.used <= e.budget.limit
    entries = tools.status(s).data["session"]["entries"]
    assert sum(x["tokens"] for x in entries) == e.budget.used          # the ledger holds what it charged
