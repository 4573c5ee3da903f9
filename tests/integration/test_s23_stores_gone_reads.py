"""One server over three stores (alpha, beta, gamma), a real gRPC server on loopback with its real
reload loop, and gamma's store moved away while served. A probe: `get gamma:src/app.py --level full`
read Lance files that were gone and said "the store may be damaged: run `stratum repair`" (repair
cannot help a store that is not there), and status showed gamma at its loaded version as if it were
current: only the server log said it was held there. Now the read names the store and the way out
(restore it, or index again), code store_damaged on gRPC and MCP, the others still answer; and
status warns that gamma is held, since when and why, until it is back."""

from __future__ import annotations

import time

import anyio
import pytest
from mcp import Client as MCPClient

from pipeline.gitio import freshness
from pipeline.job import index_repository
from serving.client import Client
from serving.mcp_server import build_server
from serving.server import serve
from stratum import errors as E
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.gitrepo import Repo
from tests.integration.test_s23_stores_reload_missing_store import _until, three  # noqa: F401 - three: a fixture

pytestmark = pytest.mark.slow

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
APP = "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n"


def _held(c: Client, sid: str) -> list[str]:
    return [w for w in c.status(sid).envelope.warnings if "held at its loaded version" in w]


def test_a_full_read_from_a_store_moved_away_says_so_and_the_others_answer(three):
    addr, served = three             # the reload test's three stores: {name: (repo, store)}
    stores = {k: store for k, (_, store) in served.items()}
    gamma = stores["gamma"]
    with Client(addr, timeout=30) as c:
        sid = c.open_session(author="agent").data["session"]
        gamma.rename(gamma.with_name("gamma_hidden"))
        with pytest.raises(E.StoreDamaged) as got:
            c.get(sid, "gamma:src/app.py", level="full")
        said = got.value.message
        assert str(gamma) in said and "no longer at its path" in said and "index the repository again" in said
        assert "stratum repair" not in said                         # repair cannot help a store not there
        assert "def helper" in c.get(sid, "alpha:src/app.py", level="full").items[0].text
        assert {it.repo for it in c.search(sid, "helper").items} >= {"alpha", "beta"}


def test_status_says_which_store_is_held_since_when_and_why_until_it_is_back(three):
    addr, served = three             # the reload test's three stores: {name: (repo, store)}
    stores = {k: store for k, (_, store) in served.items()}
    gamma = stores["gamma"]
    hidden = gamma.with_name("gamma_hidden")
    with Client(addr, timeout=30) as c:
        sid = c.open_session(author="ops").data["session"]
        assert _held(c, sid) == []
        gamma.rename(hidden)
        assert _until(lambda: _held(c, sid) != [])
        [w] = _held(c, sid)
        assert str(gamma) in w and "since 20" in w and "no index at" in w and str(stores["alpha"]) not in w
        assert "restore the store at its path" in w
        hidden.rename(gamma)
        assert _until(lambda: _held(c, sid) == [])


async def _over_mcp(stores: list[str], gamma) -> tuple[dict, list[str]]:
    async with MCPClient(build_server(lambda: Tools.open(stores, freshness=freshness), author="mcp",
                                      reload_interval=0.1)) as client:
        await client.call_tool("status", {})
        gamma.rename(gamma.with_name("gamma_hidden"))
        await anyio.sleep(0.5)                                       # reload ticks find gamma gone
        r = await client.call_tool("get", {"target": "gamma:src/app.py", "level": "full"})
        assert r.is_error
        status = await client.call_tool("status", {})
        return r.structured_content["error"], [getattr(t, "text", "") for t in status.content]


def test_mcp_says_the_same(tmp_path):
    stores = []
    for name in ("alpha", "gamma"):
        r = Repo(tmp_path / name)
        r.commit("start", {"src/app.py": APP})
        index_repository(r.path, default_store_path(r.path), CFG)
        stores.append(str(default_store_path(r.path)))
    gamma = default_store_path(tmp_path / "gamma")
    err, status = anyio.run(_over_mcp, stores, gamma)
    assert err["code"] == "store_damaged" and str(gamma) in err["message"]
    assert "no longer at its path" in err["message"]
    assert any("held at its loaded version" in t and str(gamma) in t for t in status), status
