"""Targets written as C++ and Rust write names (``path::DBImpl::Write``, a namespace or ``mod`` left
out) on a real repository through the real index job, read by get, walk and remember alike; the
"did you mean" of a name that is not there, the named file's nodes first, exact case before
case-folded, and remember saying it as get does (a poly-language probe on leveldb, ripgrep and cobra:
only ``db_impl.cc::leveldb.DBImpl.Write`` was found, and ``version_set.cc::Version::Get`` was offered
two other files' ``DBImpl.Get``)."""

from __future__ import annotations

import pytest

from stratum.errors import InvalidArgument, NoteRejected, NotFound

pytestmark = pytest.mark.slow

FILES = {
    "cc/db.h": ("#pragma once\nnamespace shop {\nclass Store {\n public:\n  int Get(int k);\n  int Put(int k);\n};\n"
                "class Cache {\n public:\n  int Get(int k);\n};\n}  // namespace shop\n"),
    "cc/db.cc": ("#include \"db.h\"\nnamespace shop {\n"
                 "int Store::Get(int k) { return Put(k); }\n"                     # 3
                 "int Store::Put(int k) { return k; }\n"
                 "int Cache::Get(int k) { return k; }\n"
                 "int Helper(int x) { return x; }\n}  // namespace shop\n"),
    "cc/version.cc": ("namespace shop {\nclass Version {\n public:\n  int Get();\n};\n"
                      "int Version::Get() { return 1; }\n}  // namespace shop\n"),
    "cc/two.cc": "namespace a {\nint f() { return 1; }\n}\nnamespace b {\nint f() { return 2; }\n}\n",
    "rs/src/lib.rs": ("pub mod sinks {\n    pub struct Utf8;\n    impl Utf8 {\n"
                      "        pub fn line(&self) -> i32 {\n            1\n        }\n    }\n}\n\n"
                      "pub struct Searcher;\n\nimpl Searcher {\n"
                      "    pub fn search_path(&self) -> i32 {\n            2\n    }\n}\n\n"
                      "#[cfg(test)]\nmod tests {\n    #[test]\n    fn buffer_basics1() {\n"
                      "        assert_eq!(1, 1);\n    }\n}\n"),
    "py/shop.py": ("class Cart:\n    def discount(self):\n        return 1\n\n\n"
                   "def total():\n    return 1\n\n\ndef total():\n    return 2\n"),
    "go/cmd.go": ("package cmd\n\ntype Command struct{}\n\n"
                  "func (c *Command) execute() error { return nil }\n\n"
                  "func (c *Command) Execute() error { return c.execute() }\n\n"
                  "func (c *Command) ExecuteC() error { return nil }\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.clirun import session_over

    with session_over(tmp_path_factory.mktemp("s33targets") / "repo", FILES) as (t, sid):
        yield t, sid, str(t.memory.shards.shards[0].store.root)


def _got(tools, target: str) -> str:
    t, sid, _ = tools
    (item,) = t.get(sid, target, level="summary").items
    return f"{item.path}::{item.qualname}"


def _near(message: str) -> list[str]:
    """The names a refusal's "did you mean" lists, in its order."""
    return message.partition("did you mean ")[2].rstrip("?").split(", ")


def test_cpp_names_with_double_colons_and_no_namespace_name_their_node(tools):
    for target in ("cc/db.cc::Store::Get", "cc/db.cc::Store.Get", "cc/db.cc::shop::Store::Get",
                   "cc/db.cc::shop.Store.Get", "x/cc/db.cc::Store::Get"):     # a traceback's path too
        assert _got(tools, target) == "cc/db.cc::shop.Store.Get", target
    assert _got(tools, "cc/version.cc::Version::Get") == "cc/version.cc::shop.Version.Get"
    assert _got(tools, "cc/db.h::Store::Get") == "cc/db.h::shop.Store.Get"        # the declaration's file
    assert _got(tools, "cc/db.cc::Helper") == "cc/db.cc::shop.Helper"              # a namespace's function
    assert _got(tools, "cc/two.cc::a::f") == "cc/two.cc::a.f"
    assert _got(tools, "cc/db.cc:4") == "cc/db.cc::shop.Store.Put"                 # path:LINE as before


def test_a_class_is_never_left_out_and_two_namespaces_are_refused_by_name(tools):
    t, sid, _ = tools
    # Get in db.cc is Store's and Cache's: a class (db.h declares them) is no namespace to leave out
    with pytest.raises(NotFound, match="did you mean") as e:
        t.get(sid, "cc/db.cc::Get")
    assert set(_near(e.value.message)[:2]) == {"cc/db.cc::shop.Cache.Get", "cc/db.cc::shop.Store.Get"}
    with pytest.raises(InvalidArgument, match=r"'cc/two.cc::f' names 2 nodes: cc/two.cc::a.f, cc/two.cc::b.f; "
                                              "give more of the qualified name"):
        t.get(sid, "cc/two.cc::f")


def test_rust_modules_and_impls_written_with_double_colons(tools):
    assert _got(tools, "rs/src/lib.rs::sinks::Utf8") == "rs/src/lib.rs::sinks.Utf8"
    assert _got(tools, "rs/src/lib.rs::sinks::Utf8::line") == "rs/src/lib.rs::sinks.Utf8.line"
    assert _got(tools, "rs/src/lib.rs::Searcher::search_path") == "rs/src/lib.rs::Searcher.search_path"
    assert _got(tools, "rs/src/lib.rs::tests::buffer_basics1") == "rs/src/lib.rs::tests.buffer_basics1"
    assert _got(tools, "rs/src/lib.rs::buffer_basics1") == "rs/src/lib.rs::tests.buffer_basics1"   # mod left out
    t, sid, _ = tools
    with pytest.raises(NotFound, match=r"did you mean rs/src/lib.rs::Searcher.search_path"):
        t.get(sid, "rs/src/lib.rs::search_path")       # an impl is the type's: never left out


def test_python_targets_read_as_before(tools):
    t, sid, _ = tools
    with pytest.raises(NotFound, match=r"did you mean py/shop.py::Cart.discount\?"):
        t.get(sid, "py/shop.py::discount")          # a method is never named without its class
    assert _got(tools, "py/shop.py::Cart.discount") == "py/shop.py::Cart.discount"
    assert _got(tools, "py/shop.py::total#2") == "py/shop.py::total#2"
    assert _got(tools, "py/shop.py::total") == "py/shop.py::total"


def test_walk_and_remember_read_the_same_spelling(tools):
    t, sid, _ = tools
    walked = t.walk(sid, "cc/db.cc::Store::Get", edges=["calls"]).items
    assert [f"{i.path}::{i.qualname}" for i in walked] == ["cc/db.cc::shop.Store.Put"]
    r = t.remember(sid, "insight", "Get reads through Put", about=["rs/src/lib.rs::Searcher::search_path",
                                                                    "cc/db.cc::Store::Get"])
    nid = r.data["note_id"]
    about = sorted(f"{i.path}::{i.qualname}" for i in t.walk(sid, nid, edges=["about"]).items)
    assert about == ["cc/db.cc::shop.Store.Get", "rs/src/lib.rs::Searcher.search_path"]


def test_did_you_mean_names_the_files_node_first_and_exact_case_first(tools):
    t, sid, _ = tools
    with pytest.raises(NotFound) as e:          # another class's Get in db.cc sorts before version.cc
        t.get(sid, "cc/version.cc::Versio::Get")
    assert _near(e.value.message)[0] == "cc/version.cc::shop.Version.Get"
    with pytest.raises(NotFound) as e:          # a name cut short: none was offered
        t.get(sid, "go/cmd.go::Command.Exec")
    assert _near(e.value.message)[:2] == ["go/cmd.go::Command.Execute", "go/cmd.go::Command.ExecuteC"]
    with pytest.raises(NotFound) as e:          # execute is first in the file and was offered first
        t.get(sid, "cmd.Command.Execute")
    assert _near(e.value.message)[:2] == ["go/cmd.go::Command.Execute", "go/cmd.go::Command.execute"]
    with pytest.raises(NotFound) as e:
        t.walk(sid, "go/cmd.go::Command.Exec", edges=["calls"])
    assert _near(e.value.message)[0] == "go/cmd.go::Command.Execute"


def test_remember_says_did_you_mean_and_the_ambiguity_as_get_does(tools):
    t, sid, _ = tools
    with pytest.raises(NoteRejected, match=r"unknown target: 'go/cmd.go::Command.Exec': .*; "
                                           r"did you mean go/cmd.go::Command.Execute, "):
        t.remember(sid, "insight", "x", about=["go/cmd.go::Command.Exec"])
    with pytest.raises(NoteRejected, match=r"unknown target: 'cc/two.cc::f': .*names 2 nodes: "
                                           r"cc/two.cc::a.f, cc/two.cc::b.f"):
        t.remember(sid, "insight", "x", about=["cc/two.cc::f"])


def test_cli_get_reads_the_cpp_spelling(tools, capsys):
    from tests.clirun import run

    _, _, store = tools
    rc, out, err = run(capsys, "get", "cc/db.cc::shop::Store::Get", "--store", store, "--level", "summary")
    assert rc == 0 and "[cc/db.cc::shop.Store.Get]" in out, err
