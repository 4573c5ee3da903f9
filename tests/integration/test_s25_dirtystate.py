"""An uncommitted file's recorded state is of the bytes the index parsed (session 25, a probe).

`stratum index` looked at each uncommitted file ([size, mtime, sha1]) before the parse read it. A
save between the look and the read, then put back, left the store holding the save while the state
said the disk's bytes: answers served the save with stale=False and no warning. The job's own seam
``before_work`` (called after the look, before the files are read) makes that edit land exactly
there. Real git repositories, the real index job (in-process and on a real local Ray), the real Tools.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pytest

from pipeline.gitio import freshness
from pipeline.report import RunReport
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
F1 = "def f():\n    return 1\n"
A = "def f():\n    return 2\n"        # the user's uncommitted edit
B = "def f():\n    return 3\n"        # saved mid-run: the same size, only the bytes tell them apart
STALE = ["uncommitted changes in m.py (returned here)"]


def _index(repo: Path, store: Path, before_work: Callable[[], None] | None = None, ray: bool = False) -> RunReport:
    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    if ray:
        os.environ.setdefault("RAY_TMPDIR", str(Path(__file__).resolve().parents[2] / ".tmp" / "ray"))
    cfg = IndexConfig(num_cpus=1, ray=ray)
    return index_repository(repo, store, replace(cfg, embed=replace(cfg.embed, enabled=False)), before_work=before_work)


def _get(store: Path) -> tuple[str, bool, list[str]]:
    """What `get m.py::f` serves, whether it is stale, and its warnings (a fresh Tools each time)."""
    t = Tools.open([str(store)], freshness=freshness)
    try:
        got = t.get(t.open_session(author="agent").data["session"], "m.py::f", "full")
        return got.items[0].text, got.envelope.stale, got.envelope.warnings
    finally:
        t.close()


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


@pytest.mark.parametrize("ray", [False, True], ids=["in-process", "ray"])
def test_a_file_saved_between_the_look_and_the_parse_then_put_back_is_stale(tmp_path, ray):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": F1})
    m, store = r.path / "m.py", tmp_path / "store"
    m.write_text(A)
    rep = _index(r.path, store, before_work=lambda: m.write_text(B), ray=ray)
    assert rep.engine.startswith("ray" if ray else "in-process")
    assert rep.dirty_paths == {"m.py": [len(B), 0, _sha(B)]}    # the bytes parsed, proven by hash
    m.write_text(A)                                 # put back: the disk and the look hold A
    assert _get(store) == ("def f():\n    return 3", True, STALE)
    m.write_text(B)                                 # the disk holds what is served: fresh
    assert _get(store) == ("def f():\n    return 3", False, [])


def test_a_reused_file_is_judged_by_the_bytes_this_run_read(tmp_path):
    """The incremental path: a file the run reads as the previous version held it is not parsed
    again (its ``file_hash`` is the previous version's, which this read equals)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": F1, "n.py": "x = 1\n"})
    m, store = r.path / "m.py", tmp_path / "store"
    m.write_text(A)
    time.sleep(0.1)                                 # past the clock's tick: the look's stat can prove A
    first = _index(r.path, store)
    assert first.dirty_paths == {"m.py": [len(A), os.stat(m).st_mtime_ns, _sha(A)]}   # kept as looked at
    m.write_text(B)                                 # the look sees B (work to do) ...
    second = _index(r.path, store, before_work=lambda: m.write_text(A))   # ... the read A again
    assert second.files_parsed == 0 and second.files_reused == 2 and not second.up_to_date
    assert second.dirty_paths == {"m.py": [len(A), 0, _sha(A)]}
    m.write_text(B)                                 # the disk holds B, the index A
    assert _get(store) == ("def f():\n    return 2", True, STALE)
    m.write_text(A)
    assert _get(store) == ("def f():\n    return 2", False, [])


def test_a_file_deleted_at_the_look_and_written_before_the_read_is_no_deletion(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": F1, "n.py": "x = 1\n"})
    m, store = r.path / "m.py", tmp_path / "store"
    m.unlink()                                      # the look: deleted
    rep = _index(r.path, store, before_work=lambda: m.write_text(B))
    assert rep.dirty_paths == {"m.py": [len(B), 0, _sha(B)]}
    m.unlink()                                      # deleted again, as at the look: the index holds B
    text, stale, warnings = _get(store)
    assert (text, stale) == ("def f():\n    return 3", True) and STALE[0] in warnings, warnings


def test_a_file_deleted_between_the_look_and_the_read_is_said_uncommitted_when_back(tmp_path):
    """The index holds no file there: no state vouches for the disk (status counts the file)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": F1, "n.py": "x = 1\n"})
    m, store = r.path / "m.py", tmp_path / "store"
    m.write_text(A)
    rep = _index(r.path, store, before_work=m.unlink)
    assert rep.dirty_paths == {} and rep.nodes.get("function", 0) == 0
    m.write_text(A)                                 # back as at the look
    t = Tools.open([str(store)], freshness=freshness)
    try:
        st = t.status(t.open_session(author="agent").data["session"])
        assert st.envelope.stale and "uncommitted changes: 1 file: m.py" in st.envelope.warnings, st.envelope.warnings
    finally:
        t.close()
