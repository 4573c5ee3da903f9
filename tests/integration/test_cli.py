"""The `stratum` command as a user runs it: a real subprocess over a real store."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from stratum.config import default_store_path

pytestmark = pytest.mark.slow


def stratum(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_query_commands_answer_with_cost(indexed_store, tmp_path):
    import shutil

    # a private copy: this test writes notes, and notes lift their targets in later tests' searches
    store = tmp_path / "store"
    shutil.copytree(indexed_store[1], store)
    p = stratum("tree", "--store", str(store), "--depth", "2")
    assert p.returncode == 0, p.stderr
    assert "shop/cart.py" in p.stdout and "tokens (budget" in p.stdout

    p = stratum("get", "shop/cart.py::Cart.total", "--level", "full", "--json", "--store", str(store))
    d = json.loads(p.stdout)
    assert d["items"][0]["qualname"] == "Cart.total" and d["envelope"]["tokens_returned"] > 0

    p = stratum("walk", "shop/cart.py", "--edge", "imports", "--direction", "in", "--json", "--store", str(store))
    assert {i["path"] for i in json.loads(p.stdout)["items"]} == {"shop/invoice.py", "tests/test_cart.py"}
    p = stratum("walk", "shop/cart.py", "--edge", "tests", "--json", "--store", str(store))    # out: none
    d = json.loads(p.stdout)
    assert d["items"] == [] and any('direction "in"' in w for w in d["envelope"]["warnings"]), d["envelope"]

    p = stratum("search", "render invoice text", "--json", "--store", str(store))
    assert json.loads(p.stdout)["items"][0]["path"] == "shop/invoice.py"

    # an insight may be about the repository as a whole (no --about); an rca must name its code
    p = stratum("remember", "insight", "the test suite needs TZ=UTC", "--json", "--store", str(store))
    assert p.returncode == 0, p.stderr
    p = stratum("remember", "rca", "rounding", "--store", str(store))
    assert p.returncode == 2 and "must say what code it is about" in p.stderr
    p = stratum("remember", "rca", "Cart.total rounds each line before summing", "--about", "shop/cart.py::Cart.total",
                "--store", str(store))
    assert p.returncode == 0, p.stderr
    # the human output says why an item ranks where its words alone would not (the why --json carries)
    p = stratum("search", "why is the cart total rounded wrong", "--store", str(store))
    whys = [ln for ln in p.stdout.splitlines() if "  (why: " in ln]
    assert any("rca note" in ln and "shop/cart.py" in ln for ln in whys), p.stdout
    # the local CLI writes as the OS user, a maintainer; a claimed --author is recorded, not trusted
    p = stratum("remember", "insight", "claimed by someone else", "--author", "eve", "--store", str(store))
    assert p.returncode == 0, p.stderr
    notes = json.loads(stratum("notes", "list", "--json", "--store", str(store)).stdout)["notes"]
    by = {n["text"]: (n["author"], n["maintainer"]) for n in notes}
    assert by["claimed by someone else"] == ("eve", False)
    assert by["the test suite needs TZ=UTC"][0].startswith("os:") and by["the test suite needs TZ=UTC"][1]
    p = stratum("status", "--store", str(store))             # status's shards: readable lines, no dict
    assert p.returncode == 0 and "{'" not in p.stdout and "repo=shop" in p.stdout, p.stdout


def test_user_errors_are_one_line_with_exit_2(indexed_store, tmp_path):
    _, store, _ = indexed_store
    p = stratum("get", "shop/missing.py", "--store", str(store))
    assert p.returncode == 2 and p.stderr.strip().startswith("stratum: error: no node")
    assert "Traceback" not in p.stderr
    (tmp_path / "plain").mkdir()
    p = stratum("index", str(tmp_path / "plain"), "--store", str(tmp_path / "s"))
    assert p.returncode == 2 and "not inside a git repository" in p.stderr
    p = stratum("tree", "--store", str(tmp_path / "nothing"))
    assert p.returncode != 0 and "no index" in p.stderr
    p = stratum("walk", "shop/cart.py", "--edge", "callers", "--store", str(store))
    assert p.returncode == 2 and "calls" in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = stratum("notes", "list", "--status", "bogus", "--store", str(store))
    assert p.returncode == 2 and "invalid choice" in p.stderr


def test_walk_follows_calls_both_ways(indexed_store):
    """Who a method calls, and who calls a function: the edges an agent follows before changing it."""
    _, store, _ = indexed_store
    out = json.loads(stratum("walk", "shop/cart.py::Cart.total", "--edge", "calls", "--json", "--store",
                             str(store)).stdout)
    called = {(i["path"], i["qualname"]): i for i in out["items"]}
    assert set(called) == {("shop/pricing.py", "discount"), ("shop/pricing.py", "price_of")}, called
    assert all(i["edge"] == "calls" and i["direction"] == "out" for i in out["items"])
    meta = called[("shop/pricing.py", "discount")]["meta"]     # how the index linked it, the call as written
    assert (meta["how"], meta["as"]) == ("imported name", "discount") and int(meta["line"]) > 1, meta
    # a file: who calls anything in it, and through which of its definitions
    out = json.loads(stratum("walk", "shop/pricing.py", "--edge", "calls", "--direction", "in", "--json",
                             "--store", str(store)).stdout)
    assert [(i["path"], i["qualname"]) for i in out["items"]] == [("shop/cart.py", "Cart.total")]
    assert out["items"][0]["meta"]["from"] in ("discount", "price_of")
    out = json.loads(stratum("walk", "shop/pricing.py::price_of", "--edge", "calls", "--direction", "in",
                             "--json", "--store", str(store)).stdout)
    assert {(i["path"], i["qualname"]) for i in out["items"]} == {("shop/cart.py", "Cart.total")}
    out = json.loads(stratum("walk", "tests/test_cart.py::test_total", "--edge", "calls", "--json", "--store",
                             str(store)).stdout)       # Cart() is its class; c.add/c.total: the only add/total
    assert {(i["path"], i["qualname"]) for i in out["items"]} == {
        ("shop/cart.py", "Cart"), ("shop/cart.py", "Cart.add"), ("shop/cart.py", "Cart.total")}


def test_search_reads_a_whole_failure_piped_in(indexed_store):
    """`pytest -x 2>&1 | stratum search -`: the whole failure (over a query's 2,000 characters) from
    standard input, its frame first; more than a pasted traceback may hold is one clear error."""
    _, store, _ = indexed_store
    got = json.loads(stratum("get", "shop/cart.py::Cart.total", "--level", "summary", "--json", "--store",
                             str(store)).stdout)
    line = got["items"][0]["start_line"] + 1
    trace = "Traceback (most recent call last):\n" + "".join(
        f'  File "/usr/lib/python3.11/runner{i}.py", line {10 + i}, in run\n    step()\n' for i in range(40)) + \
        f'  File "/srv/venv/lib/python3.11/site-packages/shop/cart.py", line {line}, in total\nKeyError: \'x\'\n'
    assert len(trace) > 2000
    cmd = [sys.executable, "-m", "stratum.cli", "search", "-", "--json", "--store", str(store)]
    p = subprocess.run(cmd, input=trace, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    first = json.loads(p.stdout)["items"][0]
    assert first["qualname"] == "Cart.total" and first["why"].startswith("traceback frame: shop/cart.py")
    p = subprocess.run(cmd, input="x" * 40000, capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "standard input holds more than 32000" in p.stderr and "Traceback" not in p.stderr


def test_help_lists_every_command():
    p = stratum("--help")
    for cmd in ("index", "tree", "get", "walk", "search", "status", "remember", "notes", "cochange",
                "history", "serve", "mcp"):
        assert cmd in p.stdout


def test_page_token_from_one_command_works_in_the_next(indexed_store):
    _, store, _ = indexed_store
    first = json.loads(stratum("tree", "--store", str(store), "--depth", "3", "--page-size", "3", "--json").stdout)
    assert first["envelope"]["has_more"]
    p = stratum("tree", "--store", str(store), "--depth", "3", "--page-size", "3", "--json",
                "--page-token", first["envelope"]["next_page_token"])
    assert p.returncode == 0, p.stderr
    second = json.loads(p.stdout)
    assert second["envelope"]["page"] == 2
    assert not {i["id"] for i in first["items"]} & {i["id"] for i in second["items"]}


def test_an_os_error_is_one_clear_line_not_a_traceback(tmp_path):
    """A store path under a file names the path in one line (a user error since session 32: exit 2,
    tests/integration/test_s32_store_is_file.py; it was the OS refusal, exit 1)."""
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "r")
    r.commit("one", {"a.py": "def a():\n    return 1\n"})
    (tmp_path / "afile").write_text("not a directory")
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "index", str(r.path), "--no-embed",
                        "--store", str(tmp_path / "afile" / "s")], capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert "stratum: error: --store" in p.stderr and "afile, a file" in p.stderr and len(p.stderr.splitlines()) == 1


def test_a_reader_that_leaves_early_is_not_an_error(indexed_store):
    """`stratum tree --json | head -0`: the closed pipe ends the command quietly (exit 141, as
    SIGPIPE would), not with "error: Broken pipe" or a trace a script would retry on."""
    _, store, _ = indexed_store
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "tree", "--store", str(store), "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()                    # the reader is gone before the answer is written
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "error" not in err, err


def test_inside_a_linked_worktree_queries_answer_for_it_from_the_main_store(tmp_path):
    """`git worktree add` (what parallel agents use): the worktree has no store of its own, so a
    query there answers for the worktree from the main checkout's store, uncommitted files too,
    instead of "no index"."""
    from tests.gitrepo import Repo, git

    r = Repo(tmp_path / "main")
    r.commit("one", {"pkg/a.py": "def alpha():\n    return 1\n"})
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "index", str(r.path), "--no-embed", "--no-ray"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "--detach", str(wt), "HEAD")
    (wt / "pkg" / "b.py").write_text("def quokka_in_worktree():\n    return 2\n")
    run = dict(capture_output=True, text=True, timeout=300, cwd=str(wt))
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "search", "quokka_in_worktree", "--json"], **run)
    assert p.returncode == 0, p.stderr
    first = json.loads(p.stdout)["items"][0]
    assert (first["path"], first["qualname"]) == ("pkg/b.py", "quokka_in_worktree")
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "get", "pkg/a.py::alpha", "--json"], **run)
    assert p.returncode == 0 and json.loads(p.stdout)["items"][0]["qualname"] == "alpha", p.stderr
    # a note written from the worktree is listed, shown and retracted from it (a probe: "0 note(s)")
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "remember", "insight", "alpha returns one",
                        "--about", "pkg/a.py::alpha", "--json"], **run)
    assert p.returncode == 0, p.stderr
    nid = json.loads(p.stdout)["data"]["note_id"]
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "notes", "list", "--json"], **run)
    assert p.returncode == 0 and nid in {n["id"] for n in json.loads(p.stdout)["notes"]}, p.stderr
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "notes", "retract", nid], **run)
    assert p.returncode == 0, p.stderr
    assert not default_store_path(wt).exists()           # the main store served it; nothing written here
    # and a store that does not exist is said, not "0 note(s)"
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "notes", "list", "--store", str(tmp_path / "none")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and "no store at" in p.stderr, (p.returncode, p.stdout, p.stderr)
