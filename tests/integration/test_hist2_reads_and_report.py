"""What the history commands and the index job read once, and the index report's history line.

The read counts watch the real ``Snapshot.read`` (each call goes through): `stratum cochange` read the
``current_path`` column twice for one typed path, and an incremental index with symbols read the
previous version's commits twice (the history stage, then ``symbols.stored_base`` for their shas).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest

from pipeline.job import index_repository
from stratum.cli import main
from stratum.config import DEFAULT_BUGFIX_RULE, EmbedConfig, HistoryConfig, IndexConfig
from stratum.store import Snapshot
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False)


@pytest.fixture
def reads(monkeypatch):
    """dataset name -> how many times a snapshot read it, from here on."""
    seen: Counter = Counter()
    real = Snapshot.read

    def read(self, name, *args, **kwargs):
        seen[name] += 1
        return real(self, name, *args, **kwargs)

    monkeypatch.setattr(Snapshot, "read", read)
    return seen


def test_cochange_reads_the_typed_path_once(tmp_path, reads, capsys):
    r = sample_python_repo(tmp_path / "shop")
    index_repository(r.path, tmp_path / "store", CFG)
    capsys.readouterr()
    reads.clear()
    assert main(["cochange", "shop/cart.py", "--store", str(tmp_path / "store"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["path"] == "shop/cart.py" and out["total"] >= 1
    assert reads["file_changes"] == 1


def test_an_incremental_index_with_symbols_reads_the_previous_commits_once(tmp_path, reads):
    cfg = replace(CFG, history=HistoryConfig(symbols=True))
    r = sample_python_repo(tmp_path / "shop")
    index_repository(r.path, tmp_path / "store", cfg)
    r.commit("tax rounding", {"shop/tax.py": "def vat(x):\n    return round(x * 0.2, 2)\n"})
    reads.clear()
    rep = index_repository(r.path, tmp_path / "store", cfg)
    assert rep.history["incremental"] and rep.history["symbol_commits_mined"] == 1
    assert rep.history["symbol_changes_kept"] > 0
    assert reads["commits"] == 1


def test_the_history_line_names_the_bugfix_rule_and_json_keeps_it(tmp_path, capsys):
    r = sample_python_repo(tmp_path / "shop")
    assert main(["index", str(r.path), "--store", str(tmp_path / "store"), "--no-embed", "--no-ray"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  history: "))
    assert "bugfix_rule default (stratum.config.DEFAULT_BUGFIX_RULE)," in line
    assert "(?i)" not in line and len(line) < 1000
    r.commit("tax rounding", {"shop/tax.py": "def vat(x):\n    return round(x * 0.2, 2)\n"})
    assert main(["index", str(r.path), "--store", str(tmp_path / "store"), "--no-embed", "--no-ray", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["history"]["bugfix_rule"] == DEFAULT_BUGFIX_RULE

    rule = r"(?i)\bmend\b"
    rep = index_repository(r.path, tmp_path / "custom", replace(CFG, history=HistoryConfig(bugfix_rule=rule)))
    line = next(ln for ln in rep.summary().splitlines() if ln.startswith("  history: "))
    assert "bugfix_rule custom (HistoryConfig.bugfix_rule; --json shows the regex)," in line and rule not in line
    assert rep.history["bugfix_rule"] == rule
