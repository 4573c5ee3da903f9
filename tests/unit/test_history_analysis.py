"""stratum.analysis and the `stratum cochange` / `stratum history` commands over a real Lance store."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

import polars as pl
import pyarrow as pa
import pytest

from pipeline.cochange import compute
from pipeline.history import mine
from stratum import analysis as A
from stratum.cli import main
from stratum.config import HistoryConfig
from stratum.errors import NotFound
from stratum.store import Manifest, Store
from tests.historyrepo import GitRepo


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A history store: a.py (4 revisions) changes with b.py (4, one a bare rename) 3 times, with
    c.py (2) twice; d.py alone."""
    base = tmp_path_factory.mktemp("an")
    g = GitRepo(base / "repo")
    g.write("a.py", "1\n2\n3\n")
    g.write("b0.py", "b\n" * 10)
    g.commit("start", day=1)                                    # a, b0            (2024)
    g.change("a.py", "b0.py", "c.py", day=2)                    # a, b0, c
    g.mv("b0.py", "b.py")
    g.commit("rename b", day=3)
    g.change("a.py", "c.py", day=400)                           # a, c             (2025)
    g.change("a.py", "b.py", message="Fix crash in a", day=401)  # a, b
    g.change("d.py", day=402)
    res = mine(g.root, HistoryConfig())
    cc = compute(res.file_changes, res.commits, HistoryConfig(), head_paths=res.head_paths)
    st = Store(base / "store")
    versions = {name: st.write_dataset(name, t) for name, t in
                (("commits", res.commits), ("file_changes", res.file_changes), ("cochange", cc))}
    st.publish(Manifest(version=1, published_at=time.time(), repo_name="repo", repo_path=str(g.root),
                        indexed_commit=res.head, history_watermark=res.head, datasets=versions))
    return g, st


def test_lazyframes_and_top_pairs(store):
    g, st = store
    assert isinstance(A.commits(st.root), pl.LazyFrame)
    assert A.commits(st.root).collect().height == 6
    top = A.top_pairs(st.root, n=5).collect()
    assert top.select("a", "b", "support").rows() == [("a.py", "b.py", 3), ("a.py", "c.py", 2)]
    assert top["confidence"][0] == pytest.approx(3 / 4)             # the rename commit touched b alone
    by_lift = A.top_pairs(st.snapshot(), by="lift").collect()
    assert by_lift.height == 2


def test_coupled_with_both_directions(store):
    g, st = store
    a = A.coupled_with(st, "a.py").collect()
    assert a.select("partner", "support", "revs", "partner_revs").rows() == [("b.py", 3, 4, 4), ("c.py", 2, 4, 2)]
    assert a["confidence"].to_list() == pytest.approx([3 / 4, 2 / 4])
    b = A.coupled_with(st, "b.py").collect()
    assert b.select("partner", "confidence", "reverse_confidence").rows() == [("a.py", 0.75, 0.75)]
    assert A.coupled_with(st, "d.py").collect().height == 0


def test_hotspots_follow_renames(store):
    g, st = store
    hot = A.hotspots(st, n=None).collect()
    assert set(hot["path"]) == {"a.py", "b.py", "c.py", "d.py"}
    b = hot.filter(pl.col("path") == "b.py").to_dicts()[0]
    assert b["commits"] == 4 and b["added"] == 10 + 1 + 0 + 1       # b0.py's history counts for b.py
    assert hot["path"][0] == "b.py"
    since = A.hotspots(st, since=datetime(2025, 1, 1, tzinfo=timezone.utc)).collect()
    assert set(since["path"]) == {"a.py", "b.py", "c.py", "d.py"}
    assert since.filter(pl.col("path") == "a.py")["commits"][0] == 2
    # a naive time is UTC (it raised Polars' SchemaError against the UTC column)
    assert A.hotspots(st, since=datetime(2025, 1, 1)).collect().equals(since)
    assert hot.schema["churn"] == pl.Int64 and hot.schema["added"] == pl.Int64


def test_churn_past_two_billion_lines_does_not_wrap(tmp_path):
    """Line counts are stored as Int32; their sums are Int64 (4e9 lines wrapped to -294967296)."""
    g = GitRepo(tmp_path / "repo")
    g.write("a.py", "1\n")
    g.commit("start", day=1)
    res = mine(g.root, HistoryConfig())
    fc = res.file_changes
    i = fc.schema.get_field_index("added")
    big = pa.array([2_000_000_000] * fc.num_rows, fc.schema.field("added").type)
    fc = fc.set_column(i, fc.schema.field("added"), big)
    fc = pa.concat_tables([fc, fc])
    st = Store(tmp_path / "store")
    versions = {"commits": st.write_dataset("commits", res.commits), "file_changes": st.write_dataset("file_changes", fc)}
    st.publish(Manifest(version=1, published_at=time.time(), repo_name="repo", repo_path=str(g.root),
                        indexed_commit=res.head, history_watermark=res.head, datasets=versions,
                        settings={"max_commit_files": 1}))
    assert A.hotspots(st, n=1).collect()["churn"][0] == 2 * 2_000_000_000 + 2 * fc["deleted"][0].as_py()
    s = A.summary(st)
    assert s["churn"] >= 4_000_000_000
    # the store's own bulk-commit bound (index --max-commit-files), not a fixed 30
    assert s["max_commit_files"] == 1 and s["commits_over_max_files"] == 0


def test_coupling_over_time(store):
    g, st = store
    t = A.coupling_over_time(st, "a.py", every="1y").collect()
    rows = {(r["period"].year, r["partner"]): r for r in t.to_dicts()}
    assert rows[(2024, "b.py")]["support"] == 2 and rows[(2024, "b.py")]["revs"] == 2
    assert rows[(2025, "c.py")]["confidence"] == pytest.approx(0.5)
    assert (2025, "d.py") not in rows


def test_summary(store):
    g, st = store
    s = A.summary(st)
    assert s["commits"] == 6 and s["merges"] == 0 and s["bugfix_commits"] == 1 and s["authors"] == 1
    assert s["renames"] == 1 and s["cochange_pairs"] == 2 and s["max_support"] == 3
    assert s["first_commit"].startswith("2024-01-02") and s["files_touched_still_present"] == 4
    json.dumps(s)


def test_cli_cochange(store, capsys, tmp_path):
    g, st = store
    out = tmp_path / "a.parquet"
    assert main(["cochange", "a.py", "--store", str(st.root), "--top", "1", "--parquet", str(out)]) == 0
    text = capsys.readouterr().out
    assert "a.py: 2 co-changing files" in text and "b.py" in text and "1 more" in text
    assert pl.read_parquet(out).height == 2
    assert main(["cochange", str(g.root / "b.py"), "--store", str(st.root), "--json"]) == 0   # a disk path
    obj = json.loads(capsys.readouterr().out)
    assert obj["path"] == "b.py" and obj["partners"][0]["partner"] == "a.py" and obj["total"] == 1
    # times in ISO 8601, as Polars and datetime.fromisoformat read them (a space stood for the T)
    first = obj["partners"][0]["first_time"]
    assert "T" in first and datetime.fromisoformat(first).tzinfo is not None


def test_cli_cochange_unknown_path(store, capsys):
    g, st = store
    assert main(["cochange", "nope.py", "--store", str(st.root)]) == 2
    assert "nope.py has no history in the index" in capsys.readouterr().err
    with pytest.raises(NotFound):
        A.summary(A.snapshot(_empty_store(st)))
    assert main(["history", "--store", str(st.root.parent / "none")]) == 2
    assert "no index at" in capsys.readouterr().err


def _empty_store(st):
    empty = Store(st.root.parent / "empty")
    if not empty.exists():
        empty.publish(Manifest(version=1, published_at=time.time(), repo_name="x", repo_path="/x",
                               indexed_commit=None, history_watermark=None, datasets={}))
    return empty


def test_cli_history_and_export(store, capsys, tmp_path):
    g, st = store
    assert main(["history", "--store", str(st.root), "--parquet", str(tmp_path / "exp")]) == 0
    text = capsys.readouterr().out
    assert "commits 6 (0 merges, 1 bug-fix" in text and "a.py <-> b.py  support 3" in text
    assert pl.read_parquet(tmp_path / "exp" / "file_changes.parquet").height == 11
    assert main(["history", "--store", str(st.root), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["summary"]["commits"] == 6 and obj["hotspots"][0]["path"] == "b.py"


def test_cli_history_probe_mends(store, capsys, tmp_path):
    """A probe: an export left an earlier export's symbol_cochange.parquet (no longer true), a
    negative --top was a traceback or dropped a row, a path through a symlinked checkout had "no
    history", and a number below its sense (--max-file-bytes -5) was taken and kept."""
    g, st = store
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "symbol_cochange.parquet").write_bytes(b"an earlier export")
    assert main(["history", "--store", str(st.root), "--parquet", str(exp), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["parquet_removed"] == [str(exp / "symbol_cochange.parquet")]
    assert not (exp / "symbol_cochange.parquet").exists()
    for argv in (["history", "--top", "-1"], ["cochange", "a.py", "--top", "-1"]):
        with pytest.raises(SystemExit) as ei:
            main([*argv, "--store", str(st.root)])
        assert ei.value.code == 2 and "--top must be" in capsys.readouterr().err
    link = tmp_path / "link"
    link.symlink_to(g.root)
    assert main(["cochange", str(link / "b.py"), "--store", str(st.root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == "b.py"
    with pytest.raises(SystemExit):
        main(["index", str(g.root), "--store", str(tmp_path / "s"), "--max-file-bytes", "-5"])
    assert "--max-file-bytes must be 1 or more" in capsys.readouterr().err


def test_a_name_that_is_not_utf8_is_read_as_the_datasets_spell_it():
    """`stratum cochange "$(printf 'src/caf\\xe9.py')"` had "no history": Python hands the byte over as
    a surrogate, the datasets spell it \\xe9 (a probe)."""
    from stratum.analysis import _repo_relative

    assert _repo_relative("src/caf\udce9.py", None) == "src/caf\\xe9.py"
    assert _repo_relative("/r/src/caf\udce9.py", "/r") == "src/caf\\xe9.py"


def test_a_name_that_is_not_utf8_typed_from_a_subfolder_is_found(tmp_path, monkeypatch):
    """A review: spelled \\xNN before it was looked up on disk, a relative name from a subfolder
    was never made repository-relative."""
    from stratum.analysis import _repo_relative

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub").joinpath(b"caf\xe9.py".decode("utf-8", "surrogateescape")).write_text("x = 1\n")
    monkeypatch.chdir(tmp_path / "sub")
    assert _repo_relative("caf\udce9.py", str(tmp_path)) == "sub/caf\\xe9.py"


def test_odd_arguments_are_clear_errors(store):
    """A fleet probe: every="0y" made a period per commit, silently; "banana", by="nope", n=-1 and
    an unknown dataset raised Polars' own errors (a query plan, a slice's ValueError, a KeyError)."""
    from stratum.errors import InvalidArgument

    store = store[1].root
    for call, said in ((lambda: A.coupling_over_time(store, "src/a.py", every="0y"), "every"),
                       (lambda: A.coupling_over_time(store, "src/a.py", every="banana"), "every"),
                       (lambda: A.top_pairs(store, by="nope"), "support, lift"),
                       (lambda: A.hotspots(store, n=-1), "n .* must be at least 0"),
                       (lambda: A.coupled_with(store, "src/a.py", n=-2), "n .* must be at least 0"),
                       (lambda: A.dataset(store, "bogus"), "commits")):
        with pytest.raises(InvalidArgument, match=said):
            call()
    assert A.coupling_over_time(store, "a.py", every="6mo").collect().height >= 1     # valid ones still answer
    assert A.top_pairs(store, by="lift", n=0).collect().height == 2                     # n=0: every pair
