"""Worktree and branch views that answered for the wrong code, or failed, found by a probe (session 28, p6):

- `--store .git/stratum` (relative) with `--branch fw` recorded the overlay's folder relative to the cwd
  in the shared overlay.json: the same query from a linked worktree or a subfolder failed "no index at
  .stratum/overlays/...: run `stratum index` first" until the next published version.
- a worktree session (`stratum mcp` in a linked worktree, gRPC `worktree=`) served the code as read
  at open: an edit after it was never served, and the answer said nothing (the CLI there served it).
- `--store <main>/.git/stratum` inside a linked worktree (the README's MCP registration) answered for the
  default branch with no word.
- hooks.log labelled a coalesced run with the hook holding the runner lock.

Real repositories and linked worktrees, the real index job, overlay builder, Tools and CLI."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from pipeline import hooks
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CART = "def total(x):\n    return x\n"
FW = "def total(x):\n    return x + 1\n\n\ndef extra(y):\n    return y\n"


def _branched(tmp_path: Path) -> tuple[Repo, Path, str]:
    """main indexed (shop/cart.py); a linked worktree wt on branch fw that changed total and added extra."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/cart.py": CART})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "shop" / "cart.py").write_text(FW)
    git(wt, "commit", "-qam", "fw")
    return r, wt, store


def _get(capsys, *argv: str) -> tuple[int, str]:
    rc, out, err = run(capsys, "get", *argv, "--level", "full")
    return rc, out + err


def test_a_relative_store_leaves_the_shared_branch_overlay_readable_from_every_folder(tmp_path, capsys, monkeypatch):
    r, wt, store = _branched(tmp_path)
    monkeypatch.chdir(r.path)
    rc, said = _get(capsys, "shop/cart.py::extra", "--branch", "fw", "--store", ".git/stratum")
    assert rc == 0 and "return y" in said, said
    (info,) = (Path(store) / "overlays").glob("v*/overlay.json")
    assert Path(json.loads(info.read_text())["dir"]).is_absolute()

    monkeypatch.chdir(wt)                       # the worktree's own view: fw at its HEAD, no edits
    rc, said = _get(capsys, "shop/cart.py::extra")
    assert rc == 0 and "return y" in said, said
    monkeypatch.chdir(r.path / "shop")          # a subfolder, the same branch overlay
    rc, said = _get(capsys, "shop/cart.py::extra", "--branch", "fw")
    assert rc == 0 and "return y" in said, said

    # an overlay.json written by an older build (a relative dir) or damaged: read or built again, not an error
    info.write_text(json.dumps(dict(json.loads(info.read_text()), dir=".git/stratum/overlays/" + info.parent.name + "/store")))
    rc, said = _get(capsys, "shop/cart.py::extra", "--branch", "fw")
    assert rc == 0 and "return y" in said, said
    info.write_text("{not json")
    rc, said = _get(capsys, "shop/cart.py::extra", "--branch", "fw")
    assert rc == 0 and "return y" in said, said
    assert json.loads(info.read_text())["commit"] == git(wt, "rev-parse", "HEAD").strip()


def test_a_worktree_session_serves_edits_made_after_it_opened(tmp_path):
    r, wt, store = _branched(tmp_path)
    (wt / "shop" / "cart.py").write_text(FW.replace("x + 1", "x + 2"))       # uncommitted, before the session
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        s = t.open_session(worktree=str(wt)).data["session"]
        assert "x + 2" in t.get(s, "shop/cart.py::total", level="full").items[0].text
        (wt / "shop" / "cart.py").write_text(FW.replace("x + 1", "x + 3") + "\n\ndef added(z):\n    return z\n")
        got = t.get(s, "shop/cart.py::total", level="full")            # at once: no wait for a probe
        assert "x + 3" in got.items[0].text, got.items[0].text
        assert t.get(s, "shop/cart.py::added", level="summary").items[0].qualname == "added"
        (wt / "shop" / "new").mkdir()                                   # an untracked file in a new folder
        (wt / "shop" / "new" / "tax.py").write_text("def tax(v):\n    return v * 0.2\n")
        assert t.get(s, "shop/new/tax.py::tax", level="full").items[0].text.endswith("v * 0.2")
        git(wt, "add", "-A")
        git(wt, "commit", "-qm", "fw: tax")                             # a commit: said as a move
        (wt / "shop" / "cart.py").write_text(FW)                        # and an edit after it
        got = t.get(s, "shop/cart.py::total", level="full")
        assert "x + 1" in got.items[0].text, got.items[0].text
        assert any("it moved from" in w for w in got.envelope.warnings), got.envelope.warnings
        same = t.get(s, "shop/cart.py::total", level="full")            # nothing moved: the view it had
        assert not any("it moved from" in w for w in same.envelope.warnings)
    finally:
        t.close()


def test_an_explicit_store_in_a_linked_worktree_answers_for_the_worktree(tmp_path, capsys, monkeypatch):
    r, wt, store = _branched(tmp_path)
    (wt / "shop" / "cart.py").write_text(FW.replace("return y", "return y * 2"))     # uncommitted
    monkeypatch.chdir(wt)
    rc, said = _get(capsys, "shop/cart.py::extra", "--store", store)
    assert rc == 0 and "return y * 2" in said, said
    rc, said = _get(capsys, "shop/cart.py::extra", "--store", "../repo/.git/stratum")     # relative: the same
    assert rc == 0 and "return y * 2" in said, said
    rc, said = _get(capsys, "shop/cart.py::extra", "--store", store, "--branch", "main")   # a view named: as named
    assert rc != 0 and "no node" in said, said

    other = Repo(tmp_path / "other")            # another repository's store beside it: main's answer, said
    other.commit("init", {"lib.py": "def f():\n    return 1\n"})
    index_repository(other.path, str(default_store_path(other.path)), CFG)
    rc, said = _get(capsys, "shop/cart.py", "--store", store, "--store", str(default_store_path(other.path)))
    assert rc == 0 and "def extra" not in said, said
    assert "linked worktree" in said and "--worktree ." in said, said


def test_a_coalesced_hook_run_names_the_hooks_it_indexes_for(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"app.py": "def main():\n    return 1\n"})
    store = tmp_path / "store"
    lines: list[str] = []
    started, marked = threading.Event(), threading.Event()

    def index() -> str:
        rep = index_repository(r.path, str(store), CFG)
        if not started.is_set():
            started.set()
            marked.wait(30)         # the merge's hook fires while the commit's run indexes
        return f"v{rep.version} published" if not rep.up_to_date else f"up to date at v{rep.version}"

    def runner() -> None:
        hooks.coalesced(store, index, lambda line: lines.append(f"[post-commit] {line}"), settle=0.0,
                        hook="post-commit")

    th = threading.Thread(target=runner)
    th.start()
    assert started.wait(60)
    r.commit("merge", {"app.py": "def main():\n    return 2\n"})
    try:
        ran = hooks.coalesced(store, index, lambda line: lines.append(f"[post-merge] {line}"), settle=0.0,
                              hook="post-merge")
    finally:
        marked.set()
        th.join(60)
    assert ran == 0
    assert lines[0] == "[post-merge] an index run for this store is under way; it will index again", lines
    assert lines[1].startswith("[post-commit] v1 published") and "(for" not in lines[1], lines
    assert lines[2].startswith("[post-commit] v2 published") and lines[2].endswith(" (for post-merge)"), lines
