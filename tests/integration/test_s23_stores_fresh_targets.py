"""Three stores served together (alpha, beta, gamma: real git repositories that share src/util.py
and src/app.py, indexed by the real job, served by the real Tools, a real gRPC server and `stratum
mcp`): an answer's freshness is judged by the stores it draws on (a get of alpha's code was stale,
commit '', because gamma moved on: a probe); a note's targets in two stores are refused as such
when one is a node id; a `repo:` naming no served store says so, and a miss keeps its `repo:`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument, NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
CFG = IndexConfig(num_cpus=1, ray=False)
NAMES = ("alpha", "beta", "gamma")


def _files(name: str) -> dict[str, str]:
    return {"src/util.py": f'def helper(x):\n    """The {name} helper."""\n    return x\n',
            "src/app.py": f'from src.util import helper\n\n\ndef main():\n    """Run {name}."""\n    return helper(1)\n',
            f"{name}_only.py": "X = 1\n"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(repos by name, store paths), each repository indexed at its one commit; alpha also holds
    a file whose name has a colon (`notes:v2.py`)."""
    base = tmp_path_factory.mktemp("three")
    repos, stores = {}, []
    for name in NAMES:
        r = Repo(base / name)
        files = _files(name) | ({"notes:v2.py": "def odd():\n    return 1\n"} if name == "alpha" else {})
        r.commit("init", files)
        index_repository(r.path, base / f"{name}_store", CFG)
        repos[name] = r
        stores.append(str(base / f"{name}_store"))
    return repos, stores


@pytest.fixture()
def tools(served):
    t = Tools.open(served[1], freshness=freshness)
    t.memory.freshness.probe_seconds = 0      # re-probe on every call: the test commits between calls
    yield t
    t.close()


def _head(repo: Repo) -> str:
    return git(repo.path, "rev-parse", "HEAD").strip()


def _env(e) -> tuple:
    return e.commit, dict(e.commits), e.stale, list(e.warnings)


def test_an_answer_is_judged_by_the_stores_it_draws_on_and_status_by_all(served, tools):
    repos, stores = served
    alpha_at, gamma_at = _head(repos["alpha"]), _head(repos["gamma"])
    repos["gamma"].commit("gamma moves on", {"src/app.py": "def main():\n    return 2\n"})
    s = tools.open_session(author="agent").data["session"]
    for answer in (tools.get(s, "alpha:src/util.py::helper"), tools.tree(s, "alpha:src"),
                   tools.walk(s, "alpha:src/app.py", ["contains"]), tools.prefetch(s, ["alpha:src/app.py"])):
        assert {it.repo for it in answer.items} == {"alpha"}
        assert _env(answer.envelope) == (alpha_at, {"alpha": alpha_at}, False, []), answer.envelope
    # gamma's own code is stale, and says so, labelled with its store
    e = tools.get(s, "gamma:src/app.py").envelope
    assert e.stale and e.commit == gamma_at and e.commits == {"gamma": gamma_at}
    assert e.warnings[0].startswith(f"stale: gamma: the index is at {gamma_at[:7]}"), e.warnings
    assert "these returned files changed since: src/app.py" in e.warnings[0]
    # an answer from two stores names both commits, and no one commit
    fresh_session = tools.open_session(author="agent").data["session"]      # holds nothing yet
    two = tools.prefetch(fresh_session, ["alpha:src/app.py", "beta:src/app.py"])
    assert {it.repo for it in two.items} == {"alpha", "beta"}
    assert two.envelope.commit == "" and set(two.envelope.commits) == {"alpha", "beta"} and not two.envelope.stale
    # status is about the whole view: every store, gamma's staleness too
    st = tools.status(s).envelope
    assert set(st.commits) == set(NAMES) and st.commit == "" and st.stale
    assert any(w.startswith("stale: gamma:") for w in st.warnings), st.warnings
    # an answer with no items: the stores it was asked of (all unless the caller names them)
    mem = tools.memory
    assert set(mem.fresh([])[0]) == set(NAMES) and mem.fresh([])[2]
    alpha = [sh for sh in mem.shards.shards if sh.manifest.repo_name == "alpha"]
    assert mem.fresh([], asked=alpha) == ({"alpha": alpha_at}, [], False)


def test_grpc_and_mcp_carry_the_same_envelope_of_one_stores_answer(served, tools):
    from mcp import Client as McpClient
    from mcp.client.stdio import StdioServerParameters

    from serving.client import Client
    from serving.server import serve

    repos, stores = served
    repos["gamma"].commit("gamma moves again", {"gamma_only.py": "X = 2\n"})
    s = tools.open_session().data["session"]
    local = tools.get(s, "alpha:src/util.py::helper").envelope
    assert local.commits == {"alpha": _head(repos["alpha"])} and not local.stale
    server, port = serve(tools, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            sid = c.open_session(author="grpc").data["session"]
            assert _env(c.get(sid, "alpha:src/util.py::helper").envelope) == _env(local)
            with pytest.raises(NotFound, match="no store named 'nope' is served here"):
                c.get(sid, "nope:src/app.py")
    finally:
        server.stop(None)

    async def over_mcp() -> dict:
        args = ["-m", "stratum.cli", "mcp"] + [a for st in stores for a in ("--store", st)]
        params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)})
        async with McpClient(params, read_timeout_seconds=120) as client:
            res = await client.call_tool("get", {"target": "alpha:src/util.py::helper"})
            assert not res.is_error, res.content
            return json.loads(res.content[0].text)

    env = anyio.run(over_mcp)["envelope"]
    assert (env["commit"], env["commits"], env.get("stale", False), env.get("warnings", [])) == _env(local)


def test_a_note_whose_targets_are_in_two_stores_is_refused_naming_both(tools):
    s = tools.open_session(author="agent").data["session"]
    alpha_id = tools.get(s, "alpha:src/util.py::helper").items[0].id
    for about in ([alpha_id, "beta:src/app.py"], ["beta:src/app.py", alpha_id], ["beta:src/app.py", "alpha_only.py"]):
        with pytest.raises(InvalidArgument) as ei:
            tools.remember(s, "insight", "helper feeds main", about=about)
        assert str(ei.value) == "a note belongs to one store: its targets are in alpha and beta", (about, ei.value)
    # a plain target the named store holds too is that store's; an id beside its own store's name is fine
    assert tools.remember(s, "insight", "main calls helper", about=["beta:src/app.py", "src/util.py"]).items[0].repo == "beta"
    assert tools.remember(s, "insight", "helper is pure", about=[alpha_id, "alpha:src/app.py"]).items[0].repo == "alpha"


def test_a_repo_no_store_has_is_named_and_a_miss_keeps_the_repo_asked_in(tools):
    s = tools.open_session(author="agent").data["session"]
    said = "no store named 'nope' is served here: 'nope:src/app.py' reads as repo:path, and the stores served are alpha, beta, gamma"
    for call in (lambda: tools.get(s, "nope:src/app.py"), lambda: tools.walk(s, "nope:src/app.py", ["contains"]),
                 lambda: tools.pin(s, "nope:src/app.py"), lambda: tools.prefetch(s, ["nope:src/app.py"]),
                 lambda: tools.remember(s, "insight", "x", about=["nope:src/app.py"])):
        with pytest.raises(NotFound) as ei:
            call()
        assert str(ei.value) == said
    with pytest.raises(NotFound, match="no store named 'nope' is served here: 'nope:src/app.py'"):
        tools.get(s, "nope:src/app.py:2")
    with pytest.raises(NotFound, match="no store named 'nope' is served here: 'nope:src' reads as repo:path"):
        tools.tree(s, "nope:src")
    with pytest.raises(NotFound, match="no store named 'nope'"):
        tools.search(s, "helper", path_prefix="nope:src")
    with pytest.raises(NotFound, match=r"^no node 'alpha:src/nope\.py'"):
        tools.get(s, "alpha:src/nope.py")
    # what held a colon before still reads as it did: a file's line, a file named with a colon, a drive
    assert tools.get(s, "alpha_only.py:1").items[0].repo == "alpha"
    assert tools.get(s, "alpha:src/app.py:5").items[0].qualname == "main"
    assert tools.get(s, "notes:v2.py::odd").items[0].repo == "alpha"
    assert tools.get(s, "C:\\work\\alpha\\alpha_only.py").items[0].repo == "alpha"
    with pytest.raises(InvalidArgument, match="is in 3 of the stores served here"):
        tools.get(s, "src/app.py:5")
