"""A ``calls`` item's ``as`` is the call as the code writes it (``pipeline.callrefs``), while the
call still links through its own object as ``self`` would (``pipeline.calls``): Go's
``h.Store.Get("x")`` in ``func (h *Handler)`` read ``self.Store.Get``, TypeScript's
``this.subtotal()`` ``self.subtotal`` (Java's ``this.g()`` and Rust's ``Self::new()`` alike);
Python's ``self`` and ``cls`` read as written already.
"""

from __future__ import annotations

import pytest
from stratum.config import default_store_path

pytestmark = pytest.mark.slow

FILES = {
    "api/go.mod": "module example.com/x/api\n\ngo 1.21\n",
    "api/h.go": ("package api\n\ntype Store struct{}\n\nfunc (s *Store) Get(id string) string { return id }\n\n"
                 "type Handler struct {\n\tStore *Store\n}\n\nfunc (h *Handler) Serve() string {\n"
                 "\treturn h.Store.Get(\"x\") + h.name()\n}\n\nfunc (h *Handler) name() string { return \"h\" }\n"),
    "web/cart.ts": ("export class Cart {\n  subtotal(): number {\n    return 1;\n  }\n"
                    "  total(): number {\n    return this.subtotal();\n  }\n}\n"),
    "java/A.java": "class A {\n  int g() { return 1; }\n  int f() { return this.g(); }\n}\n",
    "rs/src/lib.rs": ("pub struct S;\n\nimpl S {\n    pub fn new() -> S {\n        S\n    }\n"
                      "    pub fn make() -> S {\n        Self::new()\n    }\n    pub fn run(&self) -> S {\n"
                      "        self.again()\n    }\n    pub fn again(&self) -> S {\n        S\n    }\n}\n"),
    "py/shop.py": ("class Shop:\n    def tax(self):\n        return 1\n\n"
                   "    def total(self):\n        return self.tax()\n\n"
                   "    @classmethod\n    def make(cls):\n        return cls.build()\n\n"
                   "    @classmethod\n    def build(cls):\n        return cls()\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import EmbedConfig, IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    r = Repo(tmp_path_factory.mktemp("links24calls") / "repo")
    r.commit("init", FILES)
    index_repository(r.path, None, IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False)))
    t = Tools.open([str(default_store_path(r.path))])
    yield t, t.open_session(author="agent").data["session"]
    t.close()


def _calls(tools, target: str) -> list[tuple[str, str, str]]:
    """(callee, as, how) of each call the target makes."""
    t, sid = tools
    items = t.walk(sid, target, edges=["calls"], direction="out").items
    return sorted((i.qualname, i.meta.get("as"), i.meta.get("how")) for i in items)


def test_a_go_receivers_calls_read_as_written_and_link_as_its_own(tools):
    assert _calls(tools, "api/h.go::Handler.Serve") == [
        ("Handler.name", "h.name", "own class"), ("Store.Get", "h.Store.Get", "attribute's class")]


def test_this_and_self_read_as_written_and_link_to_the_own_class(tools):
    assert _calls(tools, "web/cart.ts::Cart.total") == [("Cart.subtotal", "this.subtotal", "own class")]
    assert _calls(tools, "java/A.java::A.f") == [("A.g", "this.g", "own class")]
    assert _calls(tools, "rs/src/lib.rs::S.make") == [("S.new", "Self.new", "own class")]
    assert _calls(tools, "rs/src/lib.rs::S.run") == [("S.again", "self.again", "own class")]
    assert _calls(tools, "py/shop.py::Shop.total") == [("Shop.tax", "self.tax", "own class")]
    assert _calls(tools, "py/shop.py::Shop.make") == [("Shop.build", "cls.build", "own class")]
