"""Defects a probe found on a real gRPC server serving two stores (session p3), each checked on a
real server on a loopback port over real git repositories indexed by the real job:

- a note with no targets (``about=[]``) on a server of two stores went to the first store without a
  word, while ``about=["."]`` (the same: the whole repository) was refused as ambiguous;
- `stratum search --server` run in parallel left more than ``kept.KEPT`` sessions open: each process
  read, changed and replaced the kept sessions' file with no lock, and the last writer lost the others';
- a ``serving.client.Client`` used after ``close()`` raised gRPC's raw ``ValueError: Cannot invoke RPC
  on closed channel!``, where a closed local ``Tools`` raises the Stratum ``NotFound``;
- a worktree session on a server of two stores was refused by the first store whose repository it
  is not: a flask checkout was "not a worktree of the indexed repository 'requests'".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.job import index_repository
from pipeline.overlaybuilder import builder
from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.cli.kept import KEPT
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
NAMES = ("alpha", "beta")


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    """{name: (repository, store path)}: two repositories that share src/app.py, each indexed."""
    base = tmp_path_factory.mktemp("p3")
    out = {}
    for name in NAMES:
        r = Repo(base / name)
        r.commit("init", {"src/app.py": f'def main():\n    """Run {name}."""\n    return 1\n',
                          f"{name}_only.py": "X = 1\n"})
        index_repository(r.path, base / f"{name}_store", CFG)
        out[name] = (r, str(base / f"{name}_store"))
    return out


@pytest.fixture()
def served(repos):
    """(address, Tools) of a server over ``stores`` (store paths), on port 0, stopped after."""
    running = []

    def start(*stores: str, **kw) -> tuple[str, Tools]:
        tools = Tools.open(list(stores), overlay_builder=builder(CFG), **kw)
        server, port = serve(tools, port=0, reload_interval=None)
        running.append((server, tools))
        return f"127.0.0.1:{port}", tools
    yield start
    for server, tools in running:
        server.stop(None)
        tools.close()


def test_a_note_with_no_targets_is_refused_as_the_whole_repository_is_on_two_stores(repos, served):
    both, _ = served(repos["alpha"][1], repos["beta"][1])
    with Client(both, timeout=30) as c:
        s = c.open_session(author="agent").data["session"]
        for about in ([], ["."], [""]):
            with pytest.raises(E.InvalidArgument) as e:
                c.remember(s, "insight", f"the whole repository {about}", about)
            assert "name one as repo:target, e.g. alpha:., beta:." in e.value.message, e.value.message
        assert e.value.message.startswith("'' is in 2 of the stores served here (alpha, beta)")
        with pytest.raises(E.InvalidArgument) as none:
            c.remember(s, "insight", "the whole repository, no targets", [])
        assert none.value.message.startswith("a note with no targets is about the whole repository: "
                                             "'.' is in 2 of the stores served here (alpha, beta)"), none.value.message
        nid = c.remember(s, "insight", "beta as a whole", ["beta:."]).data["note_id"]
        assert c.get(s, nid).items[0].repo == "beta"        # named: that store's
    with Client(served(repos["alpha"][1])[0], timeout=30) as c:      # one store: the whole repository, as before
        s = c.open_session(author="agent").data["session"]
        nid = c.remember(s, "insight", "the one repository as a whole", []).data["note_id"]
        assert c.get(s, nid).items[0].kind == "insight"


# One `stratum <query> --server` that kept its session, as the CLI does it (``query._call``): open,
# detach, then ``_close_beyond_kept`` (``kept.keep`` and closing what it drops); N times, from the
# moment the file GO exists.
_KEEPER = """
import argparse, os, sys, time
from serving.client import Client
from stratum.cli.query import _close_beyond_kept
addr, go, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = Client(addr, timeout=60)
open(go + "." + str(os.getpid()), "w").close()
while not os.path.exists(go):
    time.sleep(0.002)
for _ in range(n):
    sid = c.open_session().data["session"]
    c.detach(sid)
    _close_beyond_kept(c, argparse.Namespace(server=addr, token=None), sid)
c.close()
"""


def test_cli_queries_kept_in_parallel_leave_at_most_kept_sessions(repos, served, tmp_path):
    addr, tools = served(repos["alpha"][1], max_sessions_per_identity=1000)      # every leaked one counted
    env = {k: v for k, v in os.environ.items() if k != "STRATUM_TOKEN"} | {"STRATUM_CACHE": str(tmp_path / "cache")}
    go, procs = tmp_path / "go", 8
    root = Path(__file__).resolve().parents[2]
    workers = [subprocess.Popen([sys.executable, "-c", _KEEPER, addr, str(go), "12"], cwd=root, env=env,
                                stderr=subprocess.PIPE, text=True) for _ in range(procs)]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("go.*"))) < procs and time.monotonic() < deadline:
        time.sleep(0.05)
    go.touch()          # all at once: the file's read-modify-write races without a lock
    for w in workers:
        assert w.wait(timeout=120) == 0, w.stderr.read() if w.stderr else ""
    (kept,) = json.loads((tmp_path / "cache" / "cli-sessions.json").read_text()).values()
    assert len(kept) == KEPT
    assert tools.sessions.count("anonymous") == KEPT, "sessions left open past the file's"
    assert all(tools.sessions.find(sid, "anonymous") is not None for sid in kept)


def test_a_closed_client_raises_what_a_closed_local_tools_raises(repos, served):
    addr, _ = served(repos["alpha"][1])
    local = Tools.open([repos["alpha"][1]])
    ls = local.open_session(author="agent").data["session"]
    local.close()
    with pytest.raises(E.StratumError) as was:
        local.search(ls, "main")
    c = Client(addr, timeout=30)
    s = c.open_session(author="agent").data["session"]
    c.close()
    for call in (lambda: c.search(s, "main"), lambda: c.status(s), lambda: c.open_session(), c.wait_ready):
        with pytest.raises(E.StratumError) as got:
            call()
        assert type(got.value) is type(was.value) is E.NotFound
        assert "on a closed client: Client.close() closed its channel" in got.value.message, got.value.message
    c.close()       # again: nothing to do, nothing raised


def test_a_worktree_session_on_two_stores_names_the_store_it_belongs_to_and_how_to_serve_it(repos, served, tmp_path):
    (alpha, alpha_store), (beta, beta_store) = repos["alpha"], repos["beta"]
    wt = tmp_path / "wt"
    git(alpha.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "src" / "app.py").write_text('def main():\n    """Run the worktree\'s alpha."""\n    return 2\n')
    both, _ = served(alpha_store, beta_store)
    with Client(both, timeout=60) as c:
        for checkout, name, store in ((wt, "alpha", alpha_store), (beta.path, "beta", beta_store)):
            with pytest.raises(E.InvalidArgument) as e:
                c.open_session(worktree=str(checkout))
            assert e.value.message == (
                f"'{checkout}' is a checkout of the repository of {name}, and a worktree session reads one "
                f"repository's checkout while 2 stores are served here (alpha, beta): open it where the store "
                f"of {name} is served alone (stratum serve --store {store}; stratum mcp or a query with --store "
                f"{store} --worktree {checkout})"), e.value.message
        with pytest.raises(E.InvalidArgument) as e:
            c.open_session(worktree=str(tmp_path))
        assert e.value.message.startswith(f"no store served here (alpha, beta) can open a session on the worktree "
                                          f"'{tmp_path}': '{tmp_path}' is not a worktree of the indexed repository"), e.value.message
    with Client(served(alpha_store)[0], timeout=60) as c:       # as the refusal says: that store alone
        s = c.open_session(worktree=str(wt)).data["session"]
        assert "return 2" in c.get(s, "src/app.py::main", level="full").items[0].text
