"""On an open server a session id is the only key to a session, so no answer may show another
agent's (a probe: agent B read agent A's id from a note's `provenance.session` and its header "by
agent-a, session <id>", then read A's working set, wrote notes as agent-a in it and could close it).
A note names its session by a label: the same for every note of one session, kept by a merge and a
restart, and no session id. A real repository, the real index job, a real open gRPC server on
loopback with two clients, the real CLI."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from serving.client import Client
from serving.mcp_server import render
from serving.server import serve
from stratum import errors as E

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
FILES = {"pkg/cache.py": "def reset(c):\n    c.clear()\n\n\ndef get(c, k):\n    return c.get(k)\n",
         "app.py": "from pkg.cache import reset\n\nreset({})\n"}
A_TEXTS = ("the wombat cache keeps stale keys after reset because reset clears a copy",
           "tried resetting the wombat cache twice: the stale keys stayed")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """(store, a re-index, serve(): an open server on the store and its address)."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    tmp = tmp_path_factory.mktemp("sessionids")
    r = Repo(tmp / "repo")
    r.commit("initial", FILES)
    store, cfg = tmp / "store", IndexConfig(num_cpus=1, ray=False)
    index_repository(r.path, store, cfg)
    running: list = []

    def start() -> str:
        for server, tools in running:       # a restart: the old process's sessions are gone
            server.stop(None)
            tools.close()
        running.clear()
        tools = Tools.open([str(store)])
        server, port = serve(tools, port=0, reload_interval=None)     # no tokens: every caller is anonymous
        running.append((server, tools))
        return f"127.0.0.1:{port}"

    yield store, lambda: index_repository(r.path, store, cfg), start
    for server, tools in running:
        server.stop(None)
        tools.close()


def _dump(resp) -> str:
    """Everything a client receives in one answer, and its MCP rendering."""
    return json.dumps(dataclasses.asdict(resp), default=str) + render(resp)


def _search_pages(b: Client, sb: str) -> list:
    """B's search, page after page (a page may end where the evidence drops: stratum.pagecut)."""
    out = [b.search(sb, "wombat cache stale keys reset")]
    while out[-1].envelope.has_more and len(out) < 5:
        out.append(b.search(sb, "wombat cache stale keys reset", page_token=out[-1].envelope.next_page_token))
    return out


def _answers_of_b(b: Client, sb: str, nids: list[str]) -> list:
    out = _search_pages(b, sb)
    out += [b.status(sb),
           b.walk(sb, "pkg/cache.py::reset", edges=["notes"], direction="in"),
           b.get(sb, "pkg/cache.py::reset"), b.get(sb, "pkg/cache.py", level="full"), b.prefetch(sb, ["app.py"])]
    out += [b.get(sb, nid, level=level) for nid in nids for level in ("summary", "api", "full")]
    return out


def _cli(store: Path, *args: str) -> str:
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "notes", *args, "--store", str(store)],
                       cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_another_agent_never_sees_a_session_id_and_the_label_opens_nothing(world):
    store, reindex, start = world
    addr = start()
    with Client(addr, timeout=60) as a, Client(addr, timeout=60) as b:
        sa = a.open_session(author="agent-a", model="claude").data["session"]
        a.get(sa, "pkg/cache.py", level="api")          # a working set worth stealing
        nids = [a.remember(sa, kind, text, ["pkg/cache.py::reset"]).data["note_id"]
                for kind, text in zip(("insight", "failure"), A_TEXTS)]
        sb = b.open_session(author="agent-b").data["session"]
        own = b.remember(sb, "insight", "the wombat cache is shared between threads", ["pkg/cache.py"]).items[0]

        answers = _answers_of_b(b, sb, nids)
        leaks = [r.envelope for r in answers if sa in _dump(r)]
        assert not leaks, "agent A's session id reached agent B"
        found = {it.id: it for r in _search_pages(b, sb) for it in r.items}
        assert set(nids) <= set(found), "B finds A's notes"

        labels = {found[nid].provenance["session"] for nid in nids}
        assert len(labels) == 1, "one label for every note of one session"
        label = labels.pop()
        assert label and label != sa and own.provenance["session"] not in ("", label)
        assert f"session {label}" in b.get(sb, nids[0], level="api").items[0].text    # the header names it too

        for call in (lambda: b.status(label), lambda: b.get(label, "pkg/cache.py"),
                     lambda: b.remember(label, "insight", "written by agent-b as agent-a", ["pkg/cache.py"]),
                     lambda: b.close_session(label)):
            with pytest.raises(E.NotFound, match="unknown session"):
                call()
        assert a.status(sa).data["session"]["entries_total"] > 0, "A's session is untouched"


def test_the_label_holds_across_a_merge_and_a_restart_and_the_cli_shows_no_id(world):
    store, reindex, start = world
    addr = start()
    with Client(addr, timeout=60) as a, Client(addr, timeout=60) as b:
        sa = a.open_session(author="agent-c").data["session"]
        nid = a.remember(sa, "rca", "the quagga reset clears a copy of the cache, not the cache",
                         ["pkg/cache.py::reset"]).data["note_id"]
        gone = a.remember(sa, "insight", "the quagga cache needs no reset", ["pkg/cache.py"]).data["note_id"]
        a.retract(sa, gone, "it does")
        sb = b.open_session(author="agent-d").data["session"]
        before = b.get(sb, nid, level="full").items[0].provenance["session"]
    reindex()                                          # merged into the shard: its header written there
    addr = start()
    with Client(addr, timeout=60) as b:
        sb = b.open_session(author="agent-d").data["session"]
        answers = _answers_of_b(b, sb, [nid]) + [b.search(sb, "quagga reset copy")]
        assert not [r.envelope for r in answers if sa in _dump(r)]
        got = b.get(sb, nid, level="full").items[0]
        assert got.meta["merged"] == "true" and got.provenance["session"] == before
        assert f"session {before}" in got.text

    listed, shown = _cli(store, "list", "--json"), _cli(store, "show", nid, "--json")
    texts = _cli(store, "list") + _cli(store, "show", nid)
    assert sa not in listed + shown + texts
    assert json.loads(shown)["session"] == before and json.loads(shown)["provenance"]["session"] == before
    assert f"session {before}" in texts
    retracted = [n for n in json.loads(listed)["notes"] if n["id"] == gone]
    assert retracted[0]["retraction"]["session"] == before      # the retract was written in that session
