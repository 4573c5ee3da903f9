"""Probe findings about notes, as a user meets them through the real CLI on a real index: "" names
the repository, a target given twice is kept once, superseding a retracted note warns,
`stratum notes show` shows a mined history node, and the index report's orphaned count agrees
with its by_status."""

from __future__ import annotations

import json
import shutil

import pytest

from stratum.cli import main
from stratum.store import Store
from tests.gitrepo import git, sample_python_repo


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """(repository, store) of the sample repository indexed without vectors (the real pipeline)."""
    base = tmp_path_factory.mktemp("probe")
    repo = sample_python_repo(base / "shop")
    store = base / "store"
    assert main(["index", str(repo.path), "--store", str(store), "--no-embed", "--json"]) == 0
    return repo, store


@pytest.fixture()
def store(indexed, tmp_path, capsys):
    copy = tmp_path / "store"
    shutil.copytree(indexed[1], copy, ignore=shutil.ignore_patterns("deltalog"))
    capsys.readouterr()
    return copy


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def remember(capsys, store, kind, text, *about, supersedes=()) -> dict:
    argv = ["remember", kind, text, "--json", "--store", str(store)]
    for a in about:
        argv += ["--about", a]
    for s in supersedes:
        argv += ["--supersedes", s]
    rc, out, err = run(capsys, *argv)
    assert rc == 0, err
    return json.loads(out)


def shown(capsys, store, nid) -> dict:
    rc, out, err = run(capsys, "notes", "show", nid, "--json", "--store", str(store))
    assert rc == 0, err
    return json.loads(out)


def test_an_empty_about_names_the_repository_as_documented(store, capsys):
    """docs/notes.md: the resolver takes "" for the repository; remember refused it ("." worked)."""
    for kind, about in (("insight", ""), ("rca", ""), ("insight", ".")):
        nid = remember(capsys, store, kind, f"a {kind} about the whole repository {about!r}", about)["data"]["note_id"]
        targets = shown(capsys, store, nid)["about"]
        assert [(t["kind"], t["path"], t["given"]) for t in targets] == [("repo", "", about)]
    rc, out, err = run(capsys, "notes", "list", "--store", str(store))
    assert rc == 0 and out.count("about: the repository") == 3, out


def test_a_target_given_twice_is_kept_once(store, capsys):
    nid = remember(capsys, store, "rca", "totals round twice", "shop/cart.py", "./shop/cart.py", "shop/cart.py",
                   "shop/cart.py::Cart.total", "shop/", "shop")["data"]["note_id"]
    about = shown(capsys, store, nid)["about"]
    assert [(t["path"], t["qualname"], t["given"]) for t in about] == [
        ("shop/cart.py", "", "shop/cart.py"), ("shop/cart.py", "Cart.total", "shop/cart.py::Cart.total"),
        ("shop", "", "shop/")]


def test_superseding_a_retracted_note_warns_in_the_answer(store, capsys):
    old = remember(capsys, store, "insight", "pricing is cached per process", "shop/pricing.py")["data"]["note_id"]
    assert run(capsys, "notes", "retract", old, "--reason", "wrong", "--store", str(store))[0] == 0
    answer = remember(capsys, store, "insight", "pricing is read per call", "shop/pricing.py", supersedes=[old])
    (item,) = answer["items"]
    assert any(old in w and "already retracted" in w for w in item["warnings"]), item["warnings"]
    new = answer["data"]["note_id"]
    rc, out, err = run(capsys, "notes", "show", new, "--store", str(store))
    assert rc == 0 and f"warning: it supersedes {old}, which was already retracted" in out, out
    # superseding an active note says nothing of the kind; retracting it later changes no past warning
    live = remember(capsys, store, "insight", "prices are floats", "shop/pricing.py")["data"]["note_id"]
    answer = remember(capsys, store, "insight", "prices are decimals", "shop/pricing.py", supersedes=[live])
    assert not any("retracted" in w for w in answer["items"][0]["warnings"])
    assert run(capsys, "notes", "retract", live, "--store", str(store))[0] == 0
    rc, out, _ = run(capsys, "notes", "show", answer["data"]["note_id"], "--store", str(store))
    assert rc == 0 and "already retracted" not in out


def test_notes_show_shows_a_mined_fix_node(indexed, store, capsys):
    repo, _ = indexed
    (fix,) = Store(store).snapshot().read("nodes", columns=["id"], where="kind = 'fix'").to_pylist()
    sha = git(repo.path, "rev-parse", "HEAD").strip()         # the sample's last commit is its fix
    got = shown(capsys, store, fix["id"])
    assert got["mined"] is True and got["kind"] == "fix" and got["commit"] == sha
    assert got["subject"] == "fix rounding bug in discount and cart total"
    assert [f["path"] for f in got["files"]] == ["shop/cart.py", "shop/pricing.py", "tests/test_cart.py"]
    rc, out, err = run(capsys, "notes", "show", fix["id"], "--store", str(store))
    assert rc == 0 and "mined from the history" in out and sha[:12] in out and "no note" not in out + err
    rc, out, err = run(capsys, "notes", "retract", fix["id"], "--store", str(store))
    assert rc == 2 and "mined fix node" in err and "cannot be retracted" in err
    (code,) = Store(store).snapshot().read("nodes", columns=["id"], where="path = 'shop/cart.py' AND kind = 'file'"
                                          ).to_pylist()
    rc, out, err = run(capsys, "notes", "show", code["id"], "--store", str(store))
    assert rc == 2 and "is a file node (shop/cart.py), not a note" in err


def test_the_reports_orphaned_count_agrees_with_by_status(tmp_path, capsys):
    """A retracted note whose file is then deleted is retracted, not orphaned: the report said
    orphaned 2 beside by_status orphaned 1."""
    repo = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    assert run(capsys, "index", str(repo.path), "--store", str(store), "--no-embed")[0] == 0
    gone = remember(capsys, store, "rca", "invoice totals drift", "shop/invoice.py")["data"]["note_id"]
    assert run(capsys, "notes", "retract", gone, "--store", str(store))[0] == 0
    remember(capsys, store, "insight", "invoices render per line", "shop/invoice.py")
    remember(capsys, store, "insight", "the cart sums lines", "shop/cart.py")
    repo.commit("drop invoices", delete=["shop/invoice.py"])
    rc, out, err = run(capsys, "index", str(repo.path), "--store", str(store), "--no-embed", "--json")
    assert rc == 0, err
    notes = json.loads(out)["notes"]
    assert notes["by_status"] == {"active": 1, "orphaned": 1, "retracted": 1}
    assert notes["orphaned"] == notes["by_status"]["orphaned"] == 1


def test_the_short_id_a_why_prints_opens_the_note(store, capsys):
    """A probe: "rca note n5629ef2" in a search why worked with `stratum get`, not `notes show`."""
    nid = remember(capsys, store, "rca", "totals round twice in cart", "shop/cart.py")["data"]["note_id"]
    assert shown(capsys, store, nid[:8])["id"] == nid
    rc, _, err = run(capsys, "notes", "retract", nid[:8], "--store", str(store))
    assert rc == 0, err
    assert shown(capsys, store, nid)["status"] == "retracted"
