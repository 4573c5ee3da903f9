"""`stratum <query> --server` leaves a paged answer's session open for `--session`, but no more than
``kept.KEPT`` of them: each paged query left one for good, and 64 filled the identity's session cap
on the server, refusing every later session of it (a probe: run 65 on, exit 2)."""

from __future__ import annotations

import json

import pytest

from pipeline.job import index_repository
from serving.client import Client
from serving.server import serve
from stratum.cli import main
from stratum.cli.kept import KEPT
from stratum.config import IndexConfig
from stratum.embedder import cache_root
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow


def test_paged_cli_queries_keep_at_most_kept_sessions_and_the_last_still_pages(tmp_path, capsys, monkeypatch):
    # The kept sessions' file in a cache of its own; the embedding tables from the user's cache (an
    # empty one made the server distil its table first: 21 s, past the CLI's 30 s call deadline
    # when the suite runs beside another worker).
    (tmp_path / "cache").mkdir()
    if (cache_root() / "models").is_dir():
        (tmp_path / "cache" / "models").symlink_to(cache_root() / "models", target_is_directory=True)
    monkeypatch.setenv("STRATUM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATUM_TOKEN", raising=False)
    r = Repo(tmp_path / "repo")
    r.commit("init", {f"pkg/mod_{i}.py": f'"""Parser number {i}."""\n\n\ndef parse_{i}(text):\n    return text\n'
                      for i in range(12)})
    store = tmp_path / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    tools = Tools.open([str(store)], max_sessions_per_identity=KEPT + 3)
    server, port = serve(tools, port=0, reload_interval=None)
    addr = f"127.0.0.1:{port}"
    agent = Client(addr, timeout=60)
    try:
        own = agent.open_session(author="agent-a").data["session"]      # an agent's, looked at from the CLI
        assert main(["status", "--server", addr, "--session", own, "--json"]) == 0
        capsys.readouterr()
        last = None
        for i in range(KEPT + 6):        # past the cap of KEPT + 3: refused before
            assert main(["search", "parser", "--page-size", "2", "--server", addr, "--json"]) == 0
            last = json.loads(capsys.readouterr().out)
            assert last["envelope"]["has_more"]
        assert tools.sessions.count("anonymous") == KEPT + 1       # the CLI's and the agent's
        assert agent.status(own).data       # a session the CLI was given is never its to close (a review)
        sess, token = last["data"]["session"], last["envelope"]["next_page_token"]
        assert main(["search", "parser", "--page-size", "2", "--server", addr, "--json",
                     "--session", sess, "--page-token", token]) == 0
        assert json.loads(capsys.readouterr().out)["envelope"]["page"] == 2
        assert tools.sessions.count("anonymous") == KEPT + 1
    finally:
        agent.close()
        server.stop(None)
        tools.close()
