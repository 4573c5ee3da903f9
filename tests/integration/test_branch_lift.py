"""In a session on a branch, the notes steer the branch's code: a note about a function the branch
changed lifts the branch's version of it above code the query's text matches better, and a note the
branch's change made stale lifts it less and says so (stratum.searchlists, signals.BranchListSignals),
over a real git repository indexed by the real pipeline and the real branch overlay builder."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
DISCOUNT = "shop/pricing.py::discount"
QUERY = "coupon stacking lets the cart total go negative"


def _repo(tmp_path) -> tuple[Repo, str]:
    """main: shop/pricing.py::discount and twelve cart helpers whose words match QUERY better;
    branch feature changes discount (a floor argument) and one helper (both in the branch's list)."""
    r = Repo(tmp_path / "repo")
    files = {"shop/__init__.py": "", "shop/pricing.py": "def discount(total, pct):\n    return total * (1 - pct / 100)\n"}
    for i in range(12):
        files[f"shop/cart{i}.py"] = (f"def cart_total_{i}(items):\n    '''the cart total of the items, never negative'''\n"
                                     f"    return max(0, sum(items) + {i})\n")
    r.commit("init", files)
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("floor", {"shop/pricing.py": "def discount(total, pct, floor=0.0):\n    return max(floor, total * (1 - pct / 100))\n",
                       "shop/cart0.py": files["shop/cart0.py"] + "\n\ndef cart_count(items):\n    return len(items)\n"})
    git(r.path, "checkout", "-q", "main")
    return r, str(store)


def _discount(items):
    """(position, item) of discount's code item among a page's items."""
    return next((k, it) for k, it in enumerate(items) if it.kind == "function" and it.name == "discount")


def test_a_note_lifts_the_branchs_version_of_the_code_it_is_about(tmp_path):
    _, store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    feature = t.open_session(branch="feature").data["session"]
    before = t.search(feature, QUERY, page_size=40).items     # discount is 13th, as on main: no note yet
    k0, it0 = _discount(before)
    rival = next(i for i in before if i.name == "cart_total_0")
    assert rival.score > it0.score          # the branch's helper matches the query's text better

    nid = t.remember(feature, "rca", "coupon stacking lets the subtotal go below zero", [DISCOUNT]).data["note_id"]
    items = t.search(feature, QUERY).items
    k, it = _discount(items)
    # the branch's version (its floor argument), lifted by the note above the cart helpers the
    # query's text matches better, and saying so
    assert "floor" in it.text, it.text
    assert k < k0 and it.score > next(i for i in items if i.name == "cart_total_0").score > 0
    assert all(i.kind == "rca" for i in items[:k]), [(i.kind, i.path) for i in items[:k + 1]]
    assert f"rca note {nid[:8]}" in it.why, it.why
    assert "stale" not in it.why
    # the default branch's version is not served beside it
    assert [i for i in items if i.name == "discount" and "floor" not in i.text] == []
    t.close()


def test_a_note_the_branch_made_stale_lifts_the_branch_code_less_and_says_why(tmp_path):
    _, store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    base = t.open_session().data["session"]
    feature = t.open_session(branch="feature").data["session"]
    text = {sid: _discount(t.search(sid, QUERY, page_size=40).items)[1].score for sid in (base, feature)}
    t.remember(base, "rca", "coupon stacking lets the subtotal go below zero", [DISCOUNT])
    on_main = _discount(t.search(base, QUERY).items)[1]
    items = t.search(feature, QUERY).items
    _, it = _discount(items)
    assert "floor" in it.text and "floor" not in on_main.text
    # written against the default branch's discount, which the branch changed: counted x0.5, said
    assert "stale" in it.why and "x0.5" in it.why, it.why
    assert "stale" not in on_main.why
    lift, lift_main = it.score - text[feature], on_main.score - text[base]
    assert 0 < lift < lift_main, (lift, lift_main)
    # yet it still lifts the branch's code above the helpers with no note
    helpers = [i for i in items if i.path.startswith("shop/cart")]
    assert helpers and it.score > max(h.score for h in helpers)
    t.close()


def test_a_leading_note_stays_above_the_branch_code_its_query_names(tmp_path):
    # a query naming a function the branch added: on one list the note whose words the query is
    # leads and the named code follows it (rankplace.named_first); placed apart from the note, the
    # branch's function rose 1 above it ("named in the query")
    _, store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    feature = t.open_session(branch="feature").data["session"]
    query = "cart_count miscounts a cart whose coupons stacked"
    nid = t.remember(feature, "rca", query, ["shop/cart0.py::cart_count"]).data["note_id"]
    items = t.search(feature, query).items
    assert [(i.kind, i.name) for i in items[:2]] == [("rca", query), ("function", "cart_count")], \
        [(i.kind, i.name, i.score, i.why) for i in items[:3]]
    assert "named in the query" in items[1].why and f"rca note {nid[:8]}" in items[1].why
    assert items[1].score <= items[0].score < 1
    t.close()
