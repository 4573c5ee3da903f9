"""``fixes.mine_fixes`` on a re-index judges the new commits, not the whole history, and makes what
the full pass makes: real git histories, the real mine and ``history.combine``.

A sympy re-index after a one-file commit judged all 62,660 commits again (11 s of a 64 s profiled
run); now the commits past the watermark, and the old ones whose files changed."""

from __future__ import annotations

import json

from pipeline.fixes import mine_fixes, new_rows
from pipeline.history import combine, mine
from tests.historyrepo import GitRepo

IGNORED = ("reused", "judged", "incremental")    # how the result was made, not what it is


def _files(g: GitRepo, gone: tuple[str, ...] = ()) -> dict[str, str]:
    """The code files the index holds: those at HEAD (less ``gone``), each with an id of its own."""
    paths = g.git("ls-files").splitlines()
    return {p: f"F-{p}" for p in paths if p.endswith(".py") and p not in gone}


def _both(tables, files, prev):
    """The incremental result and the full pass over the same tables (the mark taken off)."""
    commits, changes = tables
    inc = mine_fixes(commits, changes, files, "r", prev=prev, changes=True, same_rule=True)
    full = mine_fixes(commits.replace_schema_metadata(None), changes, files, "r", prev=prev, changes=True,
                      same_rule=True)
    return inc, full


def _same(inc, full) -> None:
    assert inc.nodes == full.nodes and inc.edges == full.edges
    assert {k: v for k, v in inc.counts.items() if k not in IGNORED} == \
        {k: v for k, v in full.counts.items() if k not in IGNORED}


def _history(g: GitRepo):
    g.write("parser.py", "def parse():\n    return 1\n")
    g.write("cache.py", "C = {}\n")
    g.write("loader.py", "def load():\n    pass\n")
    g.write("gone.py", "G = 1\n")
    g.commit("Add the parser, cache, loader")
    g.change("parser.py", message="Fix crash in the parser on empty input")
    g.change("cache.py", message="Add an eviction policy to the cache")
    g.change("loader.py", message="Fix slow import of the loader")
    g.change("cache.py", message="wip")                                       # contentless: no node
    g.change("gone.py", message="Teach gone to count twice")
    g.rm("gone.py")
    g.commit("Remove the gone module")
    for i in range(20):
        g.change(f"old{i}.py", message=f"Add the old{i} helper")


def test_a_reindex_judges_the_new_commits_and_makes_what_the_full_pass_makes(tmp_path):
    g = GitRepo(tmp_path / "r")
    _history(g)
    first = mine(g.root)
    files = _files(g)
    prev = mine_fixes(first.commits, first.file_changes, files, "r", changes=True).nodes
    n_old = first.commits.num_rows
    # a backport of an old fix (cherry-pick -x's line), a rename, a plain one-file commit, a file back
    g.change("loader.py", message="Fix slow import of the loader\n\n(cherry picked from commit 1234567)")
    g.mv("parser.py", "parsing.py")
    g.commit("Move the parser")
    g.change("cache.py", message="Size the cache by the memory it holds")
    g.write("gone.py", "G = 2\n")
    g.commit("Bring the gone module back")
    new = mine(g.root, since=first.head)
    tables = combine(first.commits, first.file_changes, new)
    assert new_rows(tables[0]) == 4
    inc, full = _both(tables, _files(g), prev)
    _same(inc, full)
    assert inc.counts["incremental"] == 1 and full.counts["incremental"] == 0
    # judged: the 4 new commits; the old ones whose files moved or came back (the first commit, the
    # parser's fix, gone's two); the backported node's own; the contentless "wip" (it has a file)
    assert inc.counts["judged"] == 4 + 4 + 1 + 1 and full.counts["judged"] == n_old + 4       # the full pass: all
    by_doc = {n["doc"].split("\n")[0]: n for n in inc.nodes}
    assert '"commits": [' in by_doc["Fix slow import of the loader"]["meta"]        # the backport joined it
    assert "Teach gone to count twice" in by_doc                                    # its file is back
    assert "parsing.py" in by_doc["Fix crash in the parser on empty input"]["full"]
    # and once more, nothing new: every node as it is
    again = mine_fixes(tables[0], tables[1], _files(g), "r", prev=inc.nodes, changes=True, same_rule=True)
    assert again.nodes == inc.nodes and again.edges == inc.edges and again.counts["reused"] == len(inc.nodes)


def test_a_file_the_index_no_longer_holds_and_a_backport_older_than_its_node(tmp_path):
    """No commit names it, but the index dropped a file (deleted in the work tree, too large): its
    nodes lose it as the full pass's do. A copy whose commit time is older than the node's (a
    branch merged late) keeps the node under the older id, as the full pass does."""
    g = GitRepo(tmp_path / "r")
    _history(g)
    first = mine(g.root)
    prev = mine_fixes(first.commits, first.file_changes, _files(g), "r", changes=True).nodes
    g.git("checkout", "-q", "-b", "late", "HEAD~22")
    late = g.change("cache.py", message="Add an eviction policy to the cache", day=1)     # older than the node's
    g.git("checkout", "-q", "main")
    g.merge("late", message="Merge the late branch")
    new = mine(g.root, since=first.head)
    tables = combine(first.commits, first.file_changes, new)
    inc, full = _both(tables, _files(g, gone=("loader.py",)), prev)
    _same(inc, full)
    assert inc.counts["incremental"] == 1
    assert not any(n["doc"].startswith("Fix slow import") for n in inc.nodes)
    evict = [json.loads(n["meta"]) for n in inc.nodes if n["doc"] == "Add an eviction policy to the cache"]
    assert [m["sha"] for m in evict] == [late] and len(evict[0]["commits"]) == 2


def test_a_previous_version_made_under_other_settings_is_made_again_in_full(tmp_path):
    g = GitRepo(tmp_path / "r")
    _history(g)
    first = mine(g.root)
    fixes_only = mine_fixes(first.commits, first.file_changes, _files(g), "r").nodes
    g.change("cache.py", message="Size the cache by the memory it holds")
    tables = combine(first.commits, first.file_changes, mine(g.root, since=first.head))
    inc, full = _both(tables, _files(g), fixes_only)
    _same(inc, full)
    assert inc.counts["incremental"] == 0 and any(n["kind"] == "change" for n in inc.nodes)
