"""Numbers on the command line are checked where they are parsed: a budget of 0 started an MCP
server whose every call then failed (a probe)."""

from __future__ import annotations

import pytest

from stratum.cli import main


@pytest.mark.parametrize("argv", [["mcp", "--budget", "0"], ["search", "x", "--budget", "-5"],
                                  ["serve", "--budget", "0"]])
def test_a_budget_below_one_is_refused_before_anything_starts(argv, capsys):
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2 and "--budget must be 1 or more" in capsys.readouterr().err
