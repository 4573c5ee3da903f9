"""The mined history does not depend on the user's or the repository's git config (s34 probe finding 1).

The same repository is mined twice: once with an empty HOME, once with a ~/.gitconfig, a global
attributes file (~/.config/git/attributes) and the repository's own config setting every key known to
change what `git log --raw --numstat` / `git log -p` prints. The commits, file changes, co-change pairs
and changed functions must be the same. Before the pins, log.showRoot=false dropped the root commit's
files, diff.ignoreSubmodules=all the gitlink changes, i18n.logOutputEncoding turned 'café' into
'caf\\ufffd', diff.renameLimit=1 turned renames into delete+add, the attributes file made every .py
binary, and diff.noprefix / diff.interHunkContext changed which functions a commit touched.
"""

from __future__ import annotations

import pytest

from pipeline import cochange, symbols
from pipeline.history import mine
from tests.historyrepo import GitRepo

FUNCS = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(6))

HOME_CONFIG = """[log]
    showRoot = false
    decorate = full
    showSignature = true
[i18n]
    logOutputEncoding = ISO-8859-1
    commitEncoding = ISO-8859-1
[diff]
    noprefix = true
    orderFile = {order}
[color]
    ui = always
"""

REPO_CONFIG = [("diff.ignoreSubmodules", "all"), ("submodule.vendor/sub.ignore", "all"),
               ("diff.submodule", "diff"), ("diff.renameLimit", "1"), ("diff.renames", "false"),
               ("log.follow", "true"), ("core.quotePath", "true"), ("diff.mnemonicPrefix", "true"),
               ("diff.relative", "true"), ("diff.external", "false"), ("diff.interHunkContext", "10"),
               ("diff.indentHeuristic", "false"), ("diff.algorithm", "patience"), ("diff.context", "5"),
               ("core.bigFileThreshold", "1"), ("core.abbrev", "7"), ("log.mailmap", "true")]


def _gitlink(g: GitRepo, sha: str, message: str, *paths: str) -> str:
    """Commit ``paths`` plus the submodule vendor/sub at ``sha`` (a gitlink without a checkout)."""
    g.git("add", *paths)
    g.git("update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/sub")
    g.git("commit", "-q", "--no-verify", "-m", message, when=g.when())
    return g.head()


def _build(tmp_path) -> GitRepo:
    sub = GitRepo(tmp_path / "sub")
    s1 = sub.commit("s1", allow_empty=True)
    s2 = sub.commit("s2", allow_empty=True)
    g = GitRepo(tmp_path / "r")
    g.write("a.py", FUNCS)
    for n in ("p", "q", "r"):
        g.write(f"{n}.py", "".join(f"line {n} {i}\n" for i in range(40)))
    g.commit("initial import: café")                     # the root commit: every file's first change
    g.append("a.py", "x = 1")
    _gitlink(g, s1, "add the submodule", "a.py")
    g.write("a.py", FUNCS.replace("return 1", "return 10").replace("return 3", "return 30"))
    _gitlink(g, s2, "bump the submodule, edit f1 and f3", "a.py")
    for n in ("p", "q", "r"):                            # three inexact renames in one commit
        g.mv(f"{n}.py", f"pkg/{n}.py")
        g.append(f"pkg/{n}.py", "moved")
    g.git("add", "pkg")
    g.git("commit", "-q", "--no-verify", "-m", "move p q r into pkg", when=g.when())
    return g


def _mined(root) -> dict:
    r = mine(root)
    fc = r.file_changes
    pairs = cochange.compute(fc, r.commits)
    shas = [c["sha"] for c in r.commits.to_pylist()]
    syms = symbols.changed_symbols(root, shas)
    return {"commits": sorted((c["sha"], c["message"], c["author_name"], c["n_files"]) for c in r.commits.to_pylist()),
            "file_changes": sorted(tuple(sorted(x.items(), key=lambda kv: kv[0])) for x in fc.to_pylist()),
            "cochange": sorted((x["a"], x["b"], x["support"]) for x in pairs.to_pylist()),
            "symbols": sorted((x["sha"], x["path"], x["qualname"]) for x in syms.to_pylist())}


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty HOME of the test's own: git reads ~/.gitconfig and ~/.config/git/attributes there."""
    h = tmp_path / "home"
    h.mkdir()
    for var in ("GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return h


def test_user_and_repository_git_config_do_not_change_the_mined_history(tmp_path, home):
    g = _build(tmp_path)
    plain = _mined(g.root)
    # what the plain run must hold for the comparison to mean something
    assert any(m.strip() == "initial import: café" for _, m, _, _ in plain["commits"])
    assert sum(1 for row in plain["file_changes"] if dict(row)["path"] == "vendor/sub") == 2
    assert sum(1 for row in plain["file_changes"] if dict(row)["change_type"] == "R") == 3
    assert {q for _, p, q in plain["symbols"] if p == "a.py"} == {"f0", "f1", "f2", "f3", "f4", "f5"}

    order = tmp_path / "order"
    order.write_text("r.py\nq.py\n")
    (home / ".gitconfig").write_text(HOME_CONFIG.format(order=order))
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "attributes").write_text("*.py -diff\n")
    for key, value in REPO_CONFIG:
        g.git("config", key, value)
    configured = _mined(g.root)

    for table in plain:
        assert configured[table] == plain[table], table
