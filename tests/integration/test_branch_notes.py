"""Notes about code that exists only on a branch, written from a session on that branch (or its
worktree), over real git repositories indexed by the real pipeline: durable in the delta log,
shown on the node in the branch's sessions, not attached on the default branch (but found and
listed as pending), kept through re-indexes of the default branch, attached once the branch is
merged and the default branch re-indexed (stratum/branchnotes.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum import ids
from stratum import notes as N
from stratum.branchview import BranchView, StoreOverlay
from stratum.config import IndexConfig, default_store_path
from stratum.errors import NoteRejected, NotFound
from stratum.memory import Memory
from stratum.shard import ShardSet
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
PARSE = "src/pkg/newmod.py::parse_header"
BETA = "src/pkg/a.py::beta_on_branch"
ROOT = Path(__file__).resolve().parents[2]

def _repo(tmp_path: Path, store: Path | None = None) -> tuple[Repo, Path]:
    """main indexed; branch feature adds src/pkg/newmod.py::parse_header and a.py::beta_on_branch,
    deletes src/pkg/gone.py."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"src/pkg/__init__.py": "", "src/pkg/a.py": "def alpha():\n    return 1\n",
                      "src/pkg/gone.py": "def doomed():\n    pass\n"})
    store = store or tmp_path / "store"
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("feature", {"src/pkg/newmod.py": "def parse_header(b):\n    return b[:4]\n",
                         "src/pkg/a.py": "def alpha():\n    return 1\n\n\ndef beta_on_branch():\n    return 2\n"},
             delete=["src/pkg/gone.py"])
    git(r.path, "checkout", "-q", "main")
    return r, store


def _view(memory: Memory, rev: str = "feature") -> BranchView:
    """The session view Tools._branch_view builds, from the composition root's overlay builder."""
    build = builder(CFG)
    view = BranchView(rev, args=(rev, "", ""))
    for sh in memory:
        view.overlays[str(sh.store.root)] = StoreOverlay.load(str(sh.store.root), build(str(sh.store.root), rev, ""))
    return view


def _memory(store: Path) -> Memory:
    return Memory(ShardSet([str(store)]))


def _attached_on_base(mem: Memory, nid: str) -> list[str]:
    """Paths/qualnames of every base code node an item would carry note NID on."""
    sh = next(iter(mem))
    return [f"{sh.col('path')[r]}::{sh.col('qualname')[r]}" for r in range(len(sh))
            if sh.col("kind")[r] in ("file", "function", "class", "method", "dir", "repo")
            and nid in [a.id for a in mem.notes_about(sh, r)]]


def _on_branch(mem: Memory, view: BranchView, target: str) -> list[tuple[str, bool]]:
    """(note id, stale) of the notes a branch session's item of TARGET carries."""
    sh = next(iter(mem))
    osh = view.of(sh).shard
    return [(a.id, a.stale) for a in mem.branch_notes(view, sh, osh, osh.resolve(target))]


def test_branch_note_written_pending_kept_through_reindex_and_attached_after_merge(tmp_path):
    r, store = _repo(tmp_path)
    c1 = git(r.path, "rev-parse", "feature").strip()
    mem = _memory(store)
    sh = next(iter(mem))
    ov, view = mem.overlay(sh), _view(mem)
    kw = dict(kind="failure", text="tried X, broke Y", tags=[], supersedes=[], author="ada", session="s1")
    # the defect: against the base alone the branch's code is unknown
    with pytest.raises(NoteRejected, match="unknown target"):
        ov.remember(about=[PARSE], **kw)
    with pytest.raises(NoteRejected, match="unknown target"):       # deleted on the branch: not its code
        ov.remember(about=["src/pkg/gone.py::doomed"], scope=view.note_scope(sh), **kw)
    scope = view.note_scope(sh)
    nid = ov.remember(about=[PARSE], scope=scope, **kw)
    nbeta = ov.remember(kind="insight", text="beta_on_branch memoises nothing", about=[BETA], tags=[], supersedes=[],
                        author="ada", session="s1", scope=scope)
    nalpha = ov.remember(kind="insight", text="alpha is pure on the branch too", about=["src/pkg/a.py::alpha"],
                         tags=[], supersedes=[], author="ada", session="s1", scope=scope)
    note, osh = ov.notes[nid], view.of(sh).shard
    t = note.about[0]
    assert (t.branch, t.branch_commit) == ("feature", c1) and (note.branch, note.commit) == ("feature", c1)
    assert t.content_hash == osh.col("content_hash")[osh.resolve(PARSE)]       # the branch's code
    assert not ov.notes[nalpha].about[0].pending                              # on both: not pending
    # durable: in the delta log, with the branch marks
    rec = next(x for x in ov.log.scan().records if ids.note_id(x.uid) == nid)
    assert rec.body["branch"] == "feature" and rec.body["about"][0]["branch_commit"] == c1
    # a session on the branch: on the node, and its file (labelled with the symbol); fresh
    assert _on_branch(mem, view, PARSE) == [(nid, False)]
    assert _on_branch(mem, view, "src/pkg/newmod.py") == [(nid, False)]
    assert (nbeta, False) in _on_branch(mem, view, BETA)
    assert (nalpha, False) in _on_branch(mem, view, "src/pkg/a.py::alpha")    # written against this commit
    ov.remember(about=["src/pkg/a.py::alpha"], kind="rca", text="alpha from main", tags=[], supersedes=[],
                author="bob", session="s2")
    assert sorted(s for _, s in _on_branch(mem, view, "src/pkg/a.py::alpha")) == [False, False]   # alpha unchanged: fresh
    # the default branch: attached to no base node (a.py's base item does not carry beta's note),
    # found, and said to be pending with its branch and commit
    assert _attached_on_base(mem, nid) == [] and _attached_on_base(mem, nbeta) == []
    it = ov.item(ov.get(nid), "summary")
    assert any(w.startswith("pending:") and f"branch feature at {c1[:12]}" in w for w in it.warnings)
    assert it.provenance["branch"] == "feature" and it.provenance["commit"] == c1
    assert not any("stale" in w for w in it.warnings)
    assert [x for x in ov.notes_about(osh.col("id")[osh.resolve(PARSE)])][0]["id"] == nid     # walk --edge notes

    # main moves on and is re-indexed before the branch is merged: kept, active, pending
    r.commit("main moves", {"src/pkg/util.py": "def gamma():\n    return 3\n"})
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["pending"] == 2 and rep.notes["orphaned"] == 0
    mem = _memory(store)
    sh = next(iter(mem))
    row = sh.row_of.get(nid)
    assert row is not None and sh.col("status")[row] == "active"
    assert sh.neighbors(row, ("about",), "out") == []                           # nothing to attach to
    assert _attached_on_base(mem, nid) == [] and _attached_on_base(mem, nbeta) == []
    view = _view(mem)
    assert _on_branch(mem, view, PARSE) == [(nid, False)]                    # still on the branch's node
    osh = view.of(sh).shard
    assert nid in [n["id"] for n in mem.overlay(sh).notes_about(osh.col("id")[osh.resolve(PARSE)])]

    # the branch moves on, changing parse_header: the note is stale there
    git(r.path, "checkout", "-q", "feature")
    r.commit("feature 2", {"src/pkg/newmod.py": "def parse_header(b):\n    return b[:8]\n"})
    git(r.path, "checkout", "-q", "main")
    assert _on_branch(mem, _view(mem), PARSE) == [(nid, True)]

    # merged and re-indexed: attached to the now-real nodes, stale where the code changed since
    git(r.path, "merge", "-q", "--no-edit", "feature")
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["pending"] == 0
    mem = _memory(store)
    sh = next(iter(mem))
    assert [(a.id, a.stale) for a in mem.notes_about(sh, sh.resolve(PARSE))] == [(nid, True)]
    assert [(a.id, a.stale) for a in mem.notes_about(sh, sh.resolve(BETA))] == [(nbeta, False)]
    assert not mem.overlay(sh).notes[nid].about[0].pending
    # landed: no longer waiting for a branch, so the code going away orphans it like any note
    r.commit("drop newmod", delete=["src/pkg/newmod.py"])
    rep = index_repository(r.path, store, CFG)
    mem = _memory(store)
    assert rep.notes["pending"] == 0 and mem.overlay(next(iter(mem))).notes[nid].status == "orphaned"


def _cli(*args: str, cwd: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}       # the code under test, from any directory
    p = subprocess.run([sys.executable, "-m", "stratum.cli", *args, "--json"], capture_output=True, text=True,
                       timeout=300, cwd=str(cwd), env=env)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_remember_on_a_branch_through_tools_and_cli(tmp_path):
    from stratum.tools import Tools

    r, store = _repo(tmp_path, store=default_store_path(tmp_path / "repo"))      # the default store, for the CLI
    feat = git(r.path, "rev-parse", "feature").strip()
    t = Tools.open([str(store)], overlay_builder=builder(CFG))
    sid = t.open_session(branch="feature").data["session"]
    base = t.open_session().data["session"]
    nid = t.remember(sid, "failure", "tried X, broke Y", [PARSE]).data["note_id"]
    nbeta = t.remember(sid, "insight", "beta_on_branch memoises nothing", [BETA]).data["note_id"]
    # on the branch: the node carries it, as other notes are carried
    assert [n["id"] for n in t.get(sid, PARSE).items[0].notes] == [nid]
    assert nbeta in [n["id"] for n in t.get(sid, "src/pkg/a.py").items[0].notes]
    got = t.get(sid, nid).items[0]
    assert got.provenance["branch"] == "feature" and got.provenance["commit"] == feat
    assert nid in [i.id for i in t.walk(sid, PARSE, edges=["notes"]).items]
    # on the default branch: not on a base node, found by search, said to be pending
    with pytest.raises(NotFound):
        t.get(base, PARSE)
    assert nbeta not in [n["id"] for n in t.get(base, "src/pkg/a.py").items[0].notes]
    hit = next(i for i in t.search(base, "tried X, broke Y").items if i.id == nid)
    assert any(w.startswith("pending:") and "branch feature" in w for w in hit.warnings)
    t.close()

    # the CLI: --branch, and from inside a linked worktree of the branch (no flag)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", str(wt), "feature")
    a = _cli("remember", "insight", "parse_header reads 4 bytes", "--about", PARSE, "--branch", "feature", cwd=r.path)
    b = _cli("remember", "rca", "the header is 4 bytes because of X", "--about", PARSE, cwd=wt)
    listed = {n["id"]: n for n in _cli("notes", "list", cwd=r.path)["notes"]}
    for d in (a, b):
        about = listed[d["data"]["note_id"]]["about"][0]
        assert (about["branch"], about["branch_commit"]) == ("feature", feat)
        assert listed[d["data"]["note_id"]]["provenance"]["branch"] == "feature"
    shown = _cli("get", PARSE, "--branch", "feature", cwd=r.path)["items"][0]["notes"]
    assert {a["data"]["note_id"], b["data"]["note_id"], nid} <= {n["id"] for n in shown}

    # the default branch re-indexed before the merge: still there, still pending; then merged: attached
    index_repository(r.path, store, CFG)
    assert listed.keys() <= {n["id"] for n in _cli("notes", "list", "--status", "active", cwd=r.path)["notes"]}
    git(r.path, "merge", "-q", "--no-edit", "feature")
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["pending"] == 0 and rep.notes["orphaned"] == 0
    t = Tools.open([str(store)], overlay_builder=builder(CFG))
    on_base = {n["id"] for n in t.get(t.open_session().data["session"], PARSE).items[0].notes}
    assert {nid, a["data"]["note_id"], b["data"]["note_id"]} <= on_base
    t.close()
    assert N.Target(**listed[nid]["about"][0]).pending
