"""`stratum index` progress: a tqdm bar with rate and ETA on a terminal, one line per stage start
and end in a log (issue 11.7), nothing under --json."""

from __future__ import annotations

import io

from stratum.cli.index import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(p: Progress) -> None:
    for stage, total in (("parse", 300), ("embed", 1000)):
        for done in range(0, total + 1, 64):
            p(stage, done, total)
        p(stage, total, total)
    p("write", 0, 1)
    p("write", 1, 1)
    p.close()


def test_a_log_gets_one_line_per_stage_start_and_end():
    log = io.StringIO()
    _run(Progress(stream=log))
    lines = log.getvalue().splitlines()
    assert lines[0] == "parse: started (300 items)" and lines[1].startswith("parse: done (300 items in")
    assert [line.split(":")[0] for line in lines] == ["parse", "parse", "embed", "embed", "write", "write"]
    assert "\r" not in log.getvalue() and "/s)" in lines[3]


def test_a_terminal_gets_a_bar_with_rate_and_eta():
    term = Terminal()
    _run(Progress(stream=term))
    out = term.getvalue()
    assert "\r" in out and "parse" in out and "embed" in out
    assert "1000/1000" in out and "it/s" in out and "<" in out      # tqdm's rate and ETA fields


def test_json_mode_is_quiet():
    log = io.StringIO()
    _run(Progress(enabled=False, stream=log))
    assert log.getvalue() == ""
