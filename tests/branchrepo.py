"""What the branch-note tests share: an index config without Ray or vectors (fast, real parse and
merge), the small shop/cart.py versions they commit on main and on a feature branch, and the words
a default session says of a note about a feature branch's code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stratum.config import EmbedConfig, IndexConfig

if TYPE_CHECKING:
    from stratum.tools import Tools
    from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CART = "def total(x):\n    return x\n"
ZETA = "def zeta(y):\n    return y\n"
ZETA_FZ = "def zeta(y):\n    return -y\n"          # fz's version
ZETA_MAIN = "def zeta(y):\n    return y + 0\n"      # main's, changed after fz forked
NOT_MERGED = "not merged into the default branch yet"


def on_fz(tmp_path, zeta: str = ZETA_FZ, files: dict | None = None) -> tuple[Repo, str, str]:
    """main indexed, then fz checked out (zeta changed there, to ZETA) and indexed: the store serves
    fz. Returns (repo, store, fz's commit)."""
    from pipeline.job import index_repository
    from tests.gitrepo import Repo, git

    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": f"{CART}\n\n{ZETA}", **(files or {})})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "fz")
    fz = r.commit("zeta on fz", {"shop/cart.py": f"{CART}\n\n{zeta}"})
    assert index_repository(r.path, store, CFG).branch == "fz"
    return r, store, fz


def branch_tools(store) -> Tools:
    """Tools over STORE as a server with repository access opens them (freshness, overlay builder)."""
    from pipeline.gitio import freshness
    from pipeline.overlay import builder
    from stratum.tools import Tools

    return Tools.open([str(store)], freshness=freshness, overlay_builder=builder(CFG))


def remember(store, about: str, text: str, **where) -> str:
    """An rca note about ABOUT written in a session opened with WHERE (branch=, worktree=, ...): its id."""
    t = branch_tools(store)
    try:
        s = t.open_session(**where).data["session"]
        return t.remember(s, "rca", text, [about]).data["note_id"]
    finally:
        t.close()
