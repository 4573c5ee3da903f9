"""An index run's lines on a log say what the run report says: each stage's seconds are the
report's (a parse also collects and reuses, an embed plans first: their lines said 1.2 s and 0.0 s
where the report said 4.4 s and 2.0 s), and ``--symbols`` moves by the commits it reads (it said
"started (8 items)" and nothing else for 14.5 minutes on a long history)."""

from __future__ import annotations

import time

import pytest

from pipeline.job import index_repository
from stratum.config import HistoryConfig, IndexConfig
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow


def _recorded():
    seen: list[tuple[str, int, int, float]] = []
    return seen, lambda stage, done, total: seen.append((stage, done, total, time.perf_counter()))


def test_each_stages_first_and_last_step_span_the_reports_seconds(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    index_repository(r.path, tmp_path / "s", IndexConfig(num_cpus=1, ray=False))
    r.commit("Render the invoice header in bold", {"shop/invoice.py": "def render_invoice(cart):\n    return '**'\n"})
    seen, progress = _recorded()
    rep = index_repository(r.path, tmp_path / "s", IndexConfig(num_cpus=1, ray=False), progress=progress)
    assert rep.incremental and rep.files_parsed == 1
    for stage in ("discover", "parse", "link", "history", "notes", "embed", "write"):
        steps = [(d, t, at) for s, d, t, at in seen if s == stage]
        assert steps[0][0] == 0 and steps[-1][0] == steps[-1][1], (stage, steps)
        spanned = steps[-1][2] - steps[0][2]
        # the same clock, read microseconds apart; a GIL hand-over to the history thread (5 ms each)
        # or a preemption under load can fall between the two readings
        assert abs(spanned - rep.seconds[stage]) < 0.03, (stage, spanned, rep.seconds[stage])


def test_symbols_progress_counts_the_commits_it_reads(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    for i in range(12):
        r.commit(f"Tune pricing step {i}", {"shop/pricing.py": f"def price_of(sku):\n    return {i}\n"})
    seen, progress = _recorded()
    rep = index_repository(r.path, tmp_path / "s", IndexConfig(num_cpus=1, ray=False, history=HistoryConfig(symbols=True)),
                           progress=progress)
    steps = [(d, t) for s, d, t, _ in seen if s == "symbols"]
    mined = rep.history["symbol_commits_mined"]
    assert mined >= 12 and steps[-1] == (mined, mined)      # it counted its batches (4 here), not commits
    assert steps[0] == (0, 1) and {t for _, t in steps[1:]} == {mined}     # a plan first, then the commits
