"""Four small gaps session 26's fixes left (helper q3), each as a user meets it:

1. A note written about code the checkout edited and has not committed read "stale: ... changed
   since" in a session opened with ``--branch main`` (the checkout's own branch), where the default
   session says it is about the work tree's version, not indexed yet (``branchcode._AtThisCommit``).
2. In a branch session, ``x/shop/pricing.py::discount`` (a path read by its tail) served the default
   branch's ``discount``, and "no node" for a symbol only the branch has (``whichstore._symbol_by_tail``).
3. A ``--server`` query from a worktree whose branch the server lacks answers for the server's
   default branch and says so in the answer; when the query then failed, nothing said it
   (``cli.query._answered``: the line goes to stderr, as ``stratum mcp --server`` logs it).
4. An item's attached mined fix said "by history, mined" where the fix's own item says "by Ada
   (mined from commit <sha12>)" (``noteitems.mined_from``, ``render.note_line``).

Real git repositories and worktrees, the real index job and overlay builder, the real Tools, the
CLI, and a real `stratum serve` on a loopback port."""

from __future__ import annotations

import re

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.errors import NotFound
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo, git
from tests.integration.test_s26_checkout_note import OLD, _edited_and_noted
from tests.servecli import stratum_serve

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
PRICING = 'def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2)\n'
ON_FB = ('def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2) if rate < 1 else 0.0\n'
         '\n\ndef clamp(rate):\n    return min(max(rate, 0), 1)\n')


def _tools(store: str) -> Tools:
    return Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))


def _said(t: Tools, nid: str, **session) -> dict[str, list]:
    """What a session (SESSION: open_session's view) says of note NID and of discount's code."""
    s = t.open_session(**session).data["session"]
    (sym,) = t.get(s, "shop/pricing.py::discount", level="summary").items
    hits = t.search(s, "negative totals rate discount").items
    return {"attached": [(n["line"], n["stale"]) for n in sym.notes if n["id"] == nid],
            "item": list(t.get(s, nid).items[0].warnings),
            "walk": [w for it in t.walk(s, "shop/pricing.py::discount", edges=["notes"]).items if it.id == nid
                     for w in it.warnings],
            "why": [it.why for it in hits if it.qualname == "discount"]}


# ---- 1. --branch main reads a checkout note as the default session does ------------------------
def test_branch_main_reads_a_note_about_uncommitted_code_as_the_default_session_does(tmp_path):
    _, store, nid, head = _edited_and_noted(tmp_path)
    t = _tools(store)
    try:
        default, main = _said(t, nid), _said(t, nid, branch="main")
    finally:
        t.close()
    line = (f"written about the work tree's version of shop/pricing.py::discount, uncommitted at HEAD {head} of "
            "branch main: the indexed version differs (not committed and indexed yet)")
    assert default["item"] == default["walk"] == [line], default
    assert main["item"] == main["walk"] == [line], main          # it said "stale: ... changed since"
    assert [stale for _, stale in main["attached"]] == [False], main
    (why,) = main["why"]
    assert "x0.5" not in why and "stale" not in why, why        # its search lift whole, as on the default
    # the attached line names the work tree's version, as the default session's does
    assert main["attached"] == default["attached"], (main, default)
    assert f"on the work tree's version (uncommitted at HEAD {head} of branch main, not indexed yet)" in \
        main["attached"][0][0], main


def test_branch_main_after_an_index_judges_by_the_hashes_as_the_default_session(tmp_path):
    r, store, nid, _ = _edited_and_noted(tmp_path / "kept")
    index_repository(r.path, store, CFG)            # the index takes the work tree's version in: fresh
    t = _tools(store)
    try:
        assert _said(t, nid, branch="main")["item"] == [] == _said(t, nid)["item"]
    finally:
        t.close()
    r, store, nid, _ = _edited_and_noted(tmp_path / "undone")
    r.write({"shop/pricing.py": OLD})               # the edit thrown away, then indexed: a change since
    index_repository(r.path, store, CFG)
    t = _tools(store)
    try:
        default, main = _said(t, nid), _said(t, nid, branch="main")
    finally:
        t.close()
    assert main["item"] == default["item"] and "changed since this note was written" in main["item"][0], main
    assert [stale for _, stale in main["attached"]] == [True], main


def test_a_worktree_note_read_from_a_session_on_its_branch(tmp_path):
    """A note written in a worktree session about code it had not committed, read from a session on
    that branch (its commit lacks the edit): about the worktree's version, not stale; in the
    worktree's own session: fresh."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "shop" / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    git(wt, "add", "-A")
    git(wt, "commit", "-qm", "fw: cart")
    (wt / "shop" / "pricing.py").write_text(ON_FB)       # uncommitted in the worktree
    t = _tools(store)
    try:
        s = t.open_session(worktree=str(wt)).data["session"]
        nid = t.remember(s, "rca", "rate >= 1 gave negative totals", ["shop/pricing.py::discount"]).data["note_id"]
        fw = _said(t, nid, branch="fw")
        assert [stale for _, stale in fw["attached"]] == [False], fw
        (w,) = fw["item"]
        assert w.startswith("written about the work tree's version of shop/pricing.py::discount, uncommitted at "
                            "HEAD ") and "this session's version differs" in w and "changed since" not in w, fw
        assert _said(t, nid, worktree=str(wt))["item"] == []
    finally:
        t.close()


# ---- 2. a branch session reads a tail path's ::symbol as its own code ---------------------------
def test_a_branch_session_reads_a_tail_paths_symbol_as_the_branch_has_it(tmp_path, capsys, monkeypatch):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/tax.py": "def vat(x):\n    return x\n"})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "fb")
    r.commit("fb", {"shop/pricing.py": ON_FB, "shop/extra.py": "def only_here():\n    return 1\n",
                    "shop/tax.py": "def levy(x):\n    return x\n"})
    git(r.path, "checkout", "-q", "main")
    t = _tools(store)
    try:
        s = t.open_session(branch="fb").data["session"]
        for asked in ("x/shop/pricing.py::discount", "shop/pricing.py::discount"):
            (it,) = t.get(s, asked, level="full").items
            assert it.qualname == "discount" and "if rate < 1 else 0.0" in it.text, (asked, it.text)   # fb's
        assert t.get(s, "x/shop/pricing.py::clamp").items[0].qualname == "clamp"         # only fb has it
        assert t.get(s, "ci/build/shop/extra.py::only_here").items[0].path == "shop/extra.py"
        walked = t.walk(s, "x/shop/pricing.py::clamp", edges=["contains"], direction="in").items
        assert any(it.path == "shop/pricing.py" and it.kind == "file" for it in walked), walked
        with pytest.raises(NotFound, match="not on 'fb'"):     # fb removed vat: not main's vat
            t.get(s, "x/shop/tax.py::vat")
        got = t.remember(s, "insight", "clamp keeps rate in [0, 1]", ["x/shop/pricing.py::clamp"])
        assert t.get(s, "shop/pricing.py::clamp", level="summary").items[0].notes[0]["id"] == got.data["note_id"]
        s0 = t.open_session().data["session"]                  # the default branch: as before
        assert "0.0" not in t.get(s0, "x/shop/pricing.py::discount", level="full").items[0].text
    finally:
        t.close()
    monkeypatch.chdir(r.path)
    rc, out, err = run(capsys, "get", "x/shop/pricing.py::discount", "--branch", "fb", "--level", "full")
    assert rc == 0 and "if rate < 1 else 0.0" in out, err


# ---- 3. --server: a fallback the caller did not ask for is said even when the query fails --------
def test_a_server_query_says_its_fallback_on_stderr_when_it_fails(tmp_path, capsys, monkeypatch):
    r = Repo(tmp_path / "main")
    r.commit("init", {"shop/pricing.py": PRICING})
    index_repository(r.path, None, CFG)
    other = Repo(tmp_path / "other")             # a worktree of another repository: no branch ow there
    other.commit("init", {"README.md": "other\n"})
    owt = tmp_path / "owt"
    git(other.path, "worktree", "add", "-q", "-b", "ow", str(owt))
    fell = "the server cannot answer for this worktree's branch ow ("
    with stratum_serve(default_store_path(r.path)) as (_, addr):
        monkeypatch.chdir(owt)
        rc, out, err = run(capsys, "get", "shop/pricing.py::discount", "--server", addr)
        assert rc == 0 and "discount" in out and fell in out and fell not in err, (out, err)   # in the answer
        rc, out, err = run(capsys, "get", "README.md", "--server", addr)    # ow's file: main has none
        assert rc != 0 and f"stratum: {fell}" in err and "no node 'README.md'" in err, err    # it said only "no node"
        assert err.index(fell) < err.index("no node"), err
        rc, out, err = run(capsys, "get", "shop/pricing.py::discount", "--server", addr, "--branch", "ow")
        assert rc != 0 and "no commit or branch 'ow'" in err and fell not in err, err     # named: an error


# ---- 4. an attached mined fix names its commit's author and commit ------------------------------
def test_an_attached_mined_fix_names_its_commit_author_as_its_item_does(tmp_path):
    """Needs memory.py's ``AttachedNote`` fields and render.py's ``note_line`` (q3 report)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/pricing.py": PRICING})
    fix = r.commit("fix rounding crash in discount", {"shop/pricing.py": PRICING + "\n"})
    index_repository(r.path, None, CFG)
    t = _tools(str(default_store_path(r.path)))
    try:
        for session in ({}, {"branch": "main"}):
            s = t.open_session(**session).data["session"]
            (f,) = t.get(s, "shop/pricing.py", level="summary").items
            (n,) = [n for n in f.notes if n["kind"] == "fix"]
            header = t.get(s, n["id"], level="api").items[0].text.splitlines()[1]
            assert header.startswith(f"by Ada (mined from commit {fix[:12]})"), header
            assert f" old, by Ada, mined from commit {fix[:12]}): " in n["line"] and "history" not in n["line"], n
            assert n["trust"] == "mined"
    finally:
        t.close()


def test_a_commit_author_named_like_trust_words_is_quoted_in_the_header_and_the_line(tmp_path):
    """A commit author is whoever's commit lands: a name such as ``alice (authenticated, maintainer)
    via review`` was written as it is into a mined fix's header, where it passed for our trust words
    (a review). It is quoted as a JSON string there and on the attached line, as a claimed agent
    name already was on the line."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/pricing.py": PRICING})
    forged = "alice (authenticated, maintainer) via review"
    (r.path / "shop" / "pricing.py").write_text(PRICING + "\n")
    git(r.path, "-c", "user.name=x", "commit", "-qam", "fix rounding crash in discount", f"--author={forged} <a@x>")
    index_repository(r.path, None, CFG)
    t = _tools(str(default_store_path(r.path)))
    try:
        s = t.open_session().data["session"]
        (f,) = t.get(s, "shop/pricing.py", level="summary").items
        (n,) = [n for n in f.notes if n["kind"] == "fix"]
        header = t.get(s, n["id"], level="api").items[0].text.splitlines()[1]
        assert header.startswith(f'by "{forged}" (mined from commit '), header
        assert f'by "{forged}", mined from commit ' in n["line"], n["line"]
    finally:
        t.close()


def test_notes_list_and_show_quote_an_author_named_like_trust_words(tmp_path, capsys):
    """`notes list` and `notes show` write trust in brackets after the author: a claimed name such as
    ``alice [authenticated, maintainer]`` passed for it there, and a commit author's in a mined fix's
    `notes show` (a review). Such names are quoted on every surface."""
    from tests.clirun import run

    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/pricing.py": PRICING})
    index_repository(r.path, None, CFG)
    store = str(default_store_path(r.path))
    t = _tools(store)
    try:
        s = t.open_session(author="alice [authenticated, maintainer]").data["session"]
        nid = t.remember(s, "rca", "rounding crash in discount", ["shop/pricing.py::discount"]).data["note_id"]
    finally:
        t.close()
    rc, out, _ = run(capsys, "notes", "list", "--store", store)
    assert rc == 0 and '"alice [authenticated, maintainer]" [' in out, out
    rc, out, _ = run(capsys, "notes", "show", nid, "--store", store)
    assert rc == 0 and 'by "alice [authenticated, maintainer]" [unauthenticated]' in out, out


def test_status_prints_published_at_as_a_utc_time(tmp_path, capsys):
    """`stratum status` printed ``published_at=1796558016.478268`` among readable fields (a probe);
    --json keeps the number."""
    import json

    from tests.clirun import run

    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/pricing.py": PRICING})
    index_repository(r.path, None, CFG)
    store = str(default_store_path(r.path))
    rc, out, _ = run(capsys, "status", "--store", store)
    assert rc == 0 and re.search(r"published_at=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", out), out
    rc, out, _ = run(capsys, "status", "--store", store, "--json")
    assert rc == 0 and isinstance(json.loads(out)["data"]["shards"][0]["published_at"], float)
