"""Staleness in a branch session, through the real Tools over a real git repository indexed by the
real pipeline (a probe): a note's staleness is judged against the code the session sees, the same in
remember, get, walk and search; and a branch answer is not warned about the main checkout's work tree
or HEAD, which are not its code."""

from __future__ import annotations

from pipeline.gitio import GitFreshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
DISCOUNT = "shop/pricing.py::discount"
REDEEM = "shop/loyalty.py::redeem_points"
ALPHA = "shop/pricing.py::alpha_rate"
ALPHA_RATE = "\n\n\ndef alpha_rate():\n    return 7\n"
PRICING = "def discount(total, pct):\n    return round(total * (1 - pct / 100), 2)\n" + ALPHA_RATE
CART = "def total(items):\n    return sum(items)\n"


def _pricing(floor: str) -> str:
    return f"def discount(total, pct):\n    return max({floor}, total * (1 - pct / 100))\n" + ALPHA_RATE


def _loyalty(cap: int) -> str:
    return f"def redeem_points(points, total):\n    return total - min(points, {cap})\n"


def _repo(tmp_path) -> tuple[Repo, str]:
    """main (two commits, the second indexed); branch feature edits discount and adds redeem_points;
    branch other adds a file."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/cart.py": CART})
    r.commit("cart", {"shop/cart.py": CART + "\n\ndef count(items):\n    return len(items)\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("loyalty", {"shop/pricing.py": _pricing("0.0"), "shop/loyalty.py": _loyalty(50)})
    git(r.path, "checkout", "-q", "-b", "other", "main")
    r.commit("ship", {"shop/ship.py": "def fee(w):\n    return w * 2\n"})
    git(r.path, "checkout", "-q", "main")
    return r, str(store)


def _said(items, nid: str) -> list[str]:
    """The stale warnings of note NID's item among ITEMS (it must be there)."""
    it = next(i for i in items if i.id == nid)
    return [w for w in it.warnings if w.startswith("stale")]


def _four(t: Tools, sid: str, kind: str, text: str, target: str) -> dict[str, bool]:
    """Whether the note (KIND, TEXT) about TARGET is stale in remember (written, or a repeat of
    one already written in this session's branch), get, walk and search."""
    r = t.remember(sid, kind, text, [target])
    nid = r.data["note_id"]
    return {"remember": bool(_said(r.items, nid)), **_three(t, sid, nid, kind, text, target)}


def _three(t: Tools, sid: str, nid: str, kind: str, text: str, target: str) -> dict[str, bool]:
    """Whether note NID is stale on TARGET's item (get), in walk --edge notes and in search."""
    got = {n["id"]: n["stale"] for n in t.get(sid, target).items[0].notes}
    return {"get": got[nid], "walk": bool(_said(t.walk(sid, target, edges=["notes"]).items, nid)),
            "search": bool(_said(t.search(sid, text, kinds=[kind]).items, nid))}


def test_a_notes_staleness_on_a_branch_is_judged_against_the_branchs_code_by_every_tool(tmp_path):
    r, store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    sid = t.open_session(branch="feature").data["session"]
    notes = [("failure", "capping discount at zero broke rounding", DISCOUNT),     # base code the branch changed
             ("insight", "redeem caps points at fifty", REDEEM)]                   # code only the branch has
    fresh = {"remember": False, "get": False, "walk": False, "search": False}
    for kind, text, target in notes:         # just written against the branch's code: fresh everywhere
        assert _four(t, sid, kind, text, target) == fresh, target
    # and the ranking weighs it as fresh: it ranked 4th at half its score, "stale ... counted x0.5",
    # while its item said fresh (signals.BranchSignals)
    first = t.search(sid, "capping discount at zero broke rounding").items[0]
    assert first.kind == "failure" and "x0.5" not in first.why, (first.kind, first.why)
    # on another branch the note about feature's redeem_points is pending there, not gone here
    other = t.open_session(branch="other").data["session"]
    it = next(i for i in t.search(other, "redeem caps points at fifty", kinds=["insight"]).items
              if i.kind == "insight")
    assert not _said([it], it.id) and any(w.startswith("pending:") and "branch feature" in w for w in it.warnings)
    # a note written on main about alpha_rate, which the branch left as it was (it changed its file)
    base = t.open_session().data["session"]
    said = "alpha rate is the legacy seven percent"
    nid = t.remember(base, "insight", said, [ALPHA]).data["note_id"]
    # judged by the function, as a note on main is: fresh (it was stale by its file before)
    assert _three(t, sid, nid, "insight", said, ALPHA) == {"get": False, "walk": False, "search": False}
    assert _three(t, base, nid, "insight", said, ALPHA) == {"get": False, "walk": False, "search": False}
    t.close()

    # a later commit of the branch changes both: stale everywhere in a session on it
    git(r.path, "checkout", "-q", "feature")
    r.commit("loyalty 2", {"shop/pricing.py": _pricing("1.0"), "shop/loyalty.py": _loyalty(60)})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([store], overlay_builder=builder(CFG))
    sid = t.open_session(branch="feature").data["session"]
    for kind, text, target in notes:
        assert _four(t, sid, kind, text, target) == dict.fromkeys(fresh, True), target
    t.close()


def _tools(store: str) -> Tools:
    t = Tools.open([store], overlay_builder=builder(CFG), freshness=GitFreshness())
    assert t.memory.freshness is not None
    t.memory.freshness.probe_seconds = 0        # look again on every call: the test edits between calls
    return t


def test_a_branch_answer_is_not_stale_for_an_edit_in_the_main_checkout(tmp_path):
    r, store = _repo(tmp_path)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", str(wt), "feature")
    (r.path / "shop" / "cart.py").write_text(CART + "# edited in the main checkout\n")
    t = _tools(store)
    base = t.get(t.open_session().data["session"], "shop/cart.py").envelope
    assert base.stale and any("uncommitted changes in shop/cart.py" in w for w in base.warnings)   # the checkout's
    feature = git(r.path, "rev-parse", "feature").strip()
    for opened in ({"branch": "feature"}, {"worktree": str(wt)}, {"commit": feature}):
        sid = t.open_session(**opened).data["session"]
        for r_ in (t.get(sid, "shop/cart.py"), t.search(sid, "total items"), t.status(sid)):
            env = r_.envelope
            assert not env.stale and env.commit == feature, (opened, env.warnings)
            assert [w for w in env.warnings if not w.startswith("branch overlay")] == [], (opened, env.warnings)
    # a worktree's own uncommitted edit is its answer, not staleness
    (wt / "shop" / "cart.py").write_text(CART + "\n\ndef worktree_only_helper():\n    return 0\n")
    sid = t.open_session(worktree=str(wt)).data["session"]
    env = t.get(sid, "shop/cart.py::worktree_only_helper").envelope
    assert not env.stale and not any("uncommitted" in w for w in env.warnings), env.warnings
    t.close()


def test_a_branch_answer_is_not_stale_for_a_detached_main_checkout(tmp_path):
    r, store = _repo(tmp_path)
    main = git(r.path, "rev-parse", "main").strip()
    git(r.path, "checkout", "-q", "--detach", "main~1")      # shop/cart.py differs from the index there
    t = _tools(store)
    base = t.get(t.open_session().data["session"], "shop/cart.py").envelope
    assert base.stale and any("HEAD is" in w for w in base.warnings)                 # the checkout's answer
    sid = t.open_session(branch="main").data["session"]
    for r_ in (t.get(sid, "shop/cart.py"), t.walk(sid, "shop/cart.py"), t.status(sid)):
        env = r_.envelope
        assert not env.stale and env.commit == main, env.warnings
        assert not any("HEAD" in w or "uncommitted" in w for w in env.warnings), env.warnings
    t.close()
