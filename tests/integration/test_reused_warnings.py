"""What an incremental run publishes is what a ``--full`` run of the same commit publishes: its report's
per-file warnings, and history mined under the settings now in force. Real git repositories, the real
index job, the real tools.

(1) A probe: after a commit touching only another file, the incremental report said ``warnings {}``
while ``broken.py`` still had a syntax error (``--full``: ``syntax_error 1``), and ``get broken.py``
served an outline ending in a cut ``def bad(`` with no word of it.
(2) A changed ``skip_merges`` / ``line_counts`` extended the stored history from the watermark: rows
read under the old settings (no merge diff, line counts) stayed beside the new until ``--full``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
BROKEN = "def good():\n    return 1\n\ndef bad(:\n    return 2\n"


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """(incremental report, --full report, incremental store) after a commit touching only ok.py."""
    base = tmp_path_factory.mktemp("warn")
    r = Repo(base / "repo")
    r.commit("initial", {"broken.py": BROKEN, "ok.py": "def a():\n    return 1\n", "bad.py": b"X = '\xff'\n"})
    first = index_repository(r.path, base / "inc", CFG)
    assert first.warnings == {"syntax_error": 1, "invalid_utf8": 1}
    r.commit("touch ok", {"ok.py": "def a():\n    return 2\n"})
    inc = index_repository(r.path, base / "inc", CFG)
    full = index_repository(r.path, base / "full", replace(CFG, full=True))
    return inc, full, base / "inc"


def test_an_incremental_report_counts_the_warnings_of_reused_files(broken):
    inc, full, _ = broken
    assert inc.incremental and inc.files_parsed == 1 and inc.files_reused == 2
    assert dict(inc.warnings) == dict(full.warnings) == {"syntax_error": 1, "invalid_utf8": 1}
    assert "warnings: invalid_utf8 1, syntax_error 1" in inc.summary()


def test_get_of_a_file_with_syntax_errors_says_from_which_line(broken):
    _, _, store = broken
    tools = Tools.open([str(store)])
    try:
        s = tools.open_session(author="agent").data["session"]
        it = tools.get(s, "broken.py").items[0]
        assert it.text.rstrip().endswith("def bad(")                      # the outline the parse could make
        assert it.warnings == ["this file has syntax errors from line 4: its outline may be incomplete"]
        assert tools.get(s, "broken.py", lines="1-2").items[0].warnings == it.warnings
        bad = tools.get(s, "broken.py::bad").items[0]
        assert bad.warnings == ["this file has syntax errors from line 4, within this function: "
                                "its span may be cut short"]
        assert tools.get(s, "broken.py::good").items[0].warnings == []    # above the error: whole
        assert tools.get(s, "ok.py").items[0].warnings == []
    finally:
        tools.close()


def _merged_repo(path) -> Repo:
    """a.py and b.py edited on a branch merged with --no-ff (its merge has a first-parent diff)."""
    r = Repo(path)
    r.commit("one", {"a.py": "def fa():\n    return 1\n", "b.py": "def fb():\n    return 1\n"})
    git(r.path, "checkout", "-q", "-b", "side")
    r.commit("side edit", {"a.py": "def fa():\n    return 2\n", "b.py": "def fb():\n    return 2\n"})
    git(r.path, "checkout", "-q", "main")
    r.commit("main edit", {"c.py": "def fc():\n    return 1\n"})
    git(r.path, "merge", "-q", "--no-ff", "side", "-m", "merge side")
    return r


def _changes(store) -> list[tuple]:
    rows = Store(store).snapshot().read("file_changes").to_pylist()
    return sorted((x["sha"], x["path"], x["added"], x["deleted"]) for x in rows)


def test_a_changed_history_setting_mines_the_history_again(tmp_path):
    r = _merged_repo(tmp_path / "repo")
    sym = replace(CFG, history=replace(CFG.history, symbols=True))
    index_repository(r.path, tmp_path / "inc", sym)
    r.commit("later", {"d.py": "def fd():\n    return 1\n"})
    new = replace(sym, history=replace(sym.history, skip_merges=False, line_counts=False))
    inc = index_repository(r.path, tmp_path / "inc", new)
    full = index_repository(r.path, tmp_path / "full", replace(new, full=True))
    assert _changes(tmp_path / "inc") == _changes(tmp_path / "full")
    merge = git(r.path, "rev-parse", "HEAD~1").strip()
    assert {p for s, p, *_ in _changes(tmp_path / "inc") if s == merge} == {"a.py", "b.py"}   # its diff read
    assert all(a is None for *_, a, _d in _changes(tmp_path / "inc"))                          # no line counts
    assert any("history re-mined in full: skip_merges True -> False, line_counts True -> False" in m
               for m in inc.messages), inc.messages
    assert inc.history["mined_as"] == {"skip_merges": False, "line_counts": False}
    assert inc.history["symbol_commits_mined"] == 1 and inc.history["symbol_changes_kept"] > 0   # same commits
    assert inc.history["symbol_pairs"] == full.history["symbol_pairs"]
    again = index_repository(r.path, tmp_path / "inc", new)
    assert again.up_to_date


def test_unchanged_history_settings_extend_the_history(tmp_path):
    r = _merged_repo(tmp_path / "repo")
    index_repository(r.path, tmp_path / "inc", CFG)
    r.commit("later", {"d.py": "def fd():\n    return 1\n"})
    inc = index_repository(r.path, tmp_path / "inc", CFG)
    assert inc.history["incremental"] and inc.history["commits"] == 1
    assert not any("re-mined" in m for m in inc.messages), inc.messages
