"""docs/serving.md quotes what a real `stratum mcp` process says to a bad argument (a fleet probe:
it quoted pydantic's "level: Input should be 'summary', 'api' or 'full' (got 'verbose')" after the
server had moved to the tools' own words, "level must be one of [...], got 'verbose'")."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client as MCPClient
from mcp.client.stdio import StdioServerParameters

from tests.clirun import indexed_repo

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
QUOTED = [("get", {"target": "cart.py", "level": "verbose"}), ("search", {"query": "total", "page_size": 500}),
          ("get", {"target": "cart.py", "levle": "api"})]


async def _refusals(store: str) -> list[str]:
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT)},
                                   args=["-m", "stratum.cli", "mcp", "--store", store, "--reload-interval", "0"])
    out = []
    async with MCPClient(params, read_timeout_seconds=120) as client:
        for name, args in QUOTED:
            r = await client.call_tool(name, args)
            assert r.is_error, (name, args)
            err = r.structured_content["error"]
            out.append(f"{err['code']}: {err['message']}")
    return out


def test_the_mcp_refusals_docs_quote_are_what_the_server_says(tmp_path):
    _repo, store = indexed_repo(tmp_path / "shop", {"cart.py": "def cart_total(items):\n    return sum(items)\n"})
    doc = (ROOT / "docs" / "serving.md").read_text()
    for said in anyio.run(_refusals, store):
        assert f"`{said}`" in doc, said
    assert "Input should" not in doc and "Extra inputs are not permitted" not in doc
