"""What `stratum index` and `get` print, as an operator reads it (the operations probe): each
repository's line between "started" and "done", a slow stage's rate not rounded to 0/s, a file name
that is not UTF-8 spelled in `get`'s error as the history spells it, two repositories whose names
print alike told apart, and a --store-root that is not UTF-8 refused once, naming that flag."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from pipeline.job import index_repository
from stratum.cli import main
from stratum.cli.index import Progress
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.errors import NotFound
from stratum.tools import Tools
from tests.gitrepo import Repo
from tests.integration.test_odd_names import _odd_folder as _odd

pytestmark = pytest.mark.slow
FAST = ["--no-ray", "--no-embed"]
CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False)


def _repo(path: Path) -> Repo:
    r = Repo(path)
    r.commit("init", {"m.py": "def f():\n    return 1\n"})
    return r


def test_each_repositorys_line_comes_between_started_and_done(tmp_path, capsys):
    a, b = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    rc = main(["index", str(a.path), str(b.path), "--store-root", str(tmp_path / "stores"), *FAST])
    lines = capsys.readouterr().err.splitlines()
    assert rc == 0
    assert lines[0] == "repositories: started (2 items)"
    assert lines[1].startswith("repositories: 1/2 ok ") and lines[2].startswith("repositories: 2/2 ok ")
    assert lines[3].startswith("repositories: done (2 items in ") and len(lines) == 4     # the last line came after it


def test_a_slow_stages_rate_is_not_rounded_to_zero():
    log = io.StringIO()
    p = Progress(stream=log)
    p("repositories", 0, 3)
    p.started -= 13.9                                     # three repositories took 13.9 s
    p("repositories", 3, 3)
    assert log.getvalue().splitlines()[-1] == "repositories: done (3 items in 13.9s, 0.22/s)"     # it said 0/s


def test_a_file_name_that_is_not_utf8_reads_in_gets_error_as_in_the_history(tmp_path, capsys):
    _odd(tmp_path, b"repo")
    repo = Repo(tmp_path / "repo")
    odd = os.fsdecode(b"app/caf\xe9.py")
    repo.commit("one", {"app/core.py": "def total(x):\n    return x\n", odd: "x = 1\n"})
    repo.commit("two", {"app/core.py": "def total(x):\n    return x + 1\n", odd: "x = 2\n"})
    rep = index_repository(repo.path, tmp_path / "store", CFG)
    assert rep.skipped_samples["undecodable_path"] == ["app/caf\\xe9.py"]    # it read caf\ufffd
    assert main(["cochange", "app/core.py", "--store", str(tmp_path / "store")]) == 0
    assert "app/caf\\xe9.py" in capsys.readouterr().out                # the history's spelling
    t = Tools.open([str(tmp_path / "store")])
    try:
        sid = t.open_session(author="agent").data["session"]
        with pytest.raises(NotFound) as e:
            t.get(sid, odd)
    finally:
        t.close()
    said = e.value.message
    assert said.startswith("'app/caf\\xe9.py' is not in the index") and "?" not in said, said   # it read 'app/caf?.py'
    assert "undecodable path" in said, said


def test_two_repositories_whose_names_printed_alike_print_apart(tmp_path, capsys):
    raw = _repo(_odd(tmp_path, b"shop\xff"))                   # a folder named with the byte 0xFF
    literal = _repo(tmp_path / "shop\\xff")                     # a folder named shop, backslash, x, f, f
    rc = main(["index", str(raw.path), str(literal.path), "--store-root", str(tmp_path / "stores"), *FAST])
    got = capsys.readouterr()
    assert rc == 0
    summary = [line.strip() for line in got.out.splitlines()[1:]]
    assert summary[0].startswith(f"ok {tmp_path}/shop\\xff: ") and summary[1].startswith(f"ok {tmp_path}/shop\\\\xff: ")
    logged = [line for line in got.err.splitlines() if "/2 ok " in line]
    assert logged[0].split(":")[1] != logged[1].split(":")[1], logged       # both read 'ok .../shop\xff'


def test_a_store_root_that_is_not_utf8_is_refused_once_naming_that_flag(tmp_path, capsys):
    a, b = _repo(tmp_path / "a"), _repo(tmp_path / "b")
    root = _odd(tmp_path, b"stores\xfe")
    rc = main(["index", str(a.path), str(b.path), "--store-root", str(root), *FAST])
    err = capsys.readouterr().err
    assert rc == 2 and "is not valid UTF-8" in err and "pass --store-root with a UTF-8 folder" in err, err
    assert "pass --store with" not in err and list(root.iterdir()) == []       # it advised --store, which this run refuses
    odd = _repo(_odd(tmp_path, b"shop\xfe"))        # no --store-root: its default store (inside it) is not UTF-8
    rc = main(["index", str(a.path), str(odd.path), *FAST])
    out = capsys.readouterr().out
    assert rc == 1 and "--store-root with a UTF-8 folder" in out, out


def test_indexing_a_linked_worktree_says_it_leaves_the_main_store(tmp_path, capsys, monkeypatch):
    """A dev probe: `stratum index` in a linked worktree made a store of its own, and the main
    store's notes vanished from the worktree's queries without a word."""
    from tests.gitrepo import git

    r = _repo(tmp_path / "main")
    index_repository(r.path, default_store_path(r.path), CFG)
    git(r.path, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "wt")
    monkeypatch.chdir(tmp_path / "wt")
    assert main(["index", "--no-embed", "--no-ray"]) == 0
    said = capsys.readouterr().err
    assert "is a linked worktree: indexing it into its own store" in said and "main checkout" in said, said
    assert main(["index", "--no-embed", "--no-ray"]) == 0                # its own store now: said once
    assert "linked worktree" not in capsys.readouterr().err
