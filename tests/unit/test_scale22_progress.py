"""What an index run says as it goes, on a log (a scale probe: 14.5 minutes of ``--symbols`` with
one line; a history mine of 39-75 s shown nowhere; stage lines whose seconds were not the report's)."""

from __future__ import annotations

import io
import time

from pipeline.history import mine
from pipeline.report import RunReport
from pipeline.stagelines import MineWatch, Stage
from stratum.cli.index import Progress
from tests.historyrepo import GitRepo


def test_a_long_stage_says_how_far_it_is_on_a_log_every_tenth_or_minute():
    log = io.StringIO()
    p = Progress(stream=log)
    p("symbols", 0, 1000)
    p("symbols", 50, 1000)                  # too soon after the start: no line
    p.said_at -= 11                         # 11 s on, 5%: not a tenth yet, not a minute
    p("symbols", 60, 1000)
    p.said_at -= 50
    p.started -= 61                         # a minute since the last line: said
    p("symbols", 80, 1000)
    p.said_at -= 11
    p("symbols", 200, 1000)                 # 12% more, 11 s on: said
    p("symbols", 1000, 1000)
    lines = log.getvalue().splitlines()
    assert lines[0] == "symbols: started (1000 items)" and lines[-1].startswith("symbols: done (1000 items in")
    assert lines[1].startswith("symbols: 80 of 1,000 items (8%, 61s, ~") and lines[1].endswith(" left)")
    assert lines[2].startswith("symbols: 200 of 1,000 items (20%") and len(lines) == 4


def test_a_stage_ends_when_its_work_does_with_the_reports_seconds():
    """The engine's last step is not the stage's end: a parse also collects and reuses, an embed plans."""
    log, rep = io.StringIO(), RunReport(repo="r", store="s")
    p = Progress(stream=log)
    with Stage(rep, "parse", p, 3) as steps:
        for done in range(4):
            steps("parse", done, 3)         # the engine's steps, its last one held
        assert log.getvalue().splitlines() == ["parse: started (3 items)"]
        time.sleep(0.3)                     # the stage's own work after the engine's
    with Stage(rep, "link", p):
        time.sleep(0.2)
    lines = log.getvalue().splitlines()
    assert lines[1].startswith(f"parse: done (3 items in {rep.seconds['parse']:.1f}s, ")
    assert rep.seconds["parse"] >= 0.3 and lines[2:] == ["link: started", f"link: done ({rep.seconds['link']:.1f}s)"]


def test_a_long_history_mine_says_how_far_it_is_and_when_it_ends(tmp_path):
    g = GitRepo(tmp_path / "r")
    for i in range(5):
        g.change(f"m{i}.py", message=f"Add m{i}")
    said: list[str] = []
    watch = MineWatch(None, said.append)
    watch.every = 0.0                       # every read is "long" here
    res = mine(g.root, stop=watch)
    watch.mined(res.commits.num_rows, 12.34)
    assert said[0].startswith("history (in the background): ") and " of 5 commits read (" in said[0]
    assert said[-1] == "history (in the background): mined 5 commits in 12.3s"
    quiet: list[str] = []
    short = MineWatch(None, quiet.append)   # a short mine (the default: 10 s) says nothing
    mine(g.root, stop=short)
    short.mined(5, 0.1)
    assert quiet == []
