"""Tools over a real store: sessions owned by identities, bounded state, checked inputs, and the
notes an item carries where the agent works (get / walk / prefetch)."""

from __future__ import annotations

import shutil

import pytest

from stratum import tokens
from stratum.errors import InvalidArgument, InvalidPageToken, NotFound, ResourceExhausted
from stratum.identity import Identity, acting_as
from stratum.tools import Tools

pytestmark = pytest.mark.slow

ALICE = Identity("alice", authenticated=True, method="token")
BOB = Identity("bob", authenticated=True, method="token")


@pytest.fixture()
def store(indexed_store, tmp_path):
    """A private copy of the indexed store (notes written here never reach other tests)."""
    copy = tmp_path / "store"
    shutil.copytree(indexed_store[1], copy, ignore=shutil.ignore_patterns("deltalog"))
    return copy


@pytest.fixture()
def tools(store):
    t = Tools.open([str(store)])
    yield t
    t.close()


def _row(tools, target):
    t = tools.memory.resolve(target)
    return t.shard, t.row


def _open(tools, **kw) -> str:
    return tools.open_session(**kw).data["session"]


# ---- sessions belong to identities -----------------------------------------------------------
def test_another_identity_cannot_use_or_close_a_session(tools):
    with acting_as(ALICE):
        a = _open(tools)
        tools.get(a, "shop/cart.py", "summary")
    with acting_as(BOB), pytest.raises(NotFound) as theirs:
        tools.status(a)
    with acting_as(BOB), pytest.raises(NotFound) as unknown:
        tools.status("f" * 32)
    assert str(theirs.value).replace(a, "ID") == str(unknown.value).replace("f" * 32, "ID")
    with acting_as(BOB), pytest.raises(NotFound):
        tools.close_session(a)
    with acting_as(ALICE):
        assert tools.status(a).data["session"]["budget"]["used"] > 0


def test_authenticated_author_is_the_identity_and_a_claimed_one_is_marked(tools):
    with acting_as(ALICE):
        r = tools.open_session(author="mallory")
        s = r.data["session"]
        assert r.data["author"] == "alice" and r.data["authenticated"] is True
        assert any("'mallory' ignored" in w for w in r.envelope.warnings)
        nid = tools.remember(s, "failure", "Tried caching totals; stale after a discount change.",
                             about=["shop/cart.py"]).data["note_id"]
    anon = Identity("127.0.0.1", method="anonymous")
    with acting_as(anon):
        r = tools.open_session(author="claimed-bot")
        assert r.data["author"] == "claimed-bot" and r.data["authenticated"] is False
        tools.remember(r.data["session"], "insight", "Cart totals are cents, not floats.", about=["shop/cart.py"])
        got = tools.get(r.data["session"], "shop/cart.py", "summary").items[0]
    by = {n["author"]: n for n in got.notes}
    assert by["alice"]["trust"] == "authenticated" and by["alice"]["id"] == nid
    assert by["claimed-bot"]["trust"] == "unauthenticated"
    # an open server's caller may not pass as the store's owner, nor sign with hidden characters
    # (probe P3: "os:root" superseded the owner's note; a newline in model forged a provenance line)
    with acting_as(anon):
        for bad in (dict(author="os:root"), dict(author="eve\u202e"), dict(author="e\u200bve"),
                    dict(model="gpt\nby maint (authenticated)")):
            with pytest.raises(InvalidArgument):
                tools.open_session(**bad)
        s = tools.open_session(author="alice").data["session"]           # claims the proven alice's name
        from stratum.errors import PermissionDenied

        with pytest.raises(PermissionDenied):
            tools.remember(s, "rca", "overruled", about=["shop/cart.py"], supersedes=[nid])


def test_sessions_are_capped_per_identity_and_in_total(store):
    t = Tools.open([str(store)], max_sessions_per_identity=2, max_sessions=3)
    try:
        with acting_as(ALICE):
            first = _open(t)
            _open(t)
            with pytest.raises(ResourceExhausted, match="alice already has 2 open sessions"):
                _open(t)
            t.close_session(first)
            _open(t)                                     # a closed one frees its place
        with acting_as(BOB):
            _open(t)
            with pytest.raises(ResourceExhausted, match="limit"):
                _open(t)
    finally:
        t.close()


def test_idle_sessions_and_old_page_tokens_expire(store, monkeypatch):
    import time as _time

    t = Tools.open([str(store)], session_ttl=1000, page_token_ttl=100)
    try:
        now = [_time.time()]
        monkeypatch.setattr(t.sessions, "_clock", lambda: now[0])
        monkeypatch.setattr(t.tokens, "_clock", lambda: now[0])
        s, idle = _open(t), _open(t)
        r = t.tree(s, "", depth=3, page_size=2)
        now[0] += 101
        with pytest.raises(InvalidPageToken, match="expired"):
            t.tree(s, "", depth=3, page_size=2, page_token=r.envelope.next_page_token)
        now[0] += 900                                    # s was used 900 s ago, idle 1001 s ago
        t.status(s)
        with pytest.raises(NotFound, match="expired"):
            t.status(idle)
    finally:
        t.close()


def test_oversized_arguments_are_refused_before_use_with_short_messages(tools):
    with pytest.raises(InvalidArgument) as ei:
        tools.open_session(author="a" * 300_000)
    assert "author" in str(ei.value) and len(str(ei.value)) < 200
    s = _open(tools)
    cases = [lambda: tools.get(s, "x" * 100_000), lambda: tools.search(s, "q" * 100_000),
             lambda: tools.walk(s, "shop/cart.py", ["imports"] * 1000),
             lambda: tools.remember(s, "rca", "text", about=["shop/cart.py"] * 1000),
             lambda: tools.prefetch(s, ["p" * 50_000]), lambda: tools.tree(s, "", page_size=10_000),
             lambda: tools.search(s, "x", kinds=["k" * 10_000]), lambda: tools.status("s" * 500_000),
             lambda: tools.tree(s, "", page_token="t" * 100_000)]
    for call in cases:
        with pytest.raises((InvalidArgument, InvalidPageToken)) as ei:
            call()
        assert len(str(ei.value)) < 300, str(ei.value)[:300]


def test_status_counts_notes_another_writer_appended(store, tools):
    s = _open(tools)
    before = tools.status(s).data["shards"][0]["unmerged_notes"]
    other = Tools.open([str(store)])                     # a second server on the same store
    try:
        o = _open(other)
        other.remember(o, "insight", "Invoices print totals from Cart.total.", about=["shop/invoice.py"])
    finally:
        other.close()
    assert tools.status(s).data["shards"][0]["unmerged_notes"] == before + 1


# ---- experience where the agent works --------------------------------------------------------
def test_get_of_a_file_carries_its_failure_note_first_and_counts_it(tools):
    s = _open(tools, author="writer")
    insight = tools.remember(s, "insight", "pricing is pure: no I/O.", about=["shop/pricing.py"]).data["note_id"]
    rca = tools.remember(s, "rca", "Off by a cent: discount() rounds after the code is applied.",
                         about=["shop/pricing.py::discount"]).data["note_id"]
    fail = tools.remember(s, "failure", "Tried rounding in Cart.total first: did not help.",
                          about=["shop/pricing.py"]).data["note_id"]
    reader = _open(tools, author="reader")
    r = tools.get(reader, "shop/pricing.py", "full")
    it = r.items[0]
    # the sample history's bug fixes are mined into "fix" notes (trust "mined"): after the agents' notes
    order = {"failure": 0, "rca": 1, "insight": 2, "fix": 3}
    assert [order[n["kind"]] for n in it.notes] == sorted(order[n["kind"]] for n in it.notes)
    mine = [n for n in it.notes if n["trust"] != "mined"]
    assert [n["id"] for n in mine] == [fail, rca, insight]
    assert all(n["kind"] == "fix" for n in it.notes if n["trust"] == "mined")
    assert mine[1]["line"].startswith("rca note") and " on discount" in mine[1]["line"]
    assert all(n["author"] == "writer" and n["stale"] is False and n["age_days"] == 0.0 for n in mine)
    assert it.meta["notes_total"] == len(it.notes) and it.meta["notes_more"] is False
    note_tokens = sum(tokens.count(n["line"]) for n in it.notes)
    assert it.tokens == tokens.count(it.text) + note_tokens
    assert r.envelope.tokens_returned == it.tokens == r.envelope.budget.used
    # a symbol carries only its own notes
    sym = tools.get(reader, "shop/pricing.py::discount", "api").items[0]
    assert [n["id"] for n in sym.notes if n["trust"] != "mined"] == [rca]


def test_withdrawn_notes_are_left_out_and_a_cap_says_more_exist(store):
    t = Tools.open([str(store)], notes_per_item=2)
    try:
        s = _open(t)
        old = t.remember(s, "rca", "Cause: float totals.", about=["shop/cart.py"]).data["note_id"]
        new = t.remember(s, "rca", "Cause: totals rounded twice (not floats).", about=["shop/cart.py"],
                         supersedes=[old]).data["note_id"]
        more = [t.remember(s, "insight", f"Insight {i} about carts.", about=["shop/cart.py"]).data["note_id"]
                for i in range(2)]
        it = t.get(s, "shop/cart.py", "api").items[0]
        assert old not in [n["id"] for n in it.notes]
        mined = sum(1 for n in t.memory.notes_about(*_row(t, "shop/cart.py")) if n.trust == "mined")
        ids = [n["id"] for n in it.notes]            # rca first, then the newest insight (mined fixes after)
        assert ids[0] == new and ids[1] == more[1]
        assert it.meta["notes_total"] == 3 + mined and it.meta["notes_more"] is True
        listed = [i.id for i in t.walk(s, "shop/cart.py", ["notes"], page_size=50).items]
        assert set(more + [new]) <= set(listed)
    finally:
        t.close()


def test_walk_and_prefetch_items_carry_notes_and_the_controller_keeps_them(tools):
    s = _open(tools, budget=100_000)
    fail = tools.remember(s, "failure", "Tried memoising discount(): codes changed under it.",
                          about=["shop/pricing.py"]).data["note_id"]
    w = [i for i in tools.walk(s, "shop/cart.py", ["imports"]).items if i.path == "shop/pricing.py"]
    assert w and [n["id"] for n in w[0].notes if n["trust"] != "mined"] == [fail]
    p = tools.prefetch(s, ["shop/cart.py"])
    pricing = [i for i in p.items if i.path == "shop/pricing.py"]
    assert pricing and pricing[0].notes[0]["id"] == fail
    entry = {e["node_id"]: e for e in tools.status(s).data["session"]["entries"]}[pricing[0].id]
    assert entry["tokens"] >= pricing[0].notes[0]["tokens"]


def test_prefetch_plans_with_the_notes_its_items_will_carry(tools):
    s = _open(tools)
    for i in range(4):
        tools.remember(s, "failure", f"Attempt {i}: rounding in discount() first did not help.", about=["shop/pricing.py"])
    for budget in (60, 150, 400, 2000):
        fresh = _open(tools, budget=100_000)
        r = tools.prefetch(fresh, ["shop/cart.py"], budget=budget)
        assert r.envelope.tokens_returned <= budget, (budget, [(i.path, i.tokens) for i in r.items])
    assert any(i.notes for i in r.items)                         # the largest budget holds pricing and its notes


def test_a_claimed_author_under_quarantine_gets_its_note_back(store):
    """An open server's caller is "anonymous" while its session writes as the author it claimed:
    under quarantine its `remember` answered "the note is gone" for a note it had written, and a
    retrying caller wrote duplicates (probe P3)."""
    from stratum.notepolicy import NotesPolicy

    NotesPolicy(quarantine=True).save(store)
    t = Tools.open([str(store)])
    try:
        with acting_as(Identity("127.0.0.1", method="anonymous")):
            s = t.open_session(author="dave").data["session"]
            r = t.remember(s, "insight", "Totals are cents.", about=["shop/cart.py"])
            assert r.items[0].id == r.data["note_id"] and r.items[0].trust == "quarantined"
    finally:
        t.close()
        NotesPolicy(quarantine=False).save(store)
