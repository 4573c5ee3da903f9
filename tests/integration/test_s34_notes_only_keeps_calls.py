"""A re-index that only merges notes (no file changed, HEAD the same) keeps every ``calls`` edge
(``pipeline.callkeep``: the empty change set is the trivial case of a one-file change) and links no
caller again: on sympy such a run linked all 2,054 files again (3.2-4.0 s a run, a scale probe).
Its edges are a cold index's of the same commit, row for row. Real git repository, real
tree-sitter, real index job, real Lance, the note written through the real Tools."""

from __future__ import annotations

import shutil

from pipeline.job import index_repository
from stratum.config import IndexConfig
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import Repo
from tests.integration.test_s27_reindex_calls import FILES, _rows

CFG = IndexConfig(num_cpus=1)


def _calls(store) -> int:
    return Store(store).snapshot().read("edges", columns=["src"], where="kind = 'calls'").num_rows


def _remember(store, text: str, about: str) -> None:
    """A note through the real Tools: it waits in the delta log until the next index merges it."""
    t = Tools.open([str(store)])
    try:
        t.remember(t.open_session(author="agent").data["session"], "insight", text, about=[about])
    finally:
        t.close()


def test_a_run_that_only_merges_a_note_keeps_every_call_edge_and_equals_a_cold_index(tmp_path):
    r, inc, cold = Repo(tmp_path / "shop"), tmp_path / "inc", tmp_path / "cold"
    r.commit("shop", FILES)
    index_repository(r.path, inc, CFG)
    _remember(inc, "discount() rounds before the total is summed", "shop/pricing.py::discount")
    shutil.copytree(inc, cold)
    calls = _calls(inc)
    assert calls >= 4

    rep = index_repository(r.path, inc, CFG)
    assert not rep.up_to_date and rep.files_parsed == 0     # the note made it go on; no file changed
    assert rep.link["callers_files"] == 0 and rep.link["calls_kept"] == calls
    assert rep.notes.get("new") == 1

    index_repository(r.path, cold, IndexConfig(num_cpus=1, full=True))     # every caller linked again
    assert _calls(inc) == calls
    for name, key in (("nodes", ["id"]), ("edges", ["src", "dst", "kind"])):
        assert _rows(inc, name, key) == _rows(cold, name, key), name

    # a file deleted and nothing parsed is no empty change: the files lookups read differ, all linked again
    r.commit("no util", delete=["shop/util.py"])
    gone = tmp_path / "gone"
    shutil.copytree(inc, gone)
    rep = index_repository(r.path, inc, CFG)
    assert rep.files_parsed == 0 and rep.link["calls_kept"] == 0 and rep.link["callers_files"] == 4
    index_repository(r.path, gone, IndexConfig(num_cpus=1, full=True))
    assert _rows(inc, "edges", ["src", "dst", "kind"]) == _rows(gone, "edges", ["src", "dst", "kind"])
