"""The CLI in a linked git worktree (`git worktree add`) with no store of its own. `--branch HEAD`
(@, HEAD~1, @{-1}) there meant the main checkout's HEAD (the main store's repository read the name);
it is the worktree's: its branch, or the commit when it names none. A `--server` query there opened
a default-branch session (main's code, where a local run answers for the worktree's branch); it asks
for the worktree's branch (its commit when detached) and says once that the worktree's uncommitted
edits are not in the answer. The real CLI (``stratum.cli.main``, `stratum mcp` as a process), real
repositories and worktrees, the real index job and a real `stratum serve` on a loopback port."""

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

ROOT = Path(__file__).resolve().parents[2]
PRICING = ('"""Pricing."""\n\n\ndef discount(total, rate):\n    """Discount."""\n'
           '    return round(total * (1 - rate), 2)\n\n\n'
           'def shipping(weight):\n    """Shipping."""\n    return 5.0 + weight\n')
TARGET = "shop/pricing.py::shipping"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _json(capsys, *argv: str) -> dict:
    rc, out, err = _run(capsys, *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


def _shipping(capsys, *flags: str) -> tuple[str, list[str]]:
    """(shipping's source as the answer has it, the answer's warnings)."""
    got = _json(capsys, "get", TARGET, "--level", "full", *flags)
    return got["items"][0]["text"], got["envelope"]["warnings"]


@pytest.fixture
def shop(tmp_path, monkeypatch):
    """main (indexed: shipping is 5.0 + weight) and its worktree wt on branch fw, whose commit makes
    it 6.0 (the working directory): (the main repository, wt, main's commit)."""
    r = Repo(tmp_path / "main")
    base = r.commit("init", {"shop/pricing.py": PRICING})
    assert main(["index", str(r.path), "--no-embed", "--no-ray"]) == 0
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "6.0 + weight"))
    git(wt, "commit", "-qam", "fw: shipping")
    monkeypatch.chdir(wt)
    return r, wt, base


def test_branch_head_in_a_linked_worktree_is_the_worktrees_branch_or_commit(shop, capsys):
    r, wt, base = shop
    for name in ("HEAD", "@"):
        text, warnings = _shipping(capsys, "--branch", name)
        assert "6.0 + weight" in text, (name, text)          # fw's, not the main checkout's HEAD (main)
        assert f"--branch {name} read in this worktree ({wt}): branch fw" in warnings, warnings
        assert any("answers reflect 'fw'" in w for w in warnings), warnings
    git(wt, "commit", "-qam", "fw: free shipping", "--allow-empty")
    (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "7.0 + weight"))
    git(wt, "commit", "-qam", "fw: dearer")
    assert "7.0 + weight" in _shipping(capsys, "--branch", "HEAD")[0]   # a branch session: follows fw

    text, warnings = _shipping(capsys, "--branch", "HEAD~2")        # names no branch: that commit
    assert "6.0 + weight" in text, text
    sha = git(wt, "rev-parse", "HEAD~2").strip()
    assert any(w.startswith(f"--branch HEAD~2 read in this worktree ({wt}): commit {sha[:12]}") for w in warnings)

    text, warnings = _shipping(capsys, "--branch", "main")          # a real branch keeps its meaning
    assert "5.0 + weight" in text and not any("read in this worktree" in w for w in warnings), warnings

    git(wt, "switch", "-q", "-c", "other", "HEAD~2")
    git(wt, "switch", "-q", "fw")
    text, warnings = _shipping(capsys, "--branch", "@{-1}")         # the branch checked out before
    assert "6.0 + weight" in text and f"--branch @{{-1}} read in this worktree ({wt}): branch other" in warnings

    git(wt, "switch", "-q", "--detach", "HEAD~1")
    text, warnings = _shipping(capsys, "--branch", "HEAD")
    head = git(wt, "rev-parse", "HEAD").strip()
    assert "6.0 + weight" in text, text
    assert f"--branch HEAD read in this worktree ({wt}): commit {head[:12]} (it names no branch there, so the " \
           "answer stays on that commit)" in warnings, warnings
    assert head != base and not default_store_path(wt).exists()


@pytest.mark.slow
def test_a_server_query_in_a_linked_worktree_answers_for_its_branch_and_says_its_edits_are_not_in_it(shop, capsys):
    r, wt, base = shop
    (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "7.0 + weight"))     # uncommitted
    with stratum_serve(default_store_path(r.path)) as (_, addr):
        text, warnings = _shipping(capsys, "--server", addr)
        assert "6.0 + weight" in text, text             # fw as committed: not main's 5.0, not the disk's 7.0
        assert any("answers reflect 'fw'" in w for w in warnings), warnings
        edits = [w for w in warnings if "uncommitted edits" in w]
        assert edits == ["this worktree's uncommitted edits (1 file: shop/pricing.py) are not in this answer: the "
                         "server reads the repository, not this checkout, so it answered for its branch fw as "
                         "committed; --worktree . asks a server on this machine to read them, or query without "
                         "--server"], warnings
        rc, out, err = _run(capsys, "get", TARGET, "--server", addr)       # said once in the text too
        assert rc == 0 and out.count("uncommitted edits") == 1, (out, err)
        assert "7.0 + weight" in _shipping(capsys, "--server", addr, "--worktree", ".")[0]   # what it advises

        text, warnings = _shipping(capsys, "--server", addr, "--branch", "HEAD")
        assert "6.0 + weight" in text and f"--branch HEAD read in this worktree ({wt}): branch fw" in warnings
        text, _ = _shipping(capsys, "--server", addr, "--commit", "HEAD~1")
        assert "5.0 + weight" in text, text             # HEAD~1 of this worktree: main's commit
        assert "5.0 + weight" in _shipping(capsys, "--server", addr, "--branch", "main")[0]

        (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "6.0 + weight"))    # clean again
        git(wt, "switch", "-q", "--detach")
        got = _json(capsys, "get", TARGET, "--level", "full", "--server", addr)
        assert "6.0 + weight" in got["items"][0]["text"], got
        assert got["envelope"]["commit"] == git(wt, "rev-parse", "HEAD").strip(), got["envelope"]
        assert not any("uncommitted" in w for w in got["envelope"]["warnings"]), got["envelope"]


@pytest.mark.slow
def test_a_server_without_the_worktrees_branch_answers_for_its_default_and_says_so(shop, tmp_path, capsys,
                                                                                 monkeypatch):
    """A worktree of another repository (or of a clone the branch was never pushed to): the branch
    this command chose itself is not the server's, so the answer is the server's default branch, as
    before, and says why; a branch named with --branch still fails as named."""
    r, _, _ = shop
    other = Repo(tmp_path / "other")
    other.commit("init", {"README.md": "other\n"})
    owt = tmp_path / "owt"
    git(other.path, "worktree", "add", "-q", "-b", "ow", str(owt))
    monkeypatch.chdir(owt)
    with stratum_serve(default_store_path(r.path)) as (_, addr):
        text, warnings = _shipping(capsys, "--server", addr)
        assert "5.0 + weight" in text, text
        said = [w for w in warnings if w.startswith("the server cannot answer for this worktree's branch ow (")]
        assert len(said) == 1 and said[0].endswith("): the answer is for its default branch"), warnings
        rc, _, err = _run(capsys, "get", TARGET, "--server", addr, "--branch", "ow")
        assert rc == 2 and "'ow'" in err, err


@pytest.mark.slow
def test_mcp_in_a_linked_worktree_reads_branch_head_there(shop, tmp_path):
    _, wt, _ = shop
    log = tmp_path / "mcp.stderr"

    async def over_mcp() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp", "--branch", "HEAD"],
                                       cwd=str(wt), env={"PYTHONPATH": str(ROOT)})
        with log.open("w") as errlog:
            async with McpClient(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
                res = await client.call_tool("get", {"target": TARGET, "level": "full"})
                assert not res.is_error, res.content
                return json.loads(res.content[0].text)

    answer = anyio.run(over_mcp)
    assert "6.0 + weight" in answer["items"][0]["text"], answer          # fw's: not the main checkout's HEAD
    assert f"stratum: --branch HEAD read in this worktree ({wt}): branch fw" in log.read_text()
