"""A stale note is still found first by its own rare word (a ticket id), its why saying stale.

A probe (session 33): an rca note "incident INC-4711: generate_etag hashed the wrong buffer" came 1st
for `search INC-4711`, then 13th-14th once generate_etag was edited, committed and re-indexed: only
fresh notes were placed by a rare word (``rank.rerank``), and 300 incident notes sharing "incident"
and "inc" with it, and past changes, filled page 1. In a fleet store all 46 stale notes with a unique
word fell to 27th-70th for it. Here a real repository with history, the real pipeline and Tools: the
note is placed first before and after the edit, its why "rare word; ... stale ... counted x0.5", and
a fresh note holding the word goes before it. That a superseded note is never placed is the rule's
own guard, tested in tests/unit/test_s33_rare_stale.py (search serves no superseded note, so a
search here could not tell).
"""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.rank import RARE_WHY
from stratum.tools import Tools
from tests.gitrepo import Repo
from tests.integration import test_branch_lift as BL

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False)
HTTP = '''"""HTTP helpers."""

import hashlib


def generate_etag(data):
    """An ETag for DATA: a hash of its bytes."""
    return hashlib.sha1(data).hexdigest()


def quote_etag(etag, weak=False):
    """Quote an ETag for a header; W/ prefixed when weak."""
    return ('W/"%s"' if weak else '"%s"') % etag
'''
RELOADER = '''"""Reload the server when files change."""


def reloader_loop(paths, interval=1):
    """Poll PATHS every INTERVAL seconds; restart on a change, with retries when a file is busy."""
    return [p for p in paths if p]


def restart_with_reloader(argv):
    """Restart the process with the reloader; incident retries are logged."""
    return list(argv)
'''
INCIDENTS = 120         # a fleet's incident notes: INC-4000..INC-4119, sharing every word but the id
RCA = "incident INC-4711: generate_etag hashed the wrong buffer, so caches served a stale body"


def _place(t: Tools, s: str, query: str, nid: str) -> tuple[int | None, list]:
    items = t.search(s, query, page_size=10).items
    ids = [i.id for i in items]
    return (ids.index(nid) if nid in ids else None), [(i.kind, i.path, i.name, i.why) for i in items]


def test_a_stale_note_is_first_for_its_own_ticket_id_and_says_stale(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"web/__init__.py": "", "web/http.py": HTTP, "web/reloader.py": RELOADER})
    for i in range(6):      # history: past changes mined (they shared no word with the id on the probe's page 1)
        path, src = ("web/http.py", HTTP) if i % 2 else ("web/reloader.py", RELOADER)
        r.commit(f"fix incident retries on the reloader path ({i})", {path: f"{src}\n\n# rev {i}\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session().data["session"]
        for i in range(INCIDENTS):
            t.remember(s, "insight", f"incident INC-{4000 + i}: retries on the reloader path were noisy",
                       ["web/reloader.py::reloader_loop"] if i % 3 == 0 else [])
        nid = t.remember(s, "rca", RCA, ["web/http.py::generate_etag"]).data["note_id"]
        at, page = _place(t, s, "INC-4711", nid)
        assert at == 0 and page[0][3].startswith(RARE_WHY) and "stale" not in page[0][3], page

        # the function it is about changes: committed and re-indexed, the note is now stale
        r.commit("generate_etag: hash the body once", {"web/http.py": HTTP.replace(
            "    return hashlib.sha1(data).hexdigest()", "    body = bytes(data)\n    return hashlib.sha1(body).hexdigest()")})
        index_repository(r.path, store, CFG)
        assert t.reload()
        reader = t.open_session().data["session"]
        at, page = _place(t, reader, "INC-4711", nid)
        assert at == 0, page
        why = page[0][3]
        assert why.startswith(RARE_WHY) and "stale" in why and "counted x0.5" in why, why
        # a fresh note holding the same word goes before the stale one
        new = t.remember(reader, "rca", "INC-4711 again: quote_etag quoted the hash twice",
                         ["web/http.py::quote_etag"]).data["note_id"]
        at, page = _place(t, reader, "INC-4711", new)
        assert at == 0 and page[0][3].startswith(RARE_WHY) and "stale" not in page[0][3], page
    finally:
        t.close()


def test_in_a_branch_session_a_note_the_branch_made_stale_is_first_and_its_branch_code_next(tmp_path):
    """The branch case the rule once left out: a note written against the default branch's
    ``discount``, which the feature branch changed, holds the query's rare words ("coupon",
    "stacking"). Placed first at just above the default list's best, it held the branch's
    ``discount`` it lifts (in the branch's list, merged by score) under the cart helpers the query's
    text matches better; now the note is first, the branch's ``discount`` next, above the helpers."""
    _, store = BL._repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(BL.CFG))
    try:
        base = t.open_session().data["session"]
        feature = t.open_session(branch="feature").data["session"]
        nid = t.remember(base, "rca", "coupon stacking lets the subtotal go below zero", [BL.DISCOUNT]).data["note_id"]
        items = t.search(feature, BL.QUERY).items
        assert items[0].id == nid, [(i.kind, i.name, i.why) for i in items[:4]]
        assert items[0].why.startswith(RARE_WHY) and "stale" in items[0].why, items[0].why
        k, it = BL._discount(items)
        assert k == 1 and "floor" in it.text and "stale" in it.why, [(i.kind, i.name, i.why) for i in items[:4]]
        assert it.score > max(i.score for i in items if i.path.startswith("shop/cart"))
    finally:
        t.close()
