"""stratum.analysis keeps its promise of a clear error naming what works for odd arguments (a probe:
n=1.5 was "must be at least 0", a date or an ISO string for ``since`` a bare AttributeError, a
``Path`` Polars' TypeError, "./a.py" and an unknown name an empty frame where `stratum cochange`
said why, and an old renamed name was "not a current file" with no word of its new one).
A real git repository, the real index job, the real tools and CLI."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from stratum import analysis as A
from stratum.errors import InvalidArgument, NotFound

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """lib/core.py and lib/api.py change together three times; old/util.py is renamed to
    lib/util.py (with a change, in commit 4); dates 2024-01-01 .. 2024-01-05."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo, git

    base = tmp_path_factory.mktemp("args")
    r = Repo(base / "repo")
    r.commit("start", {"lib/core.py": "A = 1\n", "lib/api.py": "B = 1\n", "old/util.py": "U = 1\n" * 5})
    r.commit("grow", {"lib/core.py": "A = 2\n", "lib/api.py": "B = 2\n"})
    r.commit("grow again", {"lib/core.py": "A = 3\n", "lib/api.py": "B = 3\n"})
    r.mv("old/util.py", "lib/util.py")
    moved = r.commit("move util", {"lib/util.py": "U = 1\n" * 5 + "V = 2\n"})
    r.commit("core once more", {"lib/core.py": "A = 4\n", "lib/api.py": "B = 4\n"})
    assert git(r.path, "log", "-1", "--format=%H", "--", "lib/util.py").strip() == moved
    index_repository(r.path, base / "store", IndexConfig(num_cpus=1, ray=False))
    return r.path, base / "store", moved


def test_n_of_another_type_is_said_to_be_one(indexed):
    _, store, _ = indexed
    for call, got in ((lambda: A.top_pairs(store, n=1.5), "got 1.5 (float)"),
                      (lambda: A.hotspots(store, n="3"), "got '3' (str)"),
                      (lambda: A.coupled_with(store, "lib/core.py", n=True), "got True (bool)")):
        with pytest.raises(InvalidArgument, match="n .* must be a whole number") as ei:
            call()
        assert got in str(ei.value) and "at least" not in str(ei.value)
    with pytest.raises(InvalidArgument, match=r"n .* must be at least 0, got -1"):    # the range keeps its words
        A.top_pairs(store, n=-1)


def test_another_caller_of_the_range_check_reads_right(indexed):
    from stratum.tools import Tools

    _, store, _ = indexed
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="agent").data["session"]
        with pytest.raises(InvalidArgument, match=r"^page_size must be a whole number, got 1.5 \(float\)$"):
            t.tree(s, "", page_size=1.5)
        with pytest.raises(InvalidArgument, match=r"^page_size must be between 1 and \d+, got 0$"):
            t.tree(s, "", page_size=0)
    finally:
        t.close()


def test_since_takes_a_date_and_an_iso_string(indexed):
    _, store, _ = indexed
    exact = A.hotspots(store, n=0, since=dt.datetime(2024, 1, 3, tzinfo=dt.timezone.utc)).collect()
    assert set(exact["path"]) == {"lib/core.py", "lib/api.py", "lib/util.py"}
    assert exact.filter(exact["path"] == "lib/core.py")["commits"][0] == 2      # 01-03 and 01-05
    for since in (dt.date(2024, 1, 3), "2024-01-03", "2024-01-03T00:00:00Z", "2024-01-03T02:00:00+02:00"):
        assert A.hotspots(store, n=0, since=since).collect().equals(exact), since
    for bad in ("banana", "03/01/2024", 20240103, 1.5):
        with pytest.raises(InvalidArgument, match="since must be a datetime .* a date .* ISO 8601"):
            A.hotspots(store, since=bad)


def test_a_path_is_read_as_the_cli_reads_it(indexed, monkeypatch):
    repo, store, _ = indexed
    plain = A.coupled_with(store, "lib/core.py").collect()
    assert plain["partner"].to_list() == ["lib/api.py"] and plain["support"][0] == 4
    monkeypatch.chdir(repo / "lib")         # a path on disk, from a subfolder of the checkout
    for typed in (Path("lib/core.py"), "./lib/core.py", str(repo / "lib/core.py"), "core.py", Path("core.py"),
                  os.path.join("..", "lib", "core.py")):
        assert A.coupled_with(store, typed).collect().equals(plain), typed
    assert A.coupling_over_time(store, Path("./core.py")).collect().equals(
        A.coupling_over_time(store, "lib/core.py").collect())
    with pytest.raises(InvalidArgument, match=r"path must be a repository path \(str or os.PathLike\)"):
        A.coupled_with(store, b"lib/core.py")       # type: ignore[arg-type]


def test_an_unknown_path_is_the_clis_error(indexed, capsys, monkeypatch):
    from stratum.cli import main

    repo, store, _ = indexed
    monkeypatch.chdir(repo.parent)
    for call in (lambda: A.coupled_with(store, "nope.py"), lambda: A.coupling_over_time(store, "nope.py")):
        with pytest.raises(NotFound, match=r"^nope.py has no history in the index \(not a current file"):
            call()
    with pytest.raises(NotFound, match=r"did you mean lib/core.py\?"):
        A.coupling_over_time(store, "core.py")
    assert main(["cochange", "core.py", "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "core.py has no history in the index" in err and "did you mean lib/core.py?" in err


def test_an_old_name_says_what_it_was_renamed_to(indexed, capsys, monkeypatch):
    from stratum.cli import main

    repo, store, moved = indexed
    monkeypatch.chdir(repo.parent)
    said = f"renamed to lib/util.py in {moved[:12]}"
    with pytest.raises(NotFound, match="old/util.py has no history in the index") as ei:
        A.coupled_with(store, "old/util.py")
    assert said in str(ei.value)
    assert main(["cochange", "old/util.py", "--store", str(store)]) == 2
    assert said in capsys.readouterr().err
