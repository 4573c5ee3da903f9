"""A store path the OS refuses to read (a regular file, a manifest that is a folder) is a typed
store_error with the reason, on MCP as on the CLI (a probe: `stratum mcp` died at startup with a
NotADirectoryError trace and the handshake failed, and a missing store whose path later became a
file answered only "Error executing tool status", no code, no reason).

The real `stratum mcp --store` over stdio; the folder case is a copy of a store the real pipeline
indexed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT)}


def _mcp(store: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "stratum.cli", "mcp", "--store", str(store)],
                                 cwd=str(ROOT), env=ENV)


def _error(result) -> dict:
    assert result.is_error, result.content
    return result.structured_content["error"]


def _cli_error(store: Path) -> dict:
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "status", "--store", str(store), "--json"],
                       capture_output=True, text=True, cwd=str(ROOT), env=ENV)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    return json.loads(p.stdout)["error"]


def test_a_store_path_the_os_refuses_is_a_store_error_over_mcp_as_on_the_cli(indexed_store, tmp_path):
    a_file = tmp_path / "store_is_a_file"
    a_file.write_text("x\n")
    folder = tmp_path / "manifest_is_a_folder"
    shutil.copytree(indexed_store[1], folder)
    (folder / "manifest.json").unlink()
    (folder / "manifest.json").mkdir()
    expected = {a_file: f"Not a directory ({a_file}/manifest.json)", folder: f"Is a directory ({folder}/manifest.json)"}

    async def status(store: Path) -> dict:
        async with Client(_mcp(store), read_timeout_seconds=120) as client:    # the connection comes up
            return _error(await client.call_tool("status", {}))

    for store, said in expected.items():
        err = anyio.run(status, store)
        assert err == {"code": "store_error", "message": said, "retryable": False}, err
        assert _cli_error(store) == err                 # one wording, the store's


def test_a_missing_store_that_becomes_a_file_answers_why(tmp_path):
    late = tmp_path / "late"

    async def run() -> tuple[dict, dict]:
        async with Client(_mcp(late), read_timeout_seconds=120) as client:
            before = _error(await client.call_tool("status", {}))
            late.write_text("x\n")
            return before, _error(await client.call_tool("status", {}))

    before, after = anyio.run(run)
    assert before["code"] == "not_found" and "no index at" in before["message"], before
    assert after == {"code": "store_error", "message": f"Not a directory ({late}/manifest.json)", "retryable": False}
