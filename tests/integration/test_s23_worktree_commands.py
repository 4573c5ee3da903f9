"""Every local command inside a linked worktree finds the main checkout's store (its notes, its
history), as queries there do: `history`, `cochange`, `notes list` and `mcp` said "no index at
<worktree>/.stratum" (a probe), advice that would give the worktree a store of its own."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio

from stratum.cli import main
from stratum.config import default_store_path
from tests.gitrepo import Repo, git

ROOT = Path(__file__).resolve().parents[2]


def test_history_cochange_notes_and_mcp_in_a_linked_worktree_read_the_main_store(tmp_path, capfd, monkeypatch):
    r = Repo(tmp_path / "main")
    r.commit("init", {"shop/cart.py": "def add(x):\n    return x\n", "shop/tax.py": "def tax(x):\n    return x\n"})
    r.commit("both", {"shop/cart.py": "def add(x):\n    return x + 1\n", "shop/tax.py": "def tax(x):\n    return 2 * x\n"})
    r.commit("both again", {"shop/cart.py": "def add(x):\n    return x + 2\n", "shop/tax.py": "def tax(x):\n    return 3 * x\n"})
    assert main(["index", str(r.path), "--no-embed", "--no-ray"]) == 0
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    monkeypatch.chdir(wt)
    capfd.readouterr()

    assert main(["remember", "failure", "add() overflowed on huge carts", "--about", "shop/cart.py::add"]) == 0
    capfd.readouterr()
    assert main(["history", "--json"]) == 0
    assert json.loads(capfd.readouterr().out)["summary"]["commits"] == 3
    assert main(["cochange", "shop/cart.py", "--json"]) == 0
    assert "shop/tax.py" in capfd.readouterr().out
    assert main(["notes", "list", "--json"]) == 0
    assert "add() overflowed" in capfd.readouterr().out
    assert not default_store_path(wt).exists()

    from mcp import Client as McpClient
    from mcp.client.stdio import StdioServerParameters

    async def over_mcp() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp"], cwd=str(wt),
                                       env={"PYTHONPATH": str(ROOT)})
        async with McpClient(params, read_timeout_seconds=120) as client:
            res = await client.call_tool("get", {"target": "shop/cart.py::add", "level": "full"})
            assert not res.is_error, res.content
            return json.loads(res.content[0].text)

    answer = anyio.run(over_mcp)       # capfd, not capsys: the stdio client hands the server its stderr
    item = answer["items"][0]
    assert "add() overflowed" in json.dumps(item), item
