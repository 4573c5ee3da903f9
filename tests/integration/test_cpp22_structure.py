"""C++ structure around the preprocessor as a user queries it, on a real git repository through the
real index job and ``Tools``: an ``#if`` in a constructor's initialiser list (leveldb's
``Limiter``) no longer puts the rest of the file inside that class, members inside an ``#if`` in a
class body are the class's, ``FRIEND_TEST(A, B);`` is no method, and an annotation after a
macro-typed member names no node."""

from __future__ import annotations

import pytest

from tests.unit.test_cpp22_structure import LIMITER

pytestmark = pytest.mark.slow

FILES = {
    "util/env_posix.cc": LIMITER,                  # leveldb's, cut down
    "db/db_impl.h": (
        "#pragma once\nnamespace leveldb {\n"
        "class DBImpl {\n public:\n  void Put();\n"
        "  FRIEND_TEST(DBTest, Empty);\n"               # 6
        "#if defined(_WIN32)\n  void CompactWin();\n#else\n  void CompactPosix();\n#endif\n"
        " private:\n  port::Mutex mu_;\n"
        "  MACRO_TYPE(Writer) writers_ GUARDED_BY(mu_);\n"
        "  void Flush();\n};\n"
        "}  // namespace leveldb\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("cpp22"), FILES, "leveldb") as got:
        yield got


def _at(tools, target: str) -> tuple[str, str]:
    t, sid = tools
    it = t.get(sid, target, level="summary").items[0]
    return it.kind, it.qualname


def _walk(tools, target: str, edge: str) -> list[str]:
    t, sid = tools
    return sorted(f"{i.path}::{i.qualname}" for i in t.walk(sid, target, edges=[edge], page_size=50).items)


def test_an_if_in_an_initialiser_list_leaves_the_rest_of_the_file_outside_the_class(tools):
    assert _walk(tools, "util/env_posix.cc", "contains") == [
        "util/env_posix.cc::leveldb.Limiter", "util/env_posix.cc::leveldb.MaxMmaps",
        "util/env_posix.cc::leveldb.PosixSequentialFile"]            # were all inside Limiter
    assert _walk(tools, "util/env_posix.cc::leveldb.Limiter", "contains") == [
        "util/env_posix.cc::leveldb.Limiter.Acquire", "util/env_posix.cc::leveldb.Limiter.Limiter"]
    t, sid = tools
    lim = t.get(sid, "util/env_posix.cc::leveldb.Limiter", level="summary").items[0]
    assert (lim.start_line, lim.end_line) == (3, 23)                   # was 3 to the file's end
    assert _at(tools, "util/env_posix.cc:53") == ("method", "leveldb.PosixSequentialFile.Skip")
    assert _at(tools, "util/env_posix.cc:9") == ("method", "leveldb.Limiter.Limiter")   # was the class


def test_class_members_inside_an_if_are_members_and_macro_statements_are_none(tools):
    assert _walk(tools, "db/db_impl.h::leveldb.DBImpl", "contains") == [
        "db/db_impl.h::leveldb.DBImpl.CompactPosix", "db/db_impl.h::leveldb.DBImpl.CompactWin",
        "db/db_impl.h::leveldb.DBImpl.Flush", "db/db_impl.h::leveldb.DBImpl.Put"]
    t, sid = tools
    api = t.get(sid, "db/db_impl.h::leveldb.DBImpl", level="api").items[0].text
    assert "void CompactWin()" in api and "void Flush()" in api
    found = t.search(sid, "FRIEND_TEST GUARDED_BY DBImpl", kinds=["method", "function"], page_size=20).items
    assert not [i.qualname for i in found if i.qualname.rsplit(".", 1)[-1].isupper()]
