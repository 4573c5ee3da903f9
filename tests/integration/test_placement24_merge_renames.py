"""A merge follows a rename to the note's code when an earlier merge had renumbered it
(``pipeline.notetargets``, ``stratum.placement._led``); on a real repository and the real index job.

``pkg/a.py`` has ``add`` and ``add#2``; a note is about ``add#2``. A commit adds an ``add`` above
both and a re-index renumbers the note onto ``add#3`` (its code); then ``git mv pkg/a.py pkg/b.py``
and a re-index. Before: the note landed on ``pkg/b.py::add#2``, the neighbour, stale ("the code
changed since"), and ``pkg/b.py::add#3``, its code, carried nothing."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import noted_repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
PLAIN = 'def add(x):\n    """Plain add."""\n    return x + 1\n\n\n'
BY_N = 'def add(x, n):\n    """Add n."""\n    return x + n\n\n\n'
COUPON = 'def add(x, coupon):\n    """Coupon add."""\n    return x - coupon\n\n\n'


def _notes(t: Tools, sid: str, target: str) -> list[tuple[str, str]]:
    return [(n["id"], n["line"]) for n in t.get(sid, target).items[0].notes]


def test_a_renumbered_note_follows_a_rename_to_its_code(tmp_path):
    r, store, nid = noted_repo(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": PLAIN + BY_N}, "pkg/a.py::add#2",
                               "the n-add overflows on a big n", CFG)
    r.commit("a coupon add above", {"pkg/a.py": COUPON + PLAIN + BY_N})
    index_repository(r.path, store, CFG)         # the note is renumbered onto add#3
    r.mv("pkg/a.py", "pkg/b.py")
    r.commit("rename")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    try:
        s = t.open_session().data["session"]
        got = _notes(t, s, "pkg/b.py::add#3")
        assert [i for i, _ in got] == [nid], got
        assert "stale" not in got[0][1], got
        assert _notes(t, s, "pkg/b.py::add#2") == []
        assert _notes(t, s, "pkg/b.py::add") == []
    finally:
        t.close()
