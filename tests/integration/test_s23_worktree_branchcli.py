"""The CLI inside a linked worktree with --branch/--commit/--worktree, and `notes show`/`list`
judging a branch's note as `get` does: the real CLI (``stratum.cli.main``) over real git repositories,
worktrees and stores indexed by the real pipeline."""

from __future__ import annotations

import json

import pytest

from stratum.cli import main
from stratum.config import default_store_path
from tests.gitrepo import Repo, git

PRICING = ('"""Pricing."""\n\n\ndef discount(total, rate):\n    """Discount."""\n'
           '    return round(total * (1 - rate), 2)\n\n\n'
           'def shipping(weight):\n    """Shipping."""\n    return 5.0 + weight\n')


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def _json(capsys, *argv: str) -> dict:
    rc, out, err = _run(capsys, *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


@pytest.fixture
def repo(tmp_path, capsys):
    """main (indexed) with shop/pricing.py; branch fc changes discount and adds tax."""
    r = Repo(tmp_path / "main")
    r.commit("init", {"shop/pricing.py": PRICING})
    assert main(["index", str(r.path), "--no-embed", "--no-ray"]) == 0
    git(r.path, "checkout", "-q", "-b", "fc")
    r.commit("fc: precision", {"shop/pricing.py": PRICING.replace("rate), 2)", "rate), 3)") +
                               '\n\ndef tax(x):\n    """Tax."""\n    return x\n'})
    git(r.path, "checkout", "-q", "main")
    capsys.readouterr()
    return r


def test_branch_commit_and_worktree_options_inside_a_linked_worktree_use_the_main_store(repo, tmp_path,
                                                                                        capsys, monkeypatch):
    """`get X --branch fc` (--commit, --worktree, search, remember) in a linked worktree said "no index
    at <worktree>/.stratum: run `stratum index` first" while a plain query there used the main store."""
    wt = tmp_path / "wt"
    git(repo.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "shop" / "pricing.py").write_text(PRICING.replace("5.0 + weight", "6.0 + weight"))
    git(wt, "commit", "-qam", "fw: shipping")
    wt_head = git(wt, "rev-parse", "HEAD").strip()
    monkeypatch.chdir(wt)

    got = _json(capsys, "get", "shop/pricing.py::discount", "--level", "full", "--branch", "fc")
    assert "rate), 3)" in got["items"][0]["text"], got["items"][0]["text"]          # fc's version
    got = _json(capsys, "get", "shop/pricing.py::shipping", "--level", "full", "--commit", "HEAD")
    assert "6.0 + weight" in got["items"][0]["text"]            # this worktree's HEAD, not the main checkout's
    assert any(wt_head[:12] in w for w in got["envelope"]["warnings"]), got["envelope"]["warnings"]
    got = _json(capsys, "get", "shop/pricing.py::shipping", "--level", "full", "--commit", "HEAD~1")
    assert "5.0 + weight" in got["items"][0]["text"]
    got = _json(capsys, "get", "shop/pricing.py::shipping", "--level", "full", "--worktree", ".")
    assert "6.0 + weight" in got["items"][0]["text"]
    got = _json(capsys, "search", "tax", "--branch", "fc", "--kind", "function")
    assert ("shop/pricing.py", "tax") in {(i["path"], i["qualname"]) for i in got["items"]}, got["items"]
    nid = _json(capsys, "remember", "insight", "tax is a stub", "--about", "shop/pricing.py::tax",
                "--branch", "fc")["data"]["note_id"]
    rc, _, err = _run(capsys, "get", "x", "--commit", "nosuch")
    assert rc == 2 and "nosuch" in err and str(wt) in err, err
    assert not default_store_path(wt).exists()           # nothing advised or written a store of its own here

    monkeypatch.chdir(repo.path)                    # the note is in the main store, written on branch fc
    notes = {n["id"]: n for n in _json(capsys, "notes", "list")["notes"]}
    assert notes[nid]["branch"] == "fc", notes[nid]
    # an explicit --store still wins, also with a branch option
    monkeypatch.chdir(wt)
    rc, _, err = _run(capsys, "get", "shop/pricing.py::tax", "--branch", "fc", "--store", str(wt / ".stratum"))
    assert rc != 0 and str(wt / ".stratum") in err, err


def test_notes_show_and_list_judge_a_branch_note_as_get_does(repo, capsys, monkeypatch):
    """A note written --branch fc about code fc changed is about fc's version on the default branch:
    `get ID` said so, `notes show ID` printed "stale: ... changed" and `notes list --json` set stale."""
    monkeypatch.chdir(repo.path)
    disc = _json(capsys, "remember", "rca", "discount: 3 decimals", "--about", "shop/pricing.py::discount",
                 "--branch", "fc")["data"]["note_id"]
    tax = _json(capsys, "remember", "insight", "tax: a stub", "--about", "shop/pricing.py::tax",
                "--branch", "fc")["data"]["note_id"]
    ship = _json(capsys, "remember", "rca", "shipping: flat fee",
                 "--about", "shop/pricing.py::shipping")["data"]["note_id"]
    repo.commit("main: shipping", {"shop/pricing.py": PRICING.replace("5.0 + weight", "4.0 + weight")})
    assert main(["index", str(repo.path), "--no-embed", "--no-ray"]) == 0
    capsys.readouterr()

    for nid in (disc, tax, ship):
        said = _json(capsys, "get", nid)["items"][0]["warnings"]
        shown = _json(capsys, "notes", "show", nid)
        assert shown["warnings"] == said, (nid, shown["warnings"], said)
        assert bool(shown["stale"]) == any(w.startswith("stale: ") for w in said), shown["stale"]
    assert any("written on branch fc" in w for w in _json(capsys, "get", disc)["items"][0]["warnings"])
    rc, out, _ = _run(capsys, "notes", "show", disc)
    assert rc == 0 and "about that version of shop/pricing.py::discount" in out and "stale" not in out, out
    rc, out, _ = _run(capsys, "notes", "show", ship)       # a note main's own change made stale still is
    assert rc == 0 and "stale: shop/pricing.py::shipping changed" in out, out

    listed = {n["id"]: n for n in _json(capsys, "notes", "list")["notes"]}
    assert listed[disc]["stale"] is None and listed[ship]["stale"] is not None
    rc, out, _ = _run(capsys, "notes", "list")
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("n")}
    assert "[on branch fc at" in lines[disc] and "[stale]" not in lines[disc], lines[disc]
    assert "[pending]" in lines[tax] and "[stale]" not in lines[tax], lines[tax]
    assert "[stale]" in lines[ship], lines[ship]
