"""The own object's calls as a user walks them, on a real repository through the real index job:
a Rust macro's arguments (``println!("{}", Self::helper(2))``) record ``Self::`` as written, as a
call outside a macro does (``Self.helper``, linked to the impl's associated function), and C++'s
``this->h()`` (and ``(*this).h()``) in a method defined outside its class (``int A::run()``, ``A``
in an included header) links to ``A``'s ``h`` as ``h()`` there does, wherever ``h``'s body lives;
its ``as`` reads ``this.h`` as Rust's ``Self::new()`` reads ``Self.new``."""

from __future__ import annotations

import pytest

from tests.callwalk import indexed, walk_calls

pytestmark = pytest.mark.slow

FILES = {
    "rs/src/lib.rs": (
        "pub struct S;\n\nimpl S {\n"
        "    pub fn new() -> S {\n        S\n    }\n"
        "    pub fn helper(x: i32) -> i32 {\n        x\n    }\n"
        "    pub fn f(&self) -> i32 {\n        1\n    }\n"
        "    pub fn show(&self) {\n"
        "        println!(\"{}\", Self::helper(2));\n"               # 14
        "        assert!(format!(\"{:?}\", Self::new()).len() > 0);\n"  # 15: a macro in a macro
        "    }\n"
        "    pub fn listed(&self) -> Vec<i32> {\n        vec![self.f()]\n    }\n"
        "    pub fn plain() -> i32 {\n        Self::helper(1)\n    }\n}\n"),
    "cc/a.h": "#pragma once\nclass A {\n public:\n  int h();\n  int run();\n  int both();\n  int star();\n};\n",
    "cc/h.cc": "#include \"a.h\"\n\nint A::h() { return 1; }\n",
    "cc/a.cc": ("#include \"a.h\"\n\nint A::run() { return this->h(); }\n\n"
                "int A::both() { return h() + this->h(); }\n\nint A::star() { return (*this).h(); }\n"),
    "cc/b.cpp": "class B {\n public:\n  int g() { return 2; }\n  int k() { return this->g(); }\n};\n",
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    yield from indexed(tmp_path_factory.mktemp("s25receivers"), FILES)


def test_self_in_a_rust_macros_arguments_reads_as_written_and_links_to_the_impl(tools):
    assert walk_calls(tools, "rs/src/lib.rs::S.show") == [
        ("rs/src/lib.rs::S.helper", "Self.helper", "own class", 14),       # was self.helper
        ("rs/src/lib.rs::S.new", "Self.new", "own class", 15)]             # was self.new
    assert walk_calls(tools, "rs/src/lib.rs::S.listed") == [("rs/src/lib.rs::S.f", "self.f", "own class", 18)]
    # who calls helper: inside a macro and outside one, the same words
    assert walk_calls(tools, "rs/src/lib.rs::S.helper", "in") == [
        ("rs/src/lib.rs::S.plain", "Self.helper", "own class", 21),
        ("rs/src/lib.rs::S.show", "Self.helper", "own class", 14)]


def test_cpp_this_arrow_links_to_the_own_class_also_outside_the_class_body(tools):
    # in the class body, as before
    assert walk_calls(tools, "cc/b.cpp::B.k") == [("cc/b.cpp::B.g", "this.g", "own class", 4)]
    # int A::run() { return this->h(); } with A in a.h and h's body in h.cc: was no edge at all
    assert walk_calls(tools, "cc/a.cc::A.run") == [("cc/h.cc::A.h", "this.h", "own class, its definition", 3)]
    # this->h() and h() are one call of one method, linked by the same rule
    assert walk_calls(tools, "cc/a.cc::A.both") == [("cc/h.cc::A.h", "h", "own class, its definition", 5)]
    assert walk_calls(tools, "cc/a.cc::A.star") == [("cc/h.cc::A.h", "this.h", "own class, its definition", 7)]
    assert walk_calls(tools, "cc/h.cc::A.h", "in") == [
        ("cc/a.cc::A.both", "h", "own class, its definition", 5),
        ("cc/a.cc::A.run", "this.h", "own class, its definition", 3),
        ("cc/a.cc::A.star", "this.h", "own class, its definition", 7)]
