"""Sessions belong to identities and are bounded: expiry, caps, owner checks, page-token expiry."""

from __future__ import annotations

import pytest

from stratum.controller import Controller, RecordGraph
from stratum.envelope import PageTokens
from stratum.errors import InvalidArgument, InvalidPageToken, NotFound, ResourceExhausted
from stratum.sessions import SessionRegistry


class Clock:
    def __init__(self):
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def _ctl() -> Controller:
    return Controller(1000, None, RecordGraph([]))


def test_a_session_is_only_its_owners_and_others_see_unknown():
    reg = SessionRegistry()
    s = reg.add("alice", "alice", True, "m", _ctl())
    assert reg.get(s.id, "alice") is s
    with pytest.raises(NotFound) as theirs:
        reg.get(s.id, "mallory")
    with pytest.raises(NotFound) as unknown:
        reg.get("0" * 32, "mallory")
    # the same words for another's id and an unknown one: nothing tells mallory the id is live
    assert str(theirs.value).replace(s.id, "X") == str(unknown.value).replace("0" * 32, "X")
    with pytest.raises(NotFound):
        reg.close(s.id, "mallory")
    assert reg.get(s.id, "alice") is s


def test_idle_sessions_expire_and_use_keeps_them_alive():
    clock = Clock()
    reg = SessionRegistry(ttl=100, clock=clock)
    a = reg.add("alice", "alice", False, "", _ctl())
    b = reg.add("alice", "alice", False, "", _ctl())
    clock.t += 60
    reg.get(a.id, "alice")                  # a is used; b idles on
    clock.t += 60
    assert reg.get(a.id, "alice") is a
    with pytest.raises(NotFound, match="expired after 100 s idle"):      # not "0.0277778 h"
        reg.get(b.id, "alice")
    assert len(reg) == 1 and reg.count("alice") == 1


def test_caps_per_identity_and_in_total_sweep_expired_first():
    clock = Clock()
    reg = SessionRegistry(ttl=100, max_per_identity=2, max_total=3, clock=clock)
    reg.add("alice", "alice", False, "", _ctl())
    reg.add("alice", "alice", False, "", _ctl())
    with pytest.raises(ResourceExhausted, match="alice already has 2 open sessions.*limit is 2"):
        reg.add("alice", "alice", False, "", _ctl())
    reg.add("bob", "bob", False, "", _ctl())
    with pytest.raises(ResourceExhausted, match="3 open sessions, its limit"):
        reg.add("carol", "carol", False, "", _ctl())
    clock.t += 101                          # all idle past the ttl: swept before the cap bites
    reg.add("carol", "carol", False, "", _ctl())
    reg.add("alice", "alice", False, "", _ctl())
    assert len(reg) == 2 and reg.count("alice") == 1


def test_oversized_session_ids_are_refused_with_a_short_echo():
    reg = SessionRegistry()
    with pytest.raises(InvalidArgument) as ei:
        reg.get("x" * 500_000, "alice")
    assert len(str(ei.value)) < 200
    with pytest.raises(InvalidArgument, match="empty"):
        reg.get("", "alice")


def test_page_tokens_expire_and_say_so():
    clock = Clock()
    pt = PageTokens(b"k" * 32, ttl=3600, clock=clock)
    tok = pt.issue(tool="tree", args={"p": 1}, offset=4, version=1, session="s")
    clock.t += 3599
    assert pt.check(tok, tool="tree", args={"p": 1}, version=1, session="s") == 4
    clock.t += 2
    with pytest.raises(InvalidPageToken, match="expired.*60 min"):
        pt.check(tok, tool="tree", args={"p": 1}, version=1, session="s")
    with pytest.raises(InvalidPageToken, match="malformed"):
        pt.check("A" * 5000, tool="tree", args={"p": 1}, version=1, session="s")


def test_a_page_token_does_not_carry_its_session_id():
    """A token is readable base64 that agents log and hand on; the session id in it named the session
    (whoever holds a session id writes as its author). It holds a keyed tag instead, still bound."""
    import base64

    pt = PageTokens(b"k" * 32)
    sid = "s-7f3a9c2e1b5d4e6f"
    tok = pt.issue(tool="search", args={"q": "x"}, offset=10, version=1, session=sid)
    assert sid.encode() not in base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))
    assert pt.check(tok, tool="search", args={"q": "x"}, version=1, session=sid) == 10
    with pytest.raises(InvalidPageToken, match="another session"):
        pt.check(tok, tool="search", args={"q": "x"}, version=1, session="s-other")


def test_caps_hold_under_concurrent_opens():
    import threading

    reg = SessionRegistry(max_per_identity=64, max_total=100)
    ok, refused = [], []

    def opener(owner):
        for _ in range(20):
            try:
                ok.append(reg.add(owner, owner, False, "", _ctl()))
            except ResourceExhausted:
                refused.append(owner)

    threads = [threading.Thread(target=opener, args=("alice" if i < 4 else f"bot{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # which opener wins the race differs run to run; the caps hold whatever the order
    assert reg.count("alice") <= 64 and len(reg) == 100 == len(ok) and len(refused) == 60
    assert all(reg.count(f"bot{i}") <= 20 for i in range(4, 8))


def test_an_identity_at_its_cap_gets_a_session_in_place_of_one_idle_long_enough():
    """A probe: each paged `stratum search --server` leaves its session open for the next page; on a
    server without tokens all clients are "anonymous", and 64 such calls locked everyone out for 2 h."""
    clock = Clock()
    reg = SessionRegistry(ttl=7200, max_per_identity=2, clock=clock, reclaim_idle=900)
    old = reg.add("anonymous", "x", False, "", _ctl())
    clock.t += 10
    mid = reg.add("anonymous", "x", False, "", _ctl())
    with pytest.raises(ResourceExhausted, match="in use.*once idle 15 min"):
        reg.add("anonymous", "x", False, "", _ctl())       # both used within the last 15 min
    clock.t += 895                                          # old idle 905 s, mid 895 s
    new = reg.add("anonymous", "x", False, "", _ctl())
    assert reg.count("anonymous") == 2 and reg.get(mid.id, "anonymous") is mid and reg.get(new.id, "anonymous") is new
    with pytest.raises(NotFound):
        reg.get(old.id, "anonymous")
