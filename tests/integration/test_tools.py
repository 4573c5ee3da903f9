"""The tool functions over a real store built by the real pipeline (in-process; gRPC has its own tests)."""

from __future__ import annotations

import pytest

from stratum import tokens
from stratum.errors import InvalidArgument, InvalidPageToken, NotFound
from stratum.tools import Tools
from tests.pages import search_all

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tools(indexed_store, tmp_path_factory):
    """Tools over a private copy of the shared store: a note written here (remember) stayed in the
    store other files' tests read, and made their answers depend on the order files ran in."""
    import shutil

    from pipeline.gitio import freshness

    store = tmp_path_factory.mktemp("tools") / "s"
    shutil.copytree(indexed_store[1], store, ignore=shutil.ignore_patterns("deltalog", "cli.secret"))
    t = Tools.open([str(store)], freshness=freshness)
    yield t
    t.close()


def _session(tools, budget=20000, author="agent"):
    return tools.open_session(author=author, budget=budget).data["session"]


def test_every_answer_states_its_cost_and_what_remains(tools):
    s = _session(tools)
    r = tools.get(s, "shop/cart.py::Cart.total", "full")
    it = r.items[0]
    assert it.kind == "method" and it.qualname == "Cart.total" and "def total" in it.text
    assert it.tokens == tokens.count(it.text)
    e = r.envelope
    assert (e.returned, e.total, e.page, e.pages, e.has_more) == (1, 1, 1, 1, False)
    assert e.tokens_returned == it.tokens and e.budget.used == it.tokens
    assert e.budget.remaining == e.budget.limit - e.budget.used


def test_tree_pages_concatenate_without_duplicates(tools):
    s = _session(tools)
    full = tools.tree(s, "", depth=4, page_size=200)
    assert not full.envelope.has_more
    seen, token, pages = [], "", 0
    while True:
        r = tools.tree(s, "", depth=4, page_size=4, page_token=token)
        pages += 1
        seen.extend(i.id for i in r.items)
        assert r.envelope.page == pages and r.envelope.pages == -(-full.envelope.total // 4)
        if not r.envelope.has_more:
            assert r.envelope.next_page_token == ""
            break
        assert r.envelope.next_hint.startswith(f"page {pages + 1}")
        token = r.envelope.next_page_token
    assert seen == [i.id for i in full.items] and len(set(seen)) == len(seen)


def test_walk_imports_tests_and_cochange(tools):
    s = _session(tools)
    out = {(i.edge, i.direction, i.path) for i in tools.walk(s, "shop/cart.py", direction="both", page_size=50).items}
    # a node reached by several edges is one item listing them (tests/test_budget_charged.py)
    assert ("imports,cochange", "out", "shop/pricing.py") in out
    assert ("imports", "in", "shop/invoice.py") in out
    assert ("imports,tests,cochange", "in", "tests/test_cart.py") in out
    cc = tools.walk(s, "shop/cart.py", ["cochange"], "both").items
    pricing = [i for i in cc if i.path == "shop/pricing.py"]
    assert len(pricing) == 1 and int(pricing[0].meta["support"]) == 3
    m = pricing[0].meta                      # the edge's attributes as the edges dataset holds them
    assert 0 < float(m["confidence"]) <= 1 and float(m["lift"]) > 0 and m["last_time"].startswith("20")
    assert m["last_time"].endswith("+00:00")                  # a UTC time, as stored
    # a symbol has no imports/tests edges of its own: the walk says where they are
    sym = tools.walk(s, "shop/cart.py::Cart.total", ["imports"])
    assert sym.items == [] and any("walk shop/cart.py instead" in w for w in sym.envelope.warnings)


def test_search_finds_identifier_and_pages_are_stable(tools):
    s = _session(tools)
    r = tools.search(s, "render_invoice", page_size=3)
    assert r.items[0].qualname == "render_invoice" and r.items[0].why.startswith("exact name")
    # as imports and tracebacks write it: module.name, and package.module.Class.method
    for dotted, want in (("pricing.discount", ("shop/pricing.py", "discount")),
                         ("shop.cart.Cart.total", ("shop/cart.py", "Cart.total"))):
        first = tools.search(s, dotted, page_size=3).items[0]
        assert (first.path, first.qualname) == want and first.why.startswith("exact name"), (dotted, first)
    full, _ = search_all(tools, s, "discount cart total")
    got, token = [], ""
    while True:
        p = tools.search(s, "discount cart total", page_size=2, page_token=token)
        got.extend(i.id for i in p.items)
        if not p.envelope.has_more:
            break
        token = p.envelope.next_page_token
    assert got == [i.id for i in full]
    only = tools.search(s, "discount", kinds=["function"], path_prefix="shop/", page_size=10)
    assert only.items and all(i.kind == "function" and i.path.startswith("shop/") for i in only.items)
    with pytest.raises(InvalidArgument, match="relative to the repository root, e.g. 'shop/'"):
        tools.search(s, "discount", path_prefix="/shop/")       # it matched nothing, silently
    for leaving in ("../", "..", "shop/../", "shop/../../x", "..\\shop"):    # so did these (a probe)
        with pytest.raises(InvalidArgument, match="leaves the repository"):
            tools.search(s, "discount", path_prefix=leaving)
    assert tools.search(s, "discount", path_prefix="./shop").items      # "./" is still read as the root
    repo = tools.memory.shards.shards[0].manifest.repo_name             # its `repo:` name (items say "" with one store)
    with pytest.raises(InvalidArgument, match="is absolute"):              # after the store's name too
        tools.search(s, "discount", path_prefix=f"{repo}:/shop/")
    assert [i.id for i in tools.search(s, "discount", path_prefix=f"{repo}:./shop/").items] == \
        [i.id for i in tools.search(s, "discount", path_prefix="shop/").items]


def test_bad_requests_get_clear_errors(tools):
    s = _session(tools)
    with pytest.raises(NotFound, match="no node"):
        tools.get(s, "shop/nope.py::x")
    with pytest.raises(NotFound, match=r"did you mean shop/pricing.py::discount\?"):
        tools.get(s, "pricing.discount")                    # a dotted name: the node it means is named
    hit = tools.search(s, "render invoice text").items[0]
    assert tools.get(s, hit.id[:8], "summary").items[0].id == hit.id     # a why's short id is enough
    assert tools.search(s, "discount", path_prefix="./shop/").items      # ./ as get takes it
    with pytest.raises(InvalidArgument, match="level"):
        tools.get(s, "shop/cart.py", "everything")
    with pytest.raises(InvalidArgument, match="budget"):
        tools.open_session(budget=0)
    with pytest.raises(InvalidArgument, match="limit"):
        tools.search(s, "x" * 5000)
    with pytest.raises(InvalidArgument, match="no code in language 'klingon' here; the index has: python"):
        tools.search(s, "discount", language="klingon")        # a filter that can match nothing
    assert tools.search(s, "discount", language="Python").items  # any case
    r = tools.tree(s, "", depth=3, page_size=2)
    bad = r.envelope.next_page_token[:-3] + ("AAA" if not r.envelope.next_page_token.endswith("AAA") else "BBB")
    with pytest.raises(InvalidPageToken, match="tampered|malformed"):
        tools.tree(s, "", depth=3, page_size=2, page_token=bad)
    other = _session(tools)
    with pytest.raises(InvalidPageToken, match="another session"):
        tools.tree(other, "", depth=3, page_size=2, page_token=r.envelope.next_page_token)
    with pytest.raises(InvalidPageToken, match="different"):
        tools.tree(s, "shop", depth=3, page_size=2, page_token=r.envelope.next_page_token)
    with pytest.raises(InvalidPageToken, match="issued by tree, not walk"):     # which tool it belongs to
        tools.walk(s, "shop/cart.py", page_token=r.envelope.next_page_token)
    with pytest.raises(NotFound, match="session"):
        tools.get("not-a-session", "shop/cart.py")


def test_sessions_are_isolated_and_budget_evicts_with_report(tools):
    a, b = _session(tools, budget=400), _session(tools, budget=400)
    tools.get(a, "shop/cart.py", "full")
    tools.pin(a, "shop/cart.py")
    assert tools.status(b).data["session"]["budget"]["used"] == 0
    evicted = []
    for target in ("shop/pricing.py", "shop/invoice.py", "tests/test_cart.py", "shop/pricing.py::discount"):
        evicted += tools.get(a, target, "full").envelope.evictions
    assert evicted, "a 400-token budget must force evictions"
    assert all(e.label.startswith(("file ", "function ", "class ", "method ")) for e in evicted), evicted  # by name
    assert all(e.node_id != tools.get(a, "shop/cart.py", "summary").items[0].id for e in evicted)
    st = tools.status(a).data["session"]
    assert st["budget"]["used"] <= 400 and st["pins"]


def test_remember_is_searchable_and_walkable_at_once(tools):
    s = _session(tools, author="writer-model")
    r = tools.remember(s, "rca", "Totals off by a cent: the cause is discount() in pricing, which rounds "
                                 "after applying the code.", about=["shop/pricing.py::discount"])
    nid = r.data["note_id"]
    fresh = _session(tools, author="reader-model")
    hits = tools.search(fresh, "totals off by a cent", page_size=5).items
    assert hits[0].id == nid and hits[0].kind == "rca"
    about = tools.walk(fresh, "shop/pricing.py::discount", ["notes"]).items
    assert [i.id for i in about] == [nid]
    got = tools.get(fresh, nid, "full").items[0]
    assert "writer-model" in got.text and got.meta["status"] == "active"


def test_status_reports_versions_and_freshness(tools, indexed_store):
    s = _session(tools)
    sh = tools.status(s).data["shards"][0]
    assert sh["version"] == 1 and sh["indexed_commit"] and sh["moved_on"] is False
    assert sh["uncommitted_changes"] is False


def test_status_lists_the_best_of_a_large_working_set(tools, monkeypatch):
    import stratum.tools as T

    monkeypatch.setattr(T, "STATUS_ENTRIES", 2)
    s = _session(tools, budget=10**6)
    tools.search(s, "cart total", page_size=10)
    st = tools.status(s).data["session"]
    assert st["entries_total"] >= 3 and len(st["entries"]) == 2
    assert st["entries"][0]["score"] >= st["entries"][1]["score"]


def test_targets_are_found_however_the_path_is_written(tools):
    s = _session(tools)
    want = tools.get(s, "shop/cart.py", "summary").items[0].id
    for spelled in ("./shop/cart.py", "shop/cart.py/", "shop\\cart.py", " ./shop/cart.py "):
        assert tools.get(s, spelled, "summary").items[0].id == want
    method = tools.get(s, "shop/cart.py::Cart.total", "summary").items[0].id
    assert tools.get(s, "./shop/cart.py::Cart.total", "summary").items[0].id == method
    assert tools.get(s, ".", "summary").items[0].kind == "repo"
