"""Two CLI mends: `--store` beside `--server` was ignored silently (the server answered from its own
stores), and `notes show` of a mined fix that a backport repeated named one commit of two."""

from __future__ import annotations

import json

import pytest

from stratum.cli import main
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow


def test_store_beside_server_is_refused(tmp_path, capsys):
    rc = main(["search", "anything", "--server", "127.0.0.1:1", "--store", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2 and "--store and --server" in err and "Traceback" not in err


def test_a_backported_fix_shows_both_commits(tmp_path, capsys):
    r = Repo(tmp_path / "repo")
    r.commit("initial", {"p.py": "def parse(x):\n    return x\n", "q.py": "y = 1\n"})
    first = r.commit("Fix crash in parse on empty input", {"p.py": "def parse(x):\n    return x or ''\n"})
    r.commit("unrelated", {"q.py": "y = 2\n"})
    again = r.commit("Fix crash in parse on empty input", {"p.py": "def parse(x):\n    return (x or '')\n"})
    store = tmp_path / "store"
    assert main(["index", str(r.path), "--store", str(store), "--no-embed", "--no-ray"]) == 0
    capsys.readouterr()
    assert main(["search", "crash in parse on empty input", "--kind", "fix", "--store", str(store), "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    fixes = [i for i in items if i["kind"] == "fix"]
    assert len(fixes) == 1, fixes                      # one mined note for the two commits
    assert main(["notes", "show", fixes[0]["id"], "--store", str(store), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {shown["commit"], *shown["also_commits"]} == {first, again}
    # the same author field as get/search give it, and the date said to be the commit's
    assert shown["provenance"]["author"] == "history" and shown["committed_at"] == shown["date"]
    assert main(["notes", "show", fixes[0]["id"], "--store", str(store)]) == 0
    assert ", committed 20" in capsys.readouterr().out
