"""The call records a real parse stores for the own object (``pipeline.callrefs``): a Rust macro's
arguments keep ``Self``/``self`` as written, as calls outside a macro do, and C++'s ``(*this).h()``
is recorded as ``this->h()`` is."""

from __future__ import annotations

import json

from pipeline.parse import parse_file


def _calls(path: str, src: str, owner: str) -> list[tuple[str, str]]:
    nodes = {n["qualname"]: json.loads(n.get("meta") or "{}") for n in parse_file("r", path, src.encode()).nodes}
    return [(c[0], c[1]) for c in nodes[owner].get("calls", ())]


def test_a_rust_macros_own_calls_are_recorded_as_written():
    src = ("struct S;\nimpl S {\n    fn f(&self) {\n"
           "        Self::a(); self.b();\n"
           "        assert_eq!(Self::a(), self.b(), \"{}\", format!(\"{}\", Self::c(self.x.d())));\n"
           "        dbg!(Self::Inner::e(), Vec::<u8>::new(), other.g());\n    }\n}\n")
    assert _calls("a.rs", src, "S.f") == [
        ("a", "Self"), ("b", "self"),                   # outside the macro; inside, the same calls again
        ("c", "Self"), ("d", "self.x"), ("e", "Self.Inner"), ("new", "Vec"), ("g", "other")]


def test_cpp_deref_this_is_this():
    src = "class A {\n  int h();\n  int f() { return (*this).h() + this->h() + (*p).h(); }\n};\n"
    assert _calls("a.cpp", src, "A.f") == [("h", "this"), ("h", ".")]     # (*this).h and this->h are one call
