"""A branch session links a changed Java file's call to the overload its arguments fit, as a full
index of the branch does: the overlay read the base's definitions without their parameter records,
so a branch's call went to the first overload."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CART = ("package shop;\n\npublic class Cart {\n    public void add(String item) {\n    }\n\n"
        "    public void add(String item, int n) {\n    }\n}\n")
MAIN = "package shop;\n\npublic class Main {\n    public static void run(Cart c) {\n        c.add(\"x\");\n    }\n}\n"


def _calls(t: Tools, sid: str, target: str) -> set[str]:
    return {i.id for i in t.walk(sid, target, edges=["calls"], direction="out").items}


def test_a_branchs_call_picks_the_overload_its_arguments_fit(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"src/shop/Cart.java": CART, "src/shop/Main.java": MAIN})
    index_repository(r.path, tmp_path / "store", CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("two", {"src/shop/Main.java": MAIN.replace('c.add("x");', 'c.add("x", 2);')})
    index_repository(r.path, tmp_path / "full", CFG)
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([str(tmp_path / "store")], overlay_builder=builder(CFG))
    full = Tools.open([str(tmp_path / "full")])
    try:
        sid, fid = t.open_session(branch="feature").data["session"], full.open_session().data["session"]
        want = _calls(full, fid, "src/shop/Main.java::Main.run")
        assert want == {full.get(fid, "src/shop/Cart.java::Cart.add#2", "api").items[0].id}, want
        assert _calls(t, sid, "src/shop/Main.java::Main.run") == want
    finally:
        t.close()
        full.close()
