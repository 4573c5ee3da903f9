"""The Python client refuses an argument over its size bound as the tools do, before any request.

A probe: ``Client.remember(sid, "insight", "x" * (1 << 20), about=[...])`` raised InvalidArgument
"SERVER: Received message larger than max (1048644 vs. 1048576)" where the same call on ``Tools``
(and a 900 KB note over raw gRPC) was NoteRejected "note text is N bytes, over the limit of 16384;
shorten it or split it": the note text's bound (and the session id's) were not among the client's
checks. A request still over a server's (lower) limit now says which limit and what to do."""

from __future__ import annotations

import shutil
import socket

import pytest

from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.notes import NoteLimits
from stratum.tools import Tools

pytestmark = pytest.mark.slow
LIMIT = NoteLimits.max_text_bytes


@pytest.fixture(scope="module")
def served(indexed_store, tmp_path_factory):
    """(tools, address of a server on them, address of one taking requests of at most 4 KiB)."""
    from pipeline.gitio import freshness

    store = tmp_path_factory.mktemp("f10sizes") / "store"      # its own copy: a test writes a note
    shutil.copytree(indexed_store[1], store)
    tools = Tools.open([str(store)], freshness=freshness)
    server, port = serve(tools, port=0, reload_interval=None)
    small, small_port = serve(tools, port=0, reload_interval=None, max_request_bytes=4096)
    yield tools, f"127.0.0.1:{port}", f"127.0.0.1:{small_port}"
    server.stop(None)
    small.stop(None)
    tools.close()


def _refusal(call) -> E.StratumError:
    with pytest.raises(E.StratumError) as err:
        call()
    return err.value


@pytest.mark.parametrize("size", [1 << 20, 20_000, 3 * LIMIT])
def test_a_note_over_the_limit_is_refused_by_the_client_in_the_tools_words(served, size):
    tools, address, _ = served
    local = tools.open_session(author="local").data["session"]
    with Client(address) as c:
        sid = c.open_session(author="remote").data["session"]
        over_grpc = _refusal(lambda: c.remember(sid, "insight", "x" * size, about=["shop/cart.py"]))
    in_process = _refusal(lambda: tools.remember(local, "insight", "x" * size, about=["shop/cart.py"]))
    assert type(over_grpc) is type(in_process) is E.NoteRejected
    assert str(over_grpc) == str(in_process) == (f"note text is {size} bytes, over the limit of {LIMIT}; "
                                                 "shorten it or split it into several notes")


def test_the_client_refuses_before_any_request_is_sent(served):
    """No server listens on the port: a refusal here was decided before the wire (else Unavailable)."""
    tools, _, _ = served
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        nobody = f"127.0.0.1:{s.getsockname()[1]}"
    with Client(nobody, timeout=5) as c:
        note = _refusal(lambda: c.remember("f" * 32, "insight", "é" * LIMIT, about=["shop/cart.py"]))
        assert isinstance(note, E.NoteRejected) and f"note text is {2 * LIMIT} bytes" in str(note)
        sid = _refusal(lambda: c.status("s" * (2 << 20)))       # a session id bounds its size too
    assert type(sid) is E.InvalidArgument
    assert str(sid) == str(_refusal(lambda: tools.status("s" * (2 << 20))))
    assert str(sid).startswith("session id is 2097152 characters; the limit is 64")


def test_text_the_note_rules_clean_under_the_limit_is_taken_by_the_client_too(served):
    """Measured as stored: control characters dropped (ESC here), as ``notes.validate`` measures."""
    _tools, address, _ = served
    text = "cart total rounds twice " * 600 + "\x1b" * 2000     # 14,400 bytes kept, 16,400 sent
    assert len(text.encode()) > LIMIT
    with Client(address) as c:
        sid = c.open_session(author="remote").data["session"]
        nid = c.remember(sid, "insight", text, about=["shop/cart.py"]).data["note_id"]
        assert "\x1b" not in c.get(sid, nid, level="full").items[0].text


def test_a_request_over_the_servers_own_limit_says_which_limit_and_what_to_do(served):
    """A server started with a lower --max-request-bytes than the arguments' own bounds."""
    _tools, _, small = served
    with Client(small) as c:
        sid = c.open_session(author="remote").data["session"]
        err = _refusal(lambda: c.remember(sid, "insight", "y" * 10_000, about=["shop/cart.py"]))
    assert type(err) is E.InvalidArgument
    message = str(err)
    assert "Received message larger than max" not in message
    assert message.startswith("the request is ") and "over the server's limit of 4096 bytes" in message
    assert "--max-request-bytes" in message and "Send less in one call" in message
