"""pipeline.fixes: commits of the mined history become mined ``fix`` / ``change`` nodes about current files."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

from pipeline.fixes import BUGFIX_RULE, MAX_FILES, fix_id, fix_text, has_content, is_bugfix, mine_fixes
from stratum import schema as S


def _tables(commits: list[tuple[str, str, list[tuple[str, str | None]]]], merge: set[str] = frozenset()):
    cs, fcs = [], []
    for i, (sha, msg, files) in enumerate(commits):
        t = datetime(2024, 1, 1 + i, tzinfo=timezone.utc)
        cs.append({"sha": sha, "message": msg, "is_merge": sha in merge, "committed_at": t, "author_name": "Ada"})
        fcs += [{"sha": sha, "path": p, "current_path": cur, "change_type": "M", "committed_at": t} for p, cur in files]
    return S.to_table(cs, S.COMMITS), S.to_table(fcs, S.FILE_CHANGES)


FILES = {"src/app.py": "F1", "src/util.py": "F2"}


def test_rule_reads_the_subject_and_skips_cosmetic_work():
    yes = ["Fix crash when the list is empty", "fixed a regression in url_for", "Bugfix: header parsing",
           "Avoid a race condition in the reloader", "hotfix: null pointer in login handler"]
    no = ["Add a feature (#123)", "fix typo in docs", "Fix docstring of Request", "Bump version\n\nfixes #12",
          "Merge pull request #12 from x/feature", "prefixed words do not count", "release 2.0.1 with fixes",
          "Merge pull request #9 from bob/bugfix-login", "Merge branch 'hotfix/date' into develop"]
    assert all(re.search(BUGFIX_RULE, m) for m in yes)
    assert not any(re.search(BUGFIX_RULE, m) for m in no)


def test_rule_leaves_out_typing_lint_bots_reverts_and_comments():
    """The false positives a probe found, and the real fixes next to them that must stay."""
    no = ["Fix grammatical error (#4268)", "fix mypy findings", "fix latest mypy findings", "fix typing",
          "fix type hints", "Fix type annotations.", "[pre-commit.ci] auto fixes from pre-commit.com hooks",
          "fix stylecheck", "Various pyflakes fixes", "Fixed a comment", "Fix spacing in setup.py",
          "Documented proxy fix", 'Revert "Fix SSL3 error on Ubuntu 12.04"', "fix flake8 errors"]
    yes = ["Fix typing of jinja decorators (#4109)", "fix type hint for `cli_runner.invoke`",
           "fix typing that wasn't available in Python 3.6.0", "Fix TypeError in LintMiddleware (#1116)",
           'Revert "Revert "Make safe_mode play nice with timeout (fixes #312)""', "Fix crash on empty form"]
    assert [m for m in no if re.search(BUGFIX_RULE, m)] == []
    assert [m for m in yes if not re.search(BUGFIX_RULE, m)] == []


def test_has_content():
    empty = ["fix", "fixes", "Fixed.", "wip", "WIP", "fix tests", "cleanup", "Some small cleanups.", "Fix typo",
             "Fix #1911 (#1913)", "fix for #1017", "[pre-commit.ci] auto fixes from pre-commit.com hooks\n"
             "for more information, see https://pre-commit.ci", "Merge pull request #150",
             "Merge pull request from GHSA-j8r2-6x86-q33q", "Merge commit from fork", "Merge branch 'main' into 3.0.x",
             "Fix https://github.com/psf/requests/issues/1434", "", "2.16.2"]
    full = ["fix tests for the reloader", "fix\nThe rule map was empty after a reload.", "release version 2.3.3",
            "v2.31.0", "Bump version", "merge slashes between blueprint prefix and rule",
            "Merge pull request #859 from wvh/register_error_handler", "Fix test_signals", "Fix crash in deadbeef"]
    assert [t for t in empty if has_content(t)] == []
    assert [t for t in full if not has_content(t)] == []


def test_contentless_commits_make_no_node_unless_asked():
    commits, changes = _tables([
        ("a" * 40, "fix", [("src/app.py", "src/app.py")]),
        ("b" * 40, "wip", [("src/util.py", "src/util.py")]),
        ("c" * 40, "[pre-commit.ci] auto fixes from pre-commit.com hooks\n\nfor more information, see "
                   "https://pre-commit.ci", [("src/util.py", "src/util.py")]),
        ("d" * 40, "fix\n\nThe router lost its rules on reload.", [("src/app.py", "src/app.py")]),
        ("e" * 40, "Fix a crash in the router", [("src/app.py", "src/app.py")]),
    ])
    res = mine_fixes(commits, changes, FILES, "r", changes=True)
    assert [(n["id"], n["kind"]) for n in res.nodes] == [(fix_id("r", "d" * 40), "fix"), (fix_id("r", "e" * 40), "fix")]
    assert res.counts["contentless"] == 3 and res.counts["bugfix"] == 3       # "fix" is a fix, with nothing to say
    kept = mine_fixes(commits, changes, FILES, "r", changes=True, contentless=True)
    assert len(kept.nodes) == 5 and kept.counts["contentless"] == 0


def test_fixes_point_at_current_paths_and_are_marked_mined():
    commits, changes = _tables([
        ("a" * 40, "Fix crash in the router\n\nThe rule map was empty.\nSigned-off-by: Ada", [("app.py", "src/app.py")]),
        ("b" * 40, "Add a feature", [("src/util.py", "src/util.py")]),
        ("c" * 40, "fix bug in util, notes updated", [("src/util.py", "src/util.py"), ("README.md", "README.md")]),
        ("d" * 40, "Fix gone file", [("old.py", None)]),
        ("e" * 40, "Fix everything", [(f"m{i}.py", f"m{i}.py") for i in range(6)]),
        ("f" * 40, "Fix merge", [("src/app.py", "src/app.py")]),
    ], merge={"f" * 40})
    res = mine_fixes(commits, changes, FILES, "r")
    assert [n["id"] for n in res.nodes] == [fix_id("r", "a" * 40), fix_id("r", "c" * 40)]
    a = res.nodes[0]
    meta = json.loads(a["meta"])
    assert a["kind"] == "fix" and a["author"] == "history" and a["tags"] == ["mined"]
    assert meta["mined"] is True and meta["sha"] == "a" * 40 and meta["time"].startswith("2024-01-01")
    assert [t["path"] for t in meta["about"]] == ["src/app.py"]          # renamed since: current path
    assert a["summary"].startswith("fix: Fix crash in the router") and "Signed-off-by" not in a["doc"]
    assert {(e["src"], e["dst"], e["kind"]) for e in res.edges} == {
        (fix_id("r", "a" * 40), "F1", "about"), (fix_id("r", "c" * 40), "F2", "about")}
    assert res.counts["no_current_file"] == 1 and res.counts["too_many_files"] == 1


def test_incremental_reuses_previous_nodes():
    commits, changes = _tables([("a" * 40, "Fix crash in the router", [("src/app.py", "src/app.py")])])
    first = mine_fixes(commits, changes, FILES, "r")
    again = mine_fixes(commits, changes, FILES, "r", prev=first.nodes)
    assert again.counts["reused"] == 1 and again.nodes == first.nodes
    moved = mine_fixes(commits, changes, {"src/app.py": "F9"}, "r", prev=first.nodes)   # the file node changed
    assert moved.counts["reused"] == 0 and moved.edges[0]["dst"] == "F9"


def test_fix_text_is_bounded():
    t = fix_text("Fix x\n\n" + "word " * 400)
    assert t.startswith("Fix x") and len(t) <= 604


def test_a_squash_merge_is_read_by_the_commits_it_squashed(tmp_path):
    """`git merge --squash` then `git commit --no-edit`: git's message lists each commit (sha,
    author, date, its indented message). The node's text is their subjects, and it is a fix when
    one of them is (a probe saw "Squashed commit of the following: / commit b562f5... / Author:" as
    a change's text, the fix inside lost)."""
    from pipeline.history import mine
    from tests.gitrepo import Repo, git

    r = Repo(tmp_path / "r")
    r.commit("initial", {"src/app.py": "A = 1\n", "src/util.py": "U = 1\n"})
    git(r.path, "checkout", "-q", "-b", "topic")
    r.commit("Add a coupon list\n\nThe list is read from the config.", {"src/app.py": "A = 2\n"})
    r.commit("fix crash when coupon list is empty", {"src/app.py": "A = 3\n"})
    git(r.path, "checkout", "-q", "main")
    git(r.path, "merge", "-q", "--squash", "topic")
    git(r.path, "commit", "-q", "--no-edit")
    h = mine(r.path)
    msg = h.commits.to_pylist()[0]["message"]
    assert msg.startswith("Squashed commit of the following:") and "Author: Ada" in msg
    assert fix_text(msg) == "fix crash when coupon list is empty\nAdd a coupon list"
    assert is_bugfix(msg) and h.commits.to_pylist()[0]["is_bugfix"]
    res = mine_fixes(h.commits, h.file_changes, FILES, "r", changes=True)
    squash = [n for n in res.nodes if "coupon" in n["doc"]]
    assert [(n["kind"], n["doc"]) for n in squash] == [("fix", "fix crash when coupon list is empty\nAdd a coupon list")]
    assert not is_bugfix("Squashed commit of the following:\n\ncommit 1234567\nAuthor: A\n\n    Add a list\n")


def test_other_commits_become_change_nodes_when_asked():
    commits, changes = _tables([
        ("a" * 40, "Fix crash in the router", [("src/app.py", "src/app.py")]),
        ("b" * 40, "Add a feature\n\nThe util grows a helper.", [("src/util.py", "src/util.py"), ("README.md", "README.md")]),
        ("c" * 40, "Refactor everything", [(f"m{i}.py", f"m{i}.py") for i in range(MAX_FILES + 1)]),
        ("d" * 40, "Update the readme", [("README.md", "README.md")]),             # no code file
        ("e" * 40, "Merge branch x", [("src/app.py", "src/app.py")]),
    ], merge={"e" * 40})
    assert [n["kind"] for n in mine_fixes(commits, changes, FILES, "r").nodes] == ["fix"]     # the default: fixes only
    res = mine_fixes(commits, changes, FILES, "r", changes=True)
    assert [(n["id"], n["kind"]) for n in res.nodes] == [(fix_id("r", "a" * 40), "fix"),
                                                          (fix_id("r", "b" * 40, "change"), "change")]
    b = res.nodes[1]
    meta = json.loads(b["meta"])
    assert b["author"] == "history" and b["tags"] == ["mined"] and b["summary"].startswith("change: Add a feature")
    assert meta["mined"] is True and meta["sha"] == "b" * 40 and meta["commit_author"] == "Ada"
    assert [t["path"] for t in meta["about"]] == ["src/util.py"]
    assert fix_id("r", "b" * 40, "change") != fix_id("r", "b" * 40)             # kinds never share an id
    assert res.counts["fixes"] == 1 and res.counts["changes"] == 1 and res.counts["too_many_files"] == 1
    assert res.counts["no_code_file"] == 1
    only = mine_fixes(commits, changes, FILES, "r", fixes=False, changes=True)
    assert [n["kind"] for n in only.nodes] == ["change"]
    again = mine_fixes(commits, changes, FILES, "r", changes=True, prev=res.nodes)
    assert again.counts["reused"] == 2 and again.nodes == res.nodes


def test_same_rule_keeps_the_previous_kinds_and_a_new_rule_decides_again():
    commits, changes = _tables([("a" * 40, "Fix crash in the router", [("src/app.py", "src/app.py")]),
                                ("b" * 40, "Add a helper", [("src/util.py", "src/util.py")])])
    first = mine_fixes(commits, changes, FILES, "r", changes=True)
    same = mine_fixes(commits, changes, FILES, "r", prev=first.nodes, changes=True, same_rule=True)
    assert same.nodes == first.nodes and same.edges == first.edges and same.counts["reused"] == 2
    assert {**same.counts, "reused": 0} == first.counts
    # the previous kinds are taken as the rule's when same_rule says the rule is the same ...
    never = r"(?!)"
    kept = mine_fixes(commits, changes, FILES, "r", rule=never, prev=first.nodes, changes=True, same_rule=True)
    assert [n["kind"] for n in kept.nodes] == [n["kind"] for n in first.nodes] == ["fix", "change"]
    # ... and a changed rule is searched again
    redone = mine_fixes(commits, changes, FILES, "r", rule=never, prev=first.nodes, changes=True)
    assert [n["kind"] for n in redone.nodes] == ["change", "change"]
