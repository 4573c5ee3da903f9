"""A branch session over time, through the real Tools over a real git repository indexed by the real
pipeline (a session probe): it follows its branch's new commits and says so; a note written on the
branch reads as about the branch's version on the default branch, not as stale, until the branch is
merged; and `walk NOTE --edge about` reaches the branch's code the note is about."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
DISCOUNT = "shop/pricing.py::discount"
STACK = "shop/coupons.py::stack_coupons"
PRICING = "def discount(total, pct):\n    return total * (1 - pct / 100)\n"
FLOOR = "def discount(total, pct, floor=0.0):\n    return max(floor, total * (1 - pct / 100))\n"
COUPONS = "def stack_coupons(codes):\n    return sorted(codes)\n"
CART = "from shop.pricing import discount\n\n\ndef cart_total(items, pct):\n    return discount(sum(items), pct)\n"


def _repo(tmp_path) -> tuple[Repo, str, str]:
    """main indexed; feature changes discount (a floor) and adds stack_coupons: (repo, store, c1)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    c1 = r.commit("floor", {"shop/pricing.py": FLOOR, "shop/coupons.py": COUPONS})
    git(r.path, "checkout", "-q", "main")
    return r, store, c1


def _on_feature(r: Repo, files: dict[str, str]) -> str:
    git(r.path, "checkout", "-q", "feature")
    c = r.commit("more", files)
    git(r.path, "checkout", "-q", "main")
    return c


def _stale(items, nid: str) -> list[str]:
    return [w for w in next(i for i in items if i.id == nid).warnings if w.startswith("stale")]


def test_a_branch_session_follows_its_branchs_new_commit_and_says_so(tmp_path):
    r, store, c1 = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    opened = t.open_session(branch="feature")
    sid = opened.data["session"]
    assert opened.envelope.commit == c1
    assert t.status(sid).data["overlay"]["stores"][store]["commit"] == c1
    on_discount = t.remember(sid, "rca", "the floor keeps discount from going negative", [DISCOUNT]).data["note_id"]
    on_coupons = t.remember(sid, "insight", "stack_coupons sorts the codes", [STACK]).data["note_id"]

    # the agent commits on its branch (a new function, stack_coupons changed), then asks again
    c2 = _on_feature(r, {"shop/coupons.py": COUPONS.replace("sorted(codes)", "sorted(set(codes))")
                         + "\n\ndef coupon_value(code):\n    return len(code)\n"})
    got = t.get(sid, "shop/coupons.py::coupon_value")        # was NotFound: the session kept c1
    env = got.envelope
    assert got.items[0].name == "coupon_value" and env.commit == c2
    assert any(f"moved from {c1[:12]}" in w and c2[:12] in w for w in env.warnings), env.warnings
    again = t.get(sid, STACK).envelope
    assert again.commit == c2 and not any("moved from" in w for w in again.warnings), again.warnings  # said once
    view = t.status(sid).data["overlay"]
    assert view["stores"][store]["commit"] == c2 and view["followed"] == [[c1, c2]]
    assert view["follows"] and not view["behind"]
    # its notes are judged against the branch's code now: the one whose function c2 changed is stale,
    # the one about discount (its file untouched since) is not
    assert _stale(t.get(sid, on_coupons).items, on_coupons)
    assert not _stale(t.get(sid, on_discount).items, on_discount)
    assert [n["stale"] for n in t.get(sid, DISCOUNT).items[0].notes if n["id"] == on_discount] == [False]

    # the branch is deleted: the session stays at c2 and says it is behind
    git(r.path, "branch", "-q", "-D", "feature")
    env = t.get(sid, STACK).envelope
    assert env.commit == c2 and any("behind" in w and "cannot be followed" in w for w in env.warnings), env.warnings
    view = t.status(sid).data["overlay"]
    assert view["behind"] and "feature" in view["behind_because"]
    t.close()


def test_a_note_written_on_a_branch_is_about_its_version_on_the_default_branch(tmp_path):
    r, store, c1 = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    fs, ms = t.open_session(branch="feature").data["session"], t.open_session().data["session"]
    text = "the floor keeps discount from going negative"
    nid = t.remember(fs, "rca", text, [DISCOUNT]).data["note_id"]
    where = f"branch feature at {c1[:12]}"
    # on the default branch: about the branch's version, not "changed since this note was written"
    attached = [n for n in t.get(ms, DISCOUNT).items[0].notes if n["id"] == nid]
    assert [n["stale"] for n in attached] == [False] and f"on {where}" in attached[0]["line"], attached
    for items in (t.get(ms, nid).items, t.walk(ms, DISCOUNT, edges=["notes"]).items,
                  t.search(ms, text, kinds=["rca"]).items):
        said = next(i for i in items if i.id == nid).warnings
        assert not _stale(items, nid) and any(w.startswith(f"written on {where}") for w in said), said
    # and ranking does not count it as stale either (it said "stale: ... counted x0.5")
    ranked = next(i for i in t.search(ms, "discount floor negative").items if i.id == nid)
    assert "stale" not in ranked.why, ranked.why
    t.close()

    # merged and re-indexed: the default branch has that version; a later change there is a change since
    git(r.path, "merge", "-q", "feature")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    ms = t.open_session().data["session"]
    said = t.get(ms, nid).items[0].warnings
    assert not any(w.startswith(("stale", "written on")) for w in said), said
    r.commit("no floor", {"shop/pricing.py": FLOOR.replace("max(floor, ", "(")})
    t.close()
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    ms = t.open_session().data["session"]
    said = t.get(ms, nid).items[0].warnings
    assert any(w.startswith(f"stale: {DISCOUNT} changed since") for w in said), said
    assert not any(w.startswith("written on") for w in said), said
    t.close()


def test_walk_about_of_a_note_reaches_the_branchs_code_in_its_session(tmp_path):
    r, store, _ = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    fs = t.open_session(branch="feature").data["session"]
    pending = t.remember(fs, "insight", "stack_coupons sorts the codes", [STACK]).data["note_id"]
    changed = t.remember(fs, "rca", "the floor keeps discount from going negative", [DISCOUNT]).data["note_id"]

    def about(sid: str, nid: str) -> list[tuple[str, str]]:
        return [(i.name, i.text) for i in t.walk(sid, nid, edges=["about"]).items]

    assert [name for name, _ in about(fs, pending)] == ["stack_coupons"]      # was nothing: code only the branch has
    assert [(name, "floor" in text) for name, text in about(fs, changed)] == [("discount", True)]   # the branch's
    t.close()
    # merged into a new version of the default branch (the branch not merged): still reached
    r.commit("readme", {"README.md": "shop\n"})
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    fs = t.open_session(branch="feature").data["session"]
    assert [name for name, _ in about(fs, pending)] == ["stack_coupons"]
    assert [(name, "floor" in text) for name, text in about(fs, changed)] == [("discount", True)]
    assert about(t.open_session().data["session"], pending) == []              # no such code on the default branch
    t.close()


def test_the_builder_answers_what_the_branch_names_now_however_git_stores_it(tmp_path):
    """The builder's shortcut (git's ref files, no git run) must agree with git: loose refs, packed
    refs, a ref moved back, a branch and a tag of one name."""
    r, store, c1 = _repo(tmp_path)
    build = builder(CFG)
    assert build(store, "feature")["commit"] == c1
    c2 = _on_feature(r, {"shop/coupons.py": COUPONS + "\n\ndef two():\n    return 2\n"})
    assert build(store, "feature")["commit"] == c2
    git(r.path, "pack-refs", "--all")                 # the loose ref file is gone, packed-refs holds it
    assert build(store, "feature")["commit"] == c2
    c3 = _on_feature(r, {"shop/coupons.py": COUPONS + "\n\ndef three():\n    return 3\n"})
    assert build(store, "feature")["commit"] == c3
    git(r.path, "update-ref", "refs/heads/feature", c1)
    assert build(store, "feature")["commit"] == c1
    git(r.path, "tag", "feature", c3)                 # a tag of the same name comes first for git
    assert build(store, "feature")["commit"] == git(r.path, "rev-parse", "feature").strip() == c3


def test_a_note_written_on_one_branch_is_about_its_version_in_another_branchs_session(tmp_path):
    """A session on branch "other" (which left discount alone) read feature's note about its changed
    discount as "stale: ... changed since this note was written" (memory.BranchCode)."""
    r, store, c1 = _repo(tmp_path)
    git(r.path, "checkout", "-q", "-b", "other")
    r.commit("unrelated", {"shop/tax.py": "def vat(x):\n    return x * 0.2\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs, os_ = t.open_session(branch="feature").data["session"], t.open_session(branch="other").data["session"]
        nid = t.remember(fs, "rca", "the floor keeps discount from going negative", [DISCOUNT]).data["note_id"]
        where = f"branch feature at {c1[:12]}"
        attached = [n for n in t.get(os_, DISCOUNT).items[0].notes if n["id"] == nid]
        assert [n["stale"] for n in attached] == [False], attached
        said = t.get(os_, nid).items[0].warnings
        assert not any(w.startswith("stale") for w in said), said
        assert any(w.startswith(f"written on {where}") and "this session's differs" in w for w in said), said
    finally:
        t.close()


def test_a_session_whose_branch_was_merged_deleted_and_reindexed_keeps_answering(tmp_path):
    """Merge, delete the branch, re-index the default branch (a nightly job): every call of the open
    branch session, status too, was refused ("no commit or branch 'feature'") until a restart."""
    r, store, c1 = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feature").data["session"]
        assert t.get(fs, STACK).items[0].path == "shop/coupons.py"
        git(r.path, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
        git(r.path, "branch", "-q", "-d", "feature")
        index_repository(r.path, store, CFG)
        t.reload()
        got = t.get(fs, STACK)
        assert got.items[0].path == "shop/coupons.py" and got.envelope.commit.startswith(c1[:12])
        said = " ".join(got.envelope.warnings)
        assert "behind: 'feature' cannot be followed" in said, said
        assert t.status(fs).data["overlay"]["behind"]
        assert t.search(fs, "stack coupons").items
    finally:
        t.close()


def test_a_branch_name_is_a_branchs_before_a_tags_and_one_branch_however_spelled(tmp_path):
    """`--branch dup` served the tag `dup` (git's order puts tags first) and never followed the
    branch; a note written in `--branch refs/heads/feature` read as another branch's in
    `--branch feature` (fresh there after the branch changed its code)."""
    r, store, c1 = _repo(tmp_path)
    git(r.path, "tag", "feature", "main")                  # a tag named as the branch, at main
    git(r.path, "pack-refs", "--all")                      # the branch in packed-refs only
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feature").data["session"]
        assert t.get(fs, STACK).envelope.commit.startswith(c1[:12])          # the branch, not the tag
        full = t.open_session(branch="refs/heads/feature").data["session"]
        nid = t.remember(full, "insight", "stack_coupons sorts codes", [STACK]).data["note_id"]
        c2 = _on_feature(r, {"shop/coupons.py": COUPONS.replace("sorted(codes)", "list(codes)")})
        got = t.get(fs, STACK)
        assert got.envelope.commit.startswith(c2[:12])                        # followed
        assert [n["stale"] for n in got.items[0].notes if n["id"] == nid] == [True]
        assert any(w.startswith("stale") for w in t.get(fs, nid).items[0].warnings)
    finally:
        t.close()


def test_a_branch_note_about_code_the_branch_left_alone_goes_stale_on_main(tmp_path):
    """A note written on feature about cart_total (feature changed pricing.py only) read on main as
    "written on branch feature ..., about that version" and fresh after main changed cart_total,
    lifting it at full weight; a note of main with the same history was stale."""
    r, store, c1 = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    fs = t.open_session(branch="feature").data["session"]
    nid = t.remember(fs, "insight", "cart_total sums before the discount", ["shop/cart.py::cart_total"]
                     ).data["note_id"]
    t.close()
    r.commit("cart sums twice", {"shop/cart.py": CART.replace("sum(items)", "sum(items) + sum(items)")})
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        ms = t.open_session().data["session"]
        said = t.get(ms, nid).items[0].warnings
        assert any(w.startswith("stale: shop/cart.py::cart_total changed since") for w in said), said
        assert not any(w.startswith("written on") for w in said), said
    finally:
        t.close()


def test_another_branchs_note_about_code_both_branches_changed_is_about_its_version(tmp_path):
    """feature and other both change discount and add stack_coupons, differently. In other's session
    feature's notes read "stale: ... in a file 'other' changed" beside "written on branch feature"
    (discount), or attached to other's stack_coupons as a plain note (a probe)."""
    r, store, c1 = _repo(tmp_path)
    git(r.path, "checkout", "-q", "-b", "other", "main")
    r.commit("other", {"shop/pricing.py": PRICING.replace("pct / 100", "pct / 100.0"),
                       "shop/coupons.py": "def stack_coupons(codes):\n    return list(codes)\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs, os_ = t.open_session(branch="feature").data["session"], t.open_session(branch="other").data["session"]
        ids = [t.remember(fs, "insight", text, [target]).data["note_id"]
               for text, target in (("the floor keeps discount positive", DISCOUNT),
                                    ("stack_coupons sorts codes", STACK))]
        for nid, target in zip(ids, (DISCOUNT, STACK)):
            said = t.get(os_, nid).items[0].warnings
            assert not any(w.startswith("stale") for w in said), said
            assert any(w.startswith(f"written on branch feature at {c1[:12]}") for w in said), said
            attached = [n for n in t.get(os_, target).items[0].notes if n["id"] == nid]
            assert [n["stale"] for n in attached] == [False] and "on branch feature" in attached[0]["line"], attached
    finally:
        t.close()
