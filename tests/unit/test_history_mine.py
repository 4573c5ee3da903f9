"""pipeline.history.mine over real repositories built by the test."""

from __future__ import annotations

import subprocess

import pyarrow as pa
import pytest

from pipeline.history import combine, commit_order, mine
from stratum import schema as S
from stratum.config import HistoryConfig
from stratum.errors import NotARepository
from tests.historyrepo import GitRepo


def rows(result, sha=None):
    fc = result.file_changes.to_pylist()
    return [r for r in fc if sha is None or r["sha"] == sha]


def commit(result, sha):
    return next(c for c in result.commits.to_pylist() if c["sha"] == sha)


def test_linear_history_with_rename_types_and_line_counts(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.write("a.py", "one\ntwo\nthree\n")
    g.write("b.py", "b\n")
    c1 = g.commit("initial")
    g.mv("a.py", "pkg/a.py")
    g.write("b.py", "b\nmore\n")
    c2 = g.commit("move a into pkg")
    g.write("pkg/a.py", "one\nTWO\nthree\nfour\n")
    g.rm("b.py")
    c3 = g.commit("edit a, drop b")

    r = mine(g.root)
    assert r.commits.schema == S.COMMITS and r.file_changes.schema == S.FILE_CHANGES
    assert r.head == c3 and not r.shallow and not r.rewritten and not r.incremental
    assert [c["sha"] for c in r.commits.to_pylist()] == [c3, c2, c1]
    got = {(x["sha"], x["path"]): x for x in rows(r)}
    assert got[(c1, "a.py")]["change_type"] == "A" and got[(c1, "a.py")]["added"] == 3
    assert got[(c1, "a.py")]["current_path"] == "pkg/a.py"          # followed through the rename
    assert got[(c2, "pkg/a.py")]["change_type"] == "R" and got[(c2, "pkg/a.py")]["old_path"] == "a.py"
    assert got[(c2, "b.py")]["added"] == 1 and got[(c2, "b.py")]["deleted"] == 0
    assert got[(c3, "pkg/a.py")]["added"] == 2 and got[(c3, "pkg/a.py")]["deleted"] == 1
    assert got[(c3, "b.py")]["change_type"] == "D"
    assert got[(c1, "b.py")]["current_path"] is None                # gone at HEAD
    assert commit(r, c1)["n_files"] == 2 and commit(r, c1)["parents"] == []
    assert commit(r, c2)["parents"] == [c1]
    assert r.counters["renames"] == 1 and r.counters["commits"] == 3 and r.counters["file_changes"] == 6
    assert sorted(r.head_paths) == ["pkg/a.py"]
    assert commit(r, c3)["committed_at"].isoformat() == "2024-01-04T12:00:00+00:00"
    assert commit(r, c3)["author_email"] == "ada@example.com"


def test_path_reused_after_rename_keeps_the_two_files_apart(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.write("a.py", "original a\n" * 5)
    c1 = g.commit("a")
    g.mv("a.py", "b.py")
    c2 = g.commit("rename a to b")
    g.write("a.py", "a brand new file with other text\n")
    c3 = g.commit("new a")
    r = mine(g.root)
    cur = {(x["sha"], x["path"]): x["current_path"] for x in rows(r)}
    assert cur[(c1, "a.py")] == "b.py"
    assert cur[(c2, "b.py")] == "b.py"
    assert cur[(c3, "a.py")] == "a.py"


@pytest.mark.parametrize("with_head", [True, False])
def test_a_deleted_and_restored_file_keeps_its_history_and_cochange(tmp_path, with_head):
    from pipeline.cochange import compute
    from pipeline.history import current_paths

    g = GitRepo(tmp_path / "r")
    g.write("x.py", "x\n" * 5)
    g.change("a.py", "b.py", message="initial")
    fix = g.change("a.py", "b.py", message="Fix crash when a is empty")
    g.change("a.py", "b.py", message="edit a and b")
    g.mv("x.py", "moved.py")
    g.commit("move x")
    kept = (g.root / "a.py").read_text()
    g.rm("a.py")
    gone = g.commit("drop a")
    g.write("a.py", kept)
    back = g.commit("restore a")
    g.write("x.py", "a new file under the old name\n")              # renamed away, then reused: not restored
    g.change("a.py", "b.py", "x.py", message="after the restore")
    r = mine(g.root)
    cur = current_paths(r.file_changes, r.commits, r.head_paths if with_head else None)
    got = {(x["sha"], x["path"]): c for x, c in zip(rows(r), cur)}
    assert got[(fix, "a.py")] == got[(gone, "a.py")] == got[(back, "a.py")] == "a.py"
    assert {c for x, c in zip(rows(r), cur) if x["path"] == "a.py"} == {"a.py"}
    first_x = [c for x, c in zip(rows(r), cur) if x["path"] == "x.py"]
    assert first_x == ["x.py", "moved.py"]                              # newest first: the new x.py, the old one
    if with_head:
        assert [x["current_path"] for x in rows(r)] == cur                  # what mine() stored
    pair = {(p["a"], p["b"]): p for p in compute(r.file_changes, r.commits, head_paths=r.head_paths).to_pylist()}
    assert pair[("a.py", "b.py")]["support"] == 4 and pair[("a.py", "b.py")]["revs_a"] == 6


def test_a_branch_edit_before_a_rename_away_and_a_new_file_at_the_name(tmp_path):
    """An add starts a tentative earlier life: a rename of that path met later re-points it."""
    g = GitRepo(tmp_path / "r")
    g.change("a.py", message="one")
    g.checkout("-b", "side")
    g.checkout("main")
    g.mv("a.py", "src/a.py")
    g.commit("move", day=3)
    g.checkout("side")
    side = g.change("a.py", message="side edit", day=4)
    g.checkout("main")
    g.merge("side", day=5)
    new = g.change("a.py", message="a new a.py", day=6)
    r = mine(g.root)
    got = {(x["sha"], x["path"]): x["current_path"] for x in rows(r)}
    assert got[(side, "a.py")] == "src/a.py" and got[(new, "a.py")] == "a.py"


@pytest.mark.parametrize("side_is_newer", [False, True])
@pytest.mark.parametrize("with_head", [True, False])
def test_edit_on_a_branch_follows_a_rename_on_another(tmp_path, side_is_newer, with_head):
    from pipeline.history import current_paths

    g = GitRepo(tmp_path / "r")
    g.change("a.py", message="one")
    g.checkout("-b", "side")
    if not side_is_newer:
        side = g.change("a.py", message="side edit", day=2)
    g.checkout("main")
    g.mv("a.py", "src/a.py")
    g.commit("move", day=3)
    if side_is_newer:
        g.checkout("side")
        side = g.change("a.py", message="side edit", day=4)
        g.checkout("main")
    g.merge("side", day=5)
    assert (g.root / "src/a.py").exists() and not (g.root / "a.py").exists()
    r = mine(g.root)
    cur = current_paths(r.file_changes, r.commits, r.head_paths if with_head else None)
    got = {(x["sha"], x["path"]): c for x, c in zip(rows(r), cur)}
    assert got[(side, "a.py")] == "src/a.py"
    assert set(cur) == {"src/a.py"}


def test_merges_including_octopus(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.change("base.py", message="base")
    for br in ("x", "y", "z"):
        g.checkout("-b", br, "main")
        g.change(f"{br}.py", message=f"work on {br}")
    g.checkout("main")
    g.change("main.py", message="main work")
    m2 = g.merge("x", message="merge x")
    oct_ = g.merge("y", "z", message="octopus y z")

    r = mine(g.root)
    assert commit(r, oct_)["is_merge"] and len(commit(r, oct_)["parents"]) == 3
    assert commit(r, m2)["is_merge"] and commit(r, m2)["n_files"] == 0
    assert {x["path"] for x in rows(r)} == {"base.py", "x.py", "y.py", "z.py", "main.py"}  # side-branch edits
    assert rows(r, oct_) == [] and rows(r, m2) == []
    assert r.counters["merges"] == 2 and r.counters["merges_skipped"] == 2

    full = mine(g.root, HistoryConfig(skip_merges=False))           # merges carry their first-parent diff
    assert {x["path"] for x in rows(full, oct_)} == {"y.py", "z.py"}
    assert {x["path"] for x in rows(full, m2)} == {"x.py"}
    assert full.counters["merges_skipped"] == 0


def test_huge_commit_is_kept_and_counted(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.change("a.py")
    for i in range(40):
        g.write(f"gen/f{i:02d}.txt", f"{i}\n")
    big = g.commit("vendor 40 files")
    r = mine(g.root)
    assert commit(r, big)["n_files"] == 40 and len(rows(r, big)) == 40
    assert r.counters["huge_commits"] == 1


def test_bugfix_rule_and_custom_rule(tmp_path):
    g = GitRepo(tmp_path / "r")
    feat = g.change("a.py", message="Add a feature")
    fix = g.change("a.py", message="Fix crash when the list is empty")
    prefix = g.change("a.py", message="prefixed words do not count")
    g.checkout("-b", "fix-crash")
    g.change("b.py", message="guard against None")
    g.checkout("main")
    merge = g.merge("fix-crash", message="Merge pull request #12 from x/fix-crash")
    r = mine(g.root)
    assert not commit(r, feat)["is_bugfix"] and commit(r, fix)["is_bugfix"]
    assert not commit(r, prefix)["is_bugfix"]
    assert not commit(r, merge)["is_bugfix"]                          # merges never count
    assert r.counters["bugfix_commits"] == 1
    r2 = mine(g.root, HistoryConfig(bugfix_rule=r"(?i)^add"))
    assert commit(r2, feat)["is_bugfix"] and not commit(r2, fix)["is_bugfix"]


def test_binary_files(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    g.write("a.txt", "a\n")
    c = g.commit("add logo")
    r = mine(g.root)
    logo = next(x for x in rows(r, c) if x["path"] == "logo.png")
    assert logo["binary"] and logo["added"] is None and logo["deleted"] is None
    assert r.counters["binary_changes"] == 1


def test_non_utf8_path_and_message(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.write(b"caf\xe9.txt", "latin-1 name\n")
    g.write("ok.txt", "x\n")
    c = g.commit_raw(b"r\xe9sum\xe9 of the change\n")
    r = mine(g.root)
    paths = sorted(x["path"] for x in rows(r, c))
    assert paths == ["caf\\xe9.txt", "ok.txt"]                      # escaped, distinct, valid UTF-8
    assert commit(r, c)["message"].startswith("r\ufffdsum\ufffd")
    assert r.counters["non_utf8_paths"] == 1 and r.counters["non_utf8_messages"] == 1
    assert "caf\\xe9.txt" in r.head_paths
    assert next(x for x in rows(r, c) if x["path"] == "caf\\xe9.txt")["current_path"] == "caf\\xe9.txt"


def test_empty_repository_and_not_a_repository(tmp_path):
    g = GitRepo(tmp_path / "empty")
    r = mine(g.root)
    assert r.commits.num_rows == 0 and r.file_changes.num_rows == 0 and r.head is None
    assert r.commits.schema == S.COMMITS
    assert mine(g.root, since="a" * 40).rewritten                     # stored history, now no commits
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotARepository, match="not inside a git repository"):
        mine(plain)
    with pytest.raises(NotARepository, match="does not exist"):
        mine(tmp_path / "missing")


def test_empty_commit_and_submodule(tmp_path):
    sub = GitRepo(tmp_path / "sub")
    sub.change("lib.py")
    g = GitRepo(tmp_path / "r")
    g.change("a.py")
    g.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.root), "vendor/sub")
    c = g.commit("add submodule")
    e = g.commit("nothing", allow_empty=True)
    r = mine(g.root)
    assert {x["path"] for x in rows(r, c)} == {".gitmodules", "vendor/sub"}
    assert r.counters["submodule_changes"] == 1
    assert commit(r, e)["n_files"] == 0 and r.counters["empty_commits"] == 1


def test_shallow_clone(tmp_path):
    g = GitRepo(tmp_path / "r")
    for i in range(5):
        g.change("a.py", f"b{i}.py", message=f"c{i}")
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{g.root}", str(clone)], check=True)
    r = mine(clone)
    assert r.shallow and r.commits.num_rows == 2
    boundary = r.commits.to_pylist()[-1]
    assert boundary["parents"] == []                                   # history before it is absent
    assert r.head == g.head()
    # git shows the boundary adding its whole tree: its changes are not recorded (no fix or co-change of every file)
    assert boundary["n_files"] == 0 and r.counters["boundary_commits"] == 1
    assert {x["sha"] for x in rows(r)} == {r.commits.to_pylist()[0]["sha"]}
    assert r.summary()["shallow_boundary"] and mine(g.root).summary()["shallow_boundary"] == ""


def test_incremental_equals_full_and_rewrite_is_detected(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.change("a.py", "b.py", message="one")
    g.change("a.py", message="two")
    first = mine(g.root)
    g.checkout("-b", "side")
    g.change("c.py", "a.py", message="side work")
    g.checkout("main")
    g.mv("a.py", "src/a.py")
    g.commit("move a")
    g.merge("side", message="merge side")
    g.change("src/a.py", "b.py", message="three")

    inc = mine(g.root, since=first.head)
    assert inc.incremental and not inc.rewritten and inc.commits.num_rows == 4
    commits, changes = combine(first.commits, first.file_changes, inc)
    full = mine(g.root)
    key = lambda t: sorted(t.to_pylist(), key=lambda r: (r["sha"], r.get("path", "")))  # noqa: E731
    assert key(commits) == key(full.commits)
    assert key(changes) == key(full.file_changes)
    assert commit_order(commits) == commit_order(full.commits)
    assert {x["current_path"] for x in key(changes) if x["path"] == "a.py"} == {"src/a.py"}

    nothing = mine(g.root, since=full.head)
    assert nothing.commits.num_rows == 0 and not nothing.rewritten

    g.git("reset", "-q", "--hard", "HEAD~1")                         # force-push style rewrite
    g.change("d.py", message="rewritten tip")
    again = mine(g.root, since=full.head)
    assert again.rewritten and not again.incremental
    assert again.commits.num_rows == full.commits.num_rows
    c2, f2 = combine(full.commits, full.file_changes, again)          # replaces, never appends
    assert c2.num_rows == again.commits.num_rows
    unknown = mine(g.root, since="0" * 40)
    assert unknown.rewritten


def test_file_lists_match_pydriller(tmp_path):
    pydriller = pytest.importorskip("pydriller")
    g = GitRepo(tmp_path / "r")
    g.write("a.py", "def f():\n    return 1\n" * 3)
    g.write("b.py", "b\n")
    g.commit("start")
    g.checkout("-b", "side")
    g.change("side.py", "b.py", message="side")
    g.checkout("main")
    g.mv("a.py", "pkg/a.py")
    g.commit("move")
    g.write("img.bin", b"\x00\x01\x02")
    g.change("pkg/a.py", message="edit")
    g.merge("side")
    g.rm("b.py")
    g.commit("drop b")

    ours = {}
    for x in mine(g.root).file_changes.to_pylist():
        ours.setdefault(x["sha"], set()).add((x["path"], x["old_path"], x["change_type"], x["added"] or 0,
                                              x["deleted"] or 0))
    kinds = {"ADD": "A", "DELETE": "D", "MODIFY": "M", "RENAME": "R"}
    theirs = {}
    for c in pydriller.Repository(str(g.root), only_no_merge=True).traverse_commits():
        for m in c.modified_files:
            path = m.new_path or m.old_path
            old = m.old_path if m.change_type.name == "RENAME" else None
            theirs.setdefault(c.hash, set()).add((path, old, kinds[m.change_type.name], m.added_lines,
                                                  m.deleted_lines))
    assert ours == theirs


def test_parser_survives_any_chunking(tmp_path):
    from pipeline import gitio
    from pipeline.history import LogParser

    g = GitRepo(tmp_path / "r")
    g.change("a.py", "b.py")
    g.mv("a.py", "c.py")
    g.commit("mv")
    g.commit("empty", allow_empty=True)
    data = b"".join(gitio.stream_history(g.root, "HEAD"))
    whole = LogParser()
    whole.feed(data)
    ref = [t.to_pylist() for t in whole.finish()]
    for size in (1, 2, 7, 64):
        p = LogParser()
        for i in range(0, len(data), size):
            p.feed(data[i:i + size])
        assert [t.to_pylist() for t in p.finish()] == ref
    assert isinstance(whole.finish()[0], pa.Table)


def test_without_line_counts_same_files_no_counts(tmp_path):
    g = GitRepo(tmp_path / "r")
    g.write("a.py", "1\n2\n")
    g.write("img.bin", b"\x00\x01")
    g.commit("one")
    g.mv("a.py", "b.py")
    g.commit("two")
    full = mine(g.root)
    fast = mine(g.root, HistoryConfig(line_counts=False))
    strip = lambda r: [(x["sha"], x["path"], x["old_path"], x["change_type"], x["current_path"])  # noqa: E731
                       for x in rows(r)]
    assert strip(fast) == strip(full)
    assert all(x["added"] is None and x["deleted"] is None and x["binary"] is None for x in rows(fast))
    assert fast.counters["binary_changes"] == 0 and full.counters["binary_changes"] == 1
