"""The gRPC server on port 0 over a real store built from a real git repository, called through a
real channel: the envelope on every RPC, paging, bad requests, session isolation, health,
reflection, deadlines, reloading a newly published version, graceful shutdown."""

from __future__ import annotations

import dataclasses
import json
import shutil
import socket
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from serving._gen import stratum_pb2 as pb
from serving._gen import stratum_pb2_grpc as pb_grpc
from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.schema import NOTE_KINDS
from stratum.store import Store
from stratum.tools import MAX_QUERY_CHARS, Tools
from tests.servecli import stratum_serve

pytestmark = pytest.mark.slow


def _open_tools(store) -> Tools:
    from pipeline.gitio import freshness     # the composition root's job; tests play that role

    return Tools.open([str(store)], freshness=freshness)


@pytest.fixture(scope="module")
def running(indexed_store, tmp_path_factory):
    _repo, shared, _report = indexed_store
    store = tmp_path_factory.mktemp("grpc") / "store"   # its own copy: these tests write notes
    shutil.copytree(shared, store)
    tools = _open_tools(store)
    server, port = serve(tools, port=0, reload_interval=None)
    yield f"127.0.0.1:{port}", tools
    server.stop(None)
    tools.close()


@pytest.fixture()
def client(running):
    with Client(running[0], timeout=30) as c:
        yield c


@pytest.fixture()
def session(client):
    sid = client.open_session(author="test").data["session"]
    yield sid
    client.close_session(sid)


def _targets(client, session) -> dict:
    """Real node ids from the store: a file that imports another, a function, a test file."""
    items = client.tree(session, "", depth=10, page_size=200).items
    by_path = {it.path: it for it in items if it.kind == "file"}
    funcs = [it for it in items if it.kind in ("function", "method")]
    return {"cart": by_path["shop/cart.py"], "pricing": by_path["shop/pricing.py"], "func": funcs[0],
            "all": items}


def _check_envelope(rpc: str, msg) -> None:
    """The one envelope shape, as it arrives on the wire."""
    assert msg.HasField("envelope"), rpc
    e = msg.envelope
    assert e.returned == len(msg.items), rpc
    assert e.page >= 1, rpc
    if e.total_is_lower_bound:
        assert e.pages == 0, rpc                 # page i of an unknown n
    else:
        assert e.pages >= e.page, rpc
    assert e.total >= e.returned, rpc
    assert e.has_more == bool(e.next_page_token), rpc
    assert e.tokens_returned == sum(it.tokens for it in msg.items), rpc
    assert e.HasField("budget") and e.budget.limit > 0, rpc
    assert e.budget.used + e.budget.remaining == e.budget.limit, rpc
    assert e.version >= 1, rpc
    for ev in e.evictions:
        assert ev.node_id and ev.from_level and ev.to_level and ev.tokens_freed >= 0, rpc
    json.loads(msg.data_json or "{}")
    for it in msg.items:
        assert it.id and it.kind and it.level in ("summary", "api", "full"), rpc
        json.loads(it.meta_json or "{}")
        if it.kind in NOTE_KINDS:              # a note is data with its provenance and trust marker
            assert it.trust and "author" in it.provenance.fields and "source" in it.provenance.fields, rpc
        for note in it.notes:
            assert note.HasField("id") and note.HasField("line") and note.HasField("trust"), rpc


def test_every_rpc_carries_the_envelope(running, client, session):
    t = _targets(client, session)
    stub = pb_grpc.StratumStub(grpc.insecure_channel(running[0]))
    calls = [
        ("OpenSession", pb.OpenSessionRequest(author="walker")),
        ("Tree", pb.TreeRequest(session=session, path="shop", depth=1)),
        ("Search", pb.SearchRequest(session=session, query="discount code rounding", page_size=3)),
        ("Get", pb.GetRequest(session=session, target=t["func"].id, level="full")),
        ("Walk", pb.WalkRequest(session=session, target=t["cart"].id, edges=["imports"])),
        ("Pin", pb.PinRequest(session=session, target=t["pricing"].id)),
        ("Unpin", pb.UnpinRequest(session=session, target=t["pricing"].id)),
        ("Prefetch", pb.PrefetchRequest(session=session, focus=[t["cart"].path], budget=2000)),
        ("Remember", pb.RememberRequest(session=session, kind="insight", about=[t["cart"].path],
                                        text="Cart.total applies the discount after rounding the sum.")),
        ("Status", pb.StatusRequest(session=session)),
    ]
    seen = {}
    for rpc, req in calls:
        msg = getattr(stub, rpc)(req, timeout=30)
        _check_envelope(rpc, msg)
        seen[rpc] = msg
    again = stub.Get(pb.GetRequest(session=session, target=t["cart"].id, level="api"), timeout=30)
    _check_envelope("Get", again)          # the note just written travels with the code it is about
    assert seen["Remember"].note_id in {n.id for n in again.items[0].notes}
    reviewer = stub.OpenSession(pb.OpenSessionRequest(author="reviewer"), timeout=30).session
    for rpc, req in (("Confirm", pb.ConfirmRequest(session=reviewer, note_id=seen["Remember"].note_id)),
                     ("Retract", pb.RetractRequest(session=session, note_id=seen["Remember"].note_id,
                                                   reason="written by this test"))):
        seen[rpc] = getattr(stub, rpc)(req, timeout=30)       # the review calls answer like every tool
        _check_envelope(rpc, seen[rpc])
    close = stub.CloseSession(pb.CloseSessionRequest(session=seen["OpenSession"].session), timeout=30)
    _check_envelope("CloseSession", close)
    assert {m.name for m in pb.DESCRIPTOR.services_by_name["Stratum"].methods} == set(seen) | {"CloseSession"}

    # the answers say what a user would check
    assert seen["OpenSession"].session
    assert {it.path for it in seen["Tree"].items} >= {"shop/cart.py", "shop/pricing.py"}
    assert all(it.HasField("score") for it in seen["Search"].items)
    assert seen["Get"].items[0].level == "full" and "def " in seen["Get"].items[0].text
    assert any(it.path == "shop/pricing.py" and it.edge == "imports" for it in seen["Walk"].items)
    assert seen["Remember"].note_id and json.loads(seen["Remember"].data_json)["note_id"] == seen["Remember"].note_id
    status = seen["Status"]
    assert status.shards[0].version == status.envelope.version
    assert status.shards[0].HasField("moved_on") and status.shards[0].indexed_commit


def test_client_returns_what_the_tools_return(running, client, session):
    """Same call over the wire and in-process: equal items and envelope (bar the session's budget)."""
    tools = running[1]
    local = tools.open_session(author="local").data["session"]
    try:
        over_wire = client.search(session, "unit price of a SKU", page_size=5)
        in_proc = tools.search(local, "unit price of a SKU", page_size=5)
        assert over_wire.items == in_proc.items
        strip = lambda e: dataclasses.replace(e, next_page_token="", budget=None)   # session-bound
        assert strip(over_wire.envelope) == strip(in_proc.envelope)
    finally:
        tools.close_session(local)


def test_paging_returns_every_item_once(client, session):
    whole = client.tree(session, "", depth=10, page_size=200)
    assert not whole.envelope.has_more and whole.envelope.pages == 1
    ids, token, pages_seen = [], "", []
    while True:
        r = client.tree(session, "", depth=10, page_size=4, page_token=token)
        ids += [it.id for it in r.items]
        pages_seen.append((r.envelope.page, r.envelope.pages))
        if not r.envelope.has_more:
            break
        assert r.envelope.next_hint, "a page with more after it says what comes next"
        token = r.envelope.next_page_token
    assert ids == [it.id for it in whole.items]
    assert len(ids) == len(set(ids)) == whole.envelope.total
    assert [p for p, _ in pages_seen] == list(range(1, len(pages_seen) + 1))
    assert {n for _, n in pages_seen} == {len(pages_seen)}


def test_search_pages_do_not_repeat(client, session):
    seen, token = [], ""
    for _ in range(50):
        r = client.search(session, "cart", page_size=2, page_token=token)
        seen += [it.id for it in r.items]
        if not r.envelope.has_more:
            break
        token = r.envelope.next_page_token
    assert len(seen) == len(set(seen)) and len(seen) > 2


def _rpc_error(fn, *args, **kw) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        fn(*args, **kw)
    details = info.value.details()
    assert "Traceback" not in details and 'File "' not in details
    return info.value


def test_bad_requests_get_the_right_status_and_a_clear_message(running, client, session):
    stub = pb_grpc.StratumStub(grpc.insecure_channel(running[0]))
    err = _rpc_error(stub.Get, pb.GetRequest(session=session, target="shop/nothing_here.py"), timeout=30)
    assert err.code() == grpc.StatusCode.NOT_FOUND and "shop/nothing_here.py" in err.details()

    first = client.tree(session, "", depth=10, page_size=2)
    token = first.envelope.next_page_token
    tampered = token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB")
    err = _rpc_error(stub.Tree, pb.TreeRequest(session=session, depth=10, page_size=2, page_token=tampered), timeout=30)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "page token" in err.details()
    err = _rpc_error(stub.Tree, pb.TreeRequest(session=session, depth=3, page_size=2, page_token=token), timeout=30)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "different" in err.details()

    err = _rpc_error(stub.OpenSession, pb.OpenSessionRequest(budget=0), timeout=30)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "budget" in err.details()

    long_query = "price " * (MAX_QUERY_CHARS // 5)
    err = _rpc_error(stub.Search, pb.SearchRequest(session=session, query=long_query), timeout=30)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and str(MAX_QUERY_CHARS) in err.details()
    # a whole pasted traceback may be longer than a query (its frames and error lines are read)
    pasted = "".join(f'  File "/usr/lib/python3.11/shop_runner.py", line {i}, in run\n' for i in range(60)) + \
        "KeyError: 'pear'\n"
    assert len(pasted) > MAX_QUERY_CHARS
    assert stub.Search(pb.SearchRequest(session=session, query=pasted, page_size=3), timeout=30).items

    huge = "x" * (2 << 20)                         # over the 1 MiB request limit: refused by gRPC
    err = _rpc_error(stub.Search, pb.SearchRequest(session=session, query=huge), timeout=30)
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

    err = _rpc_error(stub.Status, pb.StatusRequest(session="no-such-session"), timeout=30)
    assert err.code() == grpc.StatusCode.NOT_FOUND and "session" in err.details()

    err = _rpc_error(stub.Get, pb.GetRequest(session=session, target="shop/cart.py", level="everything"), timeout=30)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "level" in err.details()

    # the client raises the very error type the tool raised
    with pytest.raises(E.InvalidPageToken):
        client.tree(session, "", depth=10, page_size=2, page_token=tampered)
    with pytest.raises(E.NotFound):
        client.get(session, "shop/nothing_here.py")
    with pytest.raises(E.InvalidArgument):
        client.open_session(budget=0)
    with pytest.raises(E.InvalidArgument):
        client.search(session, huge)
    # arguments of the wrong type: the tools' InvalidArgument, as in process (a probe: TypeError and
    # ValueError, a string edge list split into letters, a focus string read as its characters)
    for call, match in ((lambda: client.tree(session, "", page_size="2"), "page_size must be a whole number"),
                        (lambda: client.tree(session, "", depth=True), "depth must be a whole number"),
                        (lambda: client.tree(session, "", page_size=2 ** 31), "page_size must be between 1 and 200"),
                        (lambda: client.walk(session, "shop/cart.py", edges="imports"), "edges must be a list"),
                        (lambda: client.prefetch(session, "shop/cart.py"), "focus must be a list")):
        with pytest.raises(E.InvalidArgument, match=match):
            call()


def test_two_sessions_do_not_see_each_others_state(client):
    a = client.open_session(author="a", budget=5000).data["session"]
    b = client.open_session(author="b", budget=9000).data["session"]
    try:
        cart = client.get(a, "shop/cart.py", level="api").items[0].id
        client.pin(a, "shop/pricing.py")
        pricing = client.get(a, "shop/pricing.py", level="summary").items[0].id
        sa, sb = client.status(a), client.status(b)
        assert sa.envelope.budget.limit == 5000 and sb.envelope.budget.limit == 9000
        assert sa.envelope.budget.used > 0 and sb.envelope.budget.used == 0
        seen_a, seen_b = json.dumps(sa.data["session"]), json.dumps(sb.data["session"])
        assert cart in seen_a and pricing in seen_a
        assert cart not in seen_b and pricing not in seen_b
        token = client.tree(a, "", depth=10, page_size=2).envelope.next_page_token
        with pytest.raises(E.InvalidPageToken, match="another session"):
            client.tree(b, "", depth=10, page_size=2, page_token=token)
        client.close_session(a)
        with pytest.raises(E.NotFound):
            client.status(a)
        assert client.status(b).envelope.budget.used == 0
    finally:
        client.close_session(b)


def test_health_and_reflection(running):
    channel = grpc.insecure_channel(running[0])
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "stratum.v1.Stratum"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(channel)
    replies = list(refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                             timeout=10))
    names = {s.name for s in replies[0].list_services_response.service}
    assert {"stratum.v1.Stratum", "grpc.health.v1.Health"} <= names


def test_deadlines_and_unreachable_servers(running, session):
    # a listener that accepts connections and never answers: the call can only end by its deadline
    # (a tiny timeout against the real server raced its answer and sometimes completed)
    hole = socket.socket()
    hole.bind(("127.0.0.1", 0))
    hole.listen(8)
    try:
        with Client(f"127.0.0.1:{hole.getsockname()[1]}", timeout=0.5) as hurried:
            started = time.monotonic()
            with pytest.raises(E.Unavailable, match="deadline") as info:
                hurried.search(session, "cart")
            assert info.value.retryable and time.monotonic() - started < 10
    finally:
        hole.close()
    with Client("127.0.0.1:1", timeout=2) as nowhere:
        with pytest.raises(E.Unavailable) as info:
            nowhere.status("x")
        assert info.value.retryable


def test_newly_published_version_is_picked_up_without_failing_in_flight_calls(indexed_store, tmp_path):
    """A publish while clients are calling: no call fails, Status moves to the new version, and a page
    token from the old version is refused as stale."""
    _repo, store, _ = indexed_store
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    tools = _open_tools(copy)
    server, port = serve(tools, port=0, reload_interval=0.2)
    errors, calls, stop = [], [0], threading.Event()

    def hammer():
        with Client(f"127.0.0.1:{port}") as c:
            sid = c.open_session().data["session"]
            while not stop.is_set():
                try:
                    c.search(sid, "discount")
                    c.tree(sid, "shop", depth=2)
                    calls[0] += 2
                except E.StratumError as err:
                    errors.append(err)
    try:
        with Client(f"127.0.0.1:{port}") as c:
            sid = c.open_session().data["session"]
            old = c.status(sid).envelope.version
            token = c.tree(sid, "", depth=10, page_size=2).envelope.next_page_token
            workers = [threading.Thread(target=hammer) for _ in range(3)]
            for w in workers:
                w.start()
            time.sleep(0.5)
            st = Store(copy)                      # publish a new version of the same datasets
            m = st.manifest()
            st.publish(dataclasses.replace(m, version=m.version + 1, published_at=time.time()))
            deadline = time.time() + 15
            while c.status(sid).envelope.version == old and time.time() < deadline:
                time.sleep(0.1)
            time.sleep(0.5)
            stop.set()
            for w in workers:
                w.join()
            status = c.status(sid)
            assert status.envelope.version != old and status.data["shards"][0]["version"] == m.version + 1
            with pytest.raises(E.InvalidPageToken, match="stale"):
                c.tree(sid, "", depth=10, page_size=2, page_token=token)
        assert errors == [] and calls[0] > 0
    finally:
        stop.set()
        server.stop(None)
        tools.close()


def test_stratum_serve_drains_on_sigterm(indexed_store):
    """`stratum serve` as a user runs it: prints where it listens, serves, and on SIGTERM stops
    cleanly (exit 0) after telling health checkers it is going away."""
    _repo, store, _ = indexed_store
    with stratum_serve(store) as (_line, address), Client(address) as c:
        sid = c.open_session().data["session"]
        assert c.status(sid).data["shards"][0]["repo"]


def test_internal_failure_is_logged_with_a_reference_and_not_sent(indexed_store, tmp_path, caplog):
    """The store's data vanishes under a running server: the caller gets INTERNAL with a short message
    and a reference; the trace is in the server log under that reference."""
    _repo, store, _ = indexed_store
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    tools = _open_tools(copy)
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}") as c:
            sid = c.open_session().data["session"]
            for data_dir in copy.glob("data-v*"):
                shutil.rmtree(data_dir)
            stub = pb_grpc.StratumStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
            with caplog.at_level("ERROR", logger="stratum.serving"):
                err = _rpc_error(stub.Get, pb.GetRequest(session=sid, target="shop/pricing.py", level="full"),
                                 timeout=30)
            assert err.code() == grpc.StatusCode.INTERNAL and "ref " in err.details()
            ref = err.details().rsplit("ref ", 1)[1].rstrip(")")
            logged = [r for r in caplog.records if ref in r.getMessage()]
            assert logged and logged[0].exc_info is not None
            with pytest.raises(E.SystemError_):
                c.get(sid, "shop/cart.py", level="full")
    finally:
        server.stop(None)
        tools.close()


def test_closing_a_client_ends_the_sessions_it_opened(running):
    """Like Tools.close: a CLI call over --server must not leave its session behind on the server."""
    with Client(running[0]) as short_lived:
        sid = short_lived.open_session(author="cli").data["session"]
        short_lived.status(sid)
    with Client(running[0]) as other:
        with pytest.raises(E.NotFound, match="unknown session"):
            other.status(sid)


def test_a_long_lived_server_lets_go_of_old_versions_while_new_ones_keep_coming(indexed_store, tmp_path):
    """`stratum serve` freezes its heap; the old versions' shards sit in reference cycles, and each
    holds its version's files against the prune. With publishes every poll (a watch on a busy
    branch) the old versions' holds are still released. A guard against a leak: the ordinary young
    collections also free them within the deadline, so this passes without the collection
    COLLECT_AFTER polls after a switch, which only makes it sooner (~1 s)."""
    _repo, store, _ = indexed_store
    copy = tmp_path / "store"
    shutil.copytree(store, copy, ignore=shutil.ignore_patterns("readers"))   # other processes' hold files
    st = Store(copy)
    with stratum_serve(copy, "--reload-interval", "0.2") as (_line, address), Client(address) as c:
        sid = c.open_session().data["session"]
        for _ in range(4):                          # a new version every ~0.5 s: never 20 quiet polls
            m = st.manifest()
            st.publish(dataclasses.replace(m, version=m.version + 1, published_at=time.time()))
            deadline = time.time() + 10
            while c.status(sid).data["shards"][0]["version"] != m.version + 1 and time.time() < deadline:
                time.sleep(0.05)
            c.search(sid, "discount")
        newest = st.manifest().version
        deadline = time.time() + 30
        held = None
        while time.time() < deadline:
            held = sorted({int(p.name[1:7]) for p in (copy / "readers").glob("v*.hold")})
            if held == [newest]:
                break
            time.sleep(0.2)
        assert held == [newest], held               # only the version it serves is held
