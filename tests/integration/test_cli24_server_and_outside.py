"""Two CLI mends. Over --server, once HEAD moved on, every query printed one stale line that said
two things: opening's own freshness line (judged with no items: "none of the returned files changed
since") joined to the answer's ("these returned files changed since: shop/pricing.py"); a local run
said the second alone (probe P1). Outside any repository, the queries, `serve` and `cochange` said
"no index at /tmp/.stratum: run `stratum index` first", and `stratum index` there "not inside a git
repository" (probe P1): they say the working directory is in no repository and that --store names
a store; `stratum mcp` there still comes up and answers each tool call with that."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pipeline.job import index_repository
from stratum.config import IndexConfig, default_store_path
from tests.clirun import run
from tests.gitrepo import Repo
from tests.servecli import stratum_serve

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PRICING = ('"""Prices."""\n\n\ndef discount(amount, rate):\n    """Apply a discount rate."""\n'
           '    return round(amount * (1 - rate), 2)\n\n\ndef tax(amount, rate=0.2):\n    """Add tax."""\n'
           '    return round(amount * (1 + rate), 2)\n')


def test_a_server_answer_says_its_staleness_once_as_a_local_one_does(tmp_path, capsys, monkeypatch):
    r = Repo(tmp_path / "shop")
    r.commit("initial", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "README.md": "shop\n"})
    index_repository(r.path, None, IndexConfig(num_cpus=1, ray=False))
    r.commit("moved on", {"shop/pricing.py": PRICING + "# moved on\n"})
    monkeypatch.chdir(r.path)
    rc, local, err = run(capsys, "get", "shop/pricing.py::tax")
    assert rc == 0, err
    said = [ln for ln in local.splitlines() if ln.startswith("-- stale:")]
    assert len(said) == 1 and said[0].endswith("these returned files changed since: shop/pricing.py"), local
    with stratum_serve(default_store_path(r.path)) as (_, addr):
        for argv in (("get", "shop/pricing.py::tax"), ("search", "tax")):
            rc, out, err = run(capsys, *argv, "--server", addr)
            assert rc == 0, err
            stale = [ln for ln in out.splitlines() if ln.startswith("-- stale:")]
            assert len(stale) == 1 and stale[0].count("the index is at") == 1, out
            assert "none of the returned files" not in stale[0], stale
            assert "shop/pricing.py" in stale[0], stale
        monkeypatch.chdir(r.path / "shop")      # a path from a subfolder, as locally (test_cli24_paths_here)
        rc, out, err = run(capsys, "get", "pricing.py::tax", "--server", addr)
        assert rc == 0 and out.startswith("--- function shop/pricing.py::tax"), (out, err)
        assert [ln for ln in out.splitlines() if ln.startswith("-- stale:")] == said


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """A working directory in no repository (nor below a store)."""
    here = tmp_path / "plain"
    here.mkdir()
    assert not any((d / ".git").exists() for d in [here, *here.parents])
    monkeypatch.chdir(here)
    return here


def test_outside_any_repository_the_error_says_so_and_names_store(nowhere, capsys):
    for argv in (("search", "x"), ("get", "a.py"), ("status",), ("remember", "insight", "x"), ("serve", "--port", "0"),
                 ("cochange", "a.py"), ("history",), ("notes", "list"), ("repair", "--check")):
        rc, out, err = run(capsys, *argv)
        assert rc == 2, (argv, out, err)                 # not found, as before: a user's error
        assert f"the working directory {nowhere} is not inside a git repository" in err, (argv, err)
        assert "--store PATH" in err and "run `stratum index` first" not in err, (argv, err)
        assert err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    rc, _, err = run(capsys, "index", "--no-ray")      # the advice there agrees
    assert rc == 2 and "not inside a git repository" in err, err


def test_outside_any_repository_mcp_comes_up_and_each_call_says_why(nowhere):
    """The MCP connection still comes up (docs/serving.md); each tool call answers with the reason."""
    import anyio
    from mcp import Client as MCPClient
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, cwd=str(nowhere), args=["-m", "stratum.cli", "mcp"],
                                   env={**os.environ, "PYTHONPATH": str(ROOT)})

    async def session():
        async with MCPClient(params, read_timeout_seconds=60) as client:
            return await client.call_tool("search", {"query": "cart"})

    got = anyio.run(session)
    text = got.content[0].text
    assert got.is_error and "not inside a git repository" in text and "--store" in text, text
