"""`stratum mcp --server` in a linked git worktree with no view named opened a default-branch session
(main's code), where the CLI's `--server` query from the same worktree answers for the worktree's
branch: MCP asks for it too, and when the server cannot give it (a worktree of another repository)
its session is the server's default branch, said in MCP's log, as the CLI's query falls back. Real
repositories and worktrees, the real index job, a real `stratum serve` on a loopback port and
`stratum mcp` as a process, over the MCP SDK's stdio client."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client as McpClient                     # at collection: its stdio client keeps the real stderr
from mcp.client.stdio import StdioServerParameters, stdio_client

from stratum.cli import main
from stratum.config import default_store_path
from tests.gitrepo import Repo, git
from tests.servecli import stratum_serve

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
PRICING = ('"""Pricing."""\n\n\ndef discount(total, rate):\n    """Discount."""\n'
           '    return round(total * (1 - rate), 2)\n\n\n'
           'def shipping(weight):\n    """Shipping."""\n    return 5.0 + weight\n')
TARGET = "shop/pricing.py::shipping"


def _over_mcp(cwd: Path, addr: str, log: Path) -> dict:
    """`stratum mcp --server ADDR` run in CWD: its answer to get(TARGET, full); its stderr in LOG."""
    async def ask() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp", "--server", addr],
                                       cwd=str(cwd), env={"PYTHONPATH": str(ROOT)})
        with log.open("w") as errlog:
            async with McpClient(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
                res = await client.call_tool("get", {"target": TARGET, "level": "full"})
                assert not res.is_error, res.content
                return json.loads(res.content[0].text)

    return anyio.run(ask)


def test_mcp_with_a_server_in_a_linked_worktree_answers_for_its_branch_or_says_why_not(tmp_path):
    r = Repo(tmp_path / "main")
    r.commit("init", {"shop/pricing.py": PRICING})
    assert main(["index", str(r.path), "--no-embed", "--no-ray"]) == 0
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "6.0 + weight"))
    git(wt, "commit", "-qam", "fw: shipping")
    other = Repo(tmp_path / "other")                 # a worktree of another repository: no branch fw there
    other.commit("init", {"README.md": "other\n"})
    owt = tmp_path / "owt"
    git(other.path, "worktree", "add", "-q", "-b", "ow", str(owt))
    log = tmp_path / "mcp.stderr"
    with stratum_serve(default_store_path(r.path)) as (_, addr):
        answer = _over_mcp(wt, addr, log)
        assert "6.0 + weight" in answer["items"][0]["text"], answer          # fw's, as `get --server` here
        assert answer["envelope"]["commit"] == git(wt, "rev-parse", "HEAD").strip(), answer["envelope"]

        answer = _over_mcp(owt, addr, log)
        assert "5.0 + weight" in answer["items"][0]["text"], answer          # the server's default branch
        said = log.read_text()
        assert "the server cannot answer for this worktree's branch ow (" in said, said
        assert "): the answers are for its default branch" in said, said
