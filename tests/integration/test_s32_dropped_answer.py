"""An answer its caller never receives (the gRPC deadline passed while the call ran) is not charged
to the session, evicts nothing, and its retry is not "already in context" (a probe: a Get past its
4 ms deadline was charged 14,035 tokens and the retry said the agent held the file).

Deterministic: the test holds the session controller's own lock while the call runs, so the call
can reach its admission only after the caller's deadline has passed."""

from __future__ import annotations

import shutil
import time

import pytest

from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.tools import Tools

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def running(indexed_store, tmp_path_factory):
    _repo, shared, _report = indexed_store
    store = tmp_path_factory.mktemp("dropped") / "store"
    shutil.copytree(shared, store)
    tools = Tools.open([str(store)])
    server, port = serve(tools, port=0, reload_interval=None)
    yield f"127.0.0.1:{port}", tools
    server.stop(None)
    tools.close()


def test_an_answer_past_its_deadline_charges_and_evicts_nothing(running):
    address, tools = running
    with Client(address, timeout=30) as c:
        sid = c.open_session(author="test", budget=2000).data["session"]
        held = c.get(sid, "shop/pricing.py", level="full")
        used = held.envelope.budget.used
        assert used > 0
        ctl = tools.sessions._by_id[sid].controller
        c.timeout = 0.5
        with ctl._lock:                                 # the call waits here until its caller has gone
            with pytest.raises(E.Unavailable, match="deadline"):
                c.get(sid, "shop/cart.py", level="full")
        c.timeout = 30
        time.sleep(0.5)                                 # the dropped call runs on, to its admission
        st = c.status(sid).data["session"]["budget"]
        assert st["used"] == used                       # nothing charged
        again = c.get(sid, "shop/cart.py", level="full")
        assert "already_in_context" not in again.items[0].meta
        assert again.envelope.budget.used > used        # charged now, when it is received
        assert not [e for e in held.envelope.evictions]
        c.close_session(sid)
