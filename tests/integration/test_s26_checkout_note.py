"""A note written about code the checkout edited and has not committed is about the work tree's
version until an index takes that version in: every surface says so, none says "changed since",
and search does not halve its lift (``branchnotes.OnDefault``, ``IndexedHistory.unindexed``).

A probe (session 26, p2 defect 1): an agent edited ``discount``, then wrote an rca note about it
(the documented flow: edit, remember, commit, re-index). Until the re-index, get said "stale: the
code changed since", the note's item "stale: shop/pricing.py::discount changed since this note was
written", and search counted it x0.5: the order of events told backwards. Once an index has read the
work tree after the note, a different version there is a change since (the edit was changed again
or thrown away), as before. Real repositories, the real index job, overlay builder, Tools and CLI."""

from __future__ import annotations

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
OLD = 'def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2)\n'
NEW = 'def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2) if rate < 1 else 0.0\n'
AGAIN = 'def discount(total, rate):\n    """Discount."""\n    return 0.0 if rate >= 1 else round(total * (1 - rate), 2)\n'
CART = 'def cart_total(items):\n    """Sum."""\n    return sum(items)\n'
TEXT = "rate >= 1 gave negative totals; clamped now"
NOT_YET = "not committed and indexed yet"


def _edited_and_noted(tmp_path) -> tuple[Repo, str, str, str]:
    """main indexed; discount edited in the checkout (not committed) and an rca note written about
    it then. Returns (repo, store, the note's id, HEAD's short sha)."""
    r = Repo(tmp_path / "repo")
    head = r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": OLD, "shop/cart.py": CART})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    r.write({"shop/pricing.py": NEW})
    t = _tools(store)
    s = t.open_session().data["session"]
    got = t.remember(s, "rca", TEXT, ["shop/pricing.py::discount"])
    assert any("work tree's version of shop/pricing.py" in w for w in got.envelope.warnings)
    t.close()
    return r, store, got.data["note_id"], head[:12]


def _tools(store: str) -> Tools:
    return Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))


def _surfaces(store: str, nid: str) -> dict[str, list[str]]:
    """What each surface of a default-branch session says of note NID's code."""
    t = _tools(store)
    try:
        s = t.open_session().data["session"]
        out: dict[str, list[str]] = {}
        out["prefetch"] = [n["line"] for it in t.prefetch(s, ["shop/pricing.py"]).items for n in it.notes
                           if n["id"] == nid]
        s = t.open_session().data["session"]        # get again what prefetch sent
        (sym,) = t.get(s, "shop/pricing.py::discount", level="summary").items
        out["get symbol"] = [n["line"] for n in sym.notes if n["id"] == nid] + \
            ["stale" for n in sym.notes if n["id"] == nid and n["stale"]]
        (f,) = t.get(s, "shop/pricing.py").items
        out["get file"] = [n["line"] for n in f.notes if n["id"] == nid] + \
            ["stale" for n in f.notes if n["id"] == nid and n["stale"]]
        out["note item"] = list(t.get(s, nid).items[0].warnings)
        out["walk"] = [w for it in t.walk(s, "shop/pricing.py::discount", edges=["notes"]).items if it.id == nid
                       for w in it.warnings]
        hits = t.search(s, "negative totals rate discount").items
        out["search note"] = [w for it in hits if it.id == nid for w in it.warnings]
        out["search why"] = [it.why for it in hits if it.qualname == "discount"]
        return out
    finally:
        t.close()


def test_until_indexed_every_surface_says_the_note_is_about_the_work_trees_version(tmp_path, capsys):
    _, store, nid, head = _edited_and_noted(tmp_path)
    said = _surfaces(store, nid)
    at = f"uncommitted at HEAD {head} of branch main"
    for where in ("get symbol", "get file", "prefetch"):
        (line,) = said[where]                               # the note, not flagged stale
        assert "stale" not in line and "the work tree's version" in line and f"{at}, not indexed yet" in line, \
            (where, line)
    assert "on the work tree's version of discount (" in said["get file"][0]     # the file's item names the symbol
    line = (f"written about the work tree's version of shop/pricing.py::discount, {at}: the indexed version "
            f"differs ({NOT_YET})")
    for where in ("note item", "walk", "search note"):
        assert said[where] == [line], (where, said[where])
    (why,) = said["search why"]
    assert f"rca note {nid[:8]}" in why and "x0.5" not in why and "stale" not in why, why   # its lift whole

    rc, out, err = run(capsys, "notes", "list", "--store", store)
    assert rc == 0, err
    assert f"[on the work tree's version ({at}, not indexed yet)]" in out and "[stale]" not in out, out
    rc, out, err = run(capsys, "notes", "show", nid, "--store", store)
    assert rc == 0, err
    assert line in out and "changed since" not in out, out


def test_committed_and_indexed_it_is_fresh(tmp_path):
    r, store, nid, _ = _edited_and_noted(tmp_path)
    r.commit("clamp discount")
    said = _surfaces(store, nid)            # committed, not indexed yet: still the work tree's version
    assert said["note item"] and NOT_YET in said["note item"][0], said
    index_repository(r.path, store, CFG)
    said = _surfaces(store, nid)
    assert said["note item"] == said["walk"] == said["search note"] == [], said
    assert all("stale" not in x and "work tree" not in x for k in ("get symbol", "get file", "prefetch")
               for x in said[k]), said


def test_indexed_uncommitted_it_is_fresh(tmp_path):
    r, store, nid, _ = _edited_and_noted(tmp_path)
    index_repository(r.path, store, CFG)    # the index reads the work tree's uncommitted file
    said = _surfaces(store, nid)
    assert said["note item"] == [] and "stale" not in said["get symbol"][0], said


def test_changed_again_or_thrown_away_then_indexed_it_is_stale(tmp_path):
    for name, code in (("again", AGAIN), ("undone", OLD)):
        r, store, nid, _ = _edited_and_noted(tmp_path / name)
        r.write({"shop/pricing.py": code})
        index_repository(r.path, store, CFG)
        said = _surfaces(store, nid)
        assert said["note item"] == [f"stale: shop/pricing.py::discount changed since this note was written "
                                     f"({said['note item'][0][-11:-1]})"], (name, said)
        assert said["get symbol"][-1] == "stale" and "work tree" not in said["get symbol"][0], (name, said)
        (why,) = said["search why"]
        assert "x0.5" in why, (name, why)


def test_a_session_on_another_branch_reads_it_against_its_code(tmp_path):
    r, store, nid, head = _edited_and_noted(tmp_path)
    from tests.gitrepo import git

    git(r.path, "branch", "fc")             # fc at the indexed commit: its discount is the index's
    t = _tools(store)
    try:
        s = t.open_session(branch="fc").data["session"]
        (sym,) = t.get(s, "shop/pricing.py::discount", level="summary").items
        (line,) = [n["line"] for n in sym.notes if n["id"] == nid and not n["stale"]]
        assert f"the work tree's version (uncommitted at HEAD {head} of branch main, not indexed yet)" in line, line
        assert list(t.get(s, nid).items[0].warnings) == [
            f"written about the work tree's version of shop/pricing.py::discount, uncommitted at HEAD {head} of "
            f"branch main: this session's version differs ({NOT_YET})"]
    finally:
        t.close()
