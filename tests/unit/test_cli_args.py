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


def test_an_empty_page_token_secret_is_filled_in(tmp_path):
    """A review: an empty cli.secret (a process of an older build killed between create and write)
    was kept, so page tokens never worked from one command to the next."""
    from stratum.cli.query import _secret_at

    p = tmp_path / "cli.secret"
    p.write_bytes(b"")
    got = _secret_at(p)
    assert len(got) == 32 and _secret_at(p) == got
