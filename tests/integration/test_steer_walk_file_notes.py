"""walk FILE --edge notes lists the notes about the file's functions as walking each function does:
the retracted and superseded ones too, each item saying its status (a steering probe: the file's
walk listed only the active ones, the function's all of them; docs/notes.md)."""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)


def _statuses(t: Tools, s: str, target: str) -> dict[str, str]:
    items = t.walk(s, target, edges=["notes"], direction="in", page_size=100).items
    return {i.id: i.meta.get("status", "active") for i in items if i.kind in ("rca", "failure", "insight")}


def _walks(tmp_path, reindex: bool) -> None:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": "def discount(total, pct):\n    return total\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    s = t.open_session(author="agent").data["session"]
    fn = "shop/pricing.py::discount"
    old = t.remember(s, "rca", "discount ignores pct", [fn]).data["note_id"]
    new = t.remember(s, "rca", "discount ignores pct entirely", [fn], supersedes=[old]).data["note_id"]
    gone = t.remember(s, "failure", "tried rounding pct", [fn]).data["note_id"]
    t.retract(s, gone, reason="wrong")
    if reindex:                     # merged: the notes are rows of the new version
        t.close()
        index_repository(r.path, store, CFG)
        t = Tools.open([store])
        s = t.open_session(author="agent").data["session"]
    of_fn, of_file = _statuses(t, s, fn), _statuses(t, s, "shop/pricing.py")
    assert set(of_fn) == {old, new, gone}, of_fn
    assert of_file == of_fn, (of_file, of_fn)       # it held only `new`
    t.close()


def test_a_files_walk_lists_its_functions_inactive_notes_with_their_status(tmp_path):
    _walks(tmp_path, reindex=False)


def test_a_files_walk_lists_them_once_merged_too(tmp_path):
    _walks(tmp_path, reindex=True)
