"""The rules under session 22's Rust and Java links, on real parses: a Rust macro's calls read off its
token tree (``pipeline.macrocalls``), which Java argument fits which parameter (``pipeline.javaargs``),
Rust crate roots and outside crates (``pipeline.rustmods``), and ``use super::*`` in an inline module."""

from __future__ import annotations

import pytest

from pipeline import languages
from pipeline.javaargs import fits
from pipeline.macrocalls import macro_calls
from pipeline.parse import parse_file
from pipeline.rustmods import RustModules, dependencies


def _macro_calls(src: bytes) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []

    def walk(n):
        if n.type == "macro_invocation":
            out.extend((name, recv) for _, name, recv in macro_calls(src, n))
        for c in n.children:
            walk(c)

    walk(languages.parse_tree("rust", src).root_node)
    return out


def test_a_macros_calls_are_read_off_its_tokens():
    src = (b"fn t() {\n  assert_eq!(foo::bar(x), y.baz(1));\n  println!(\"{}\", f(2));\n"
           b"  assert!(self.ok() && Self::new(1).is_err());\n"
           b"  write!(w, \"{}\", format!(\"{}\", g::<u8>(3)))?;\n"
           b"  dbg!(Vec::<Vec<u8>>::new(), x.0.y(), crate::m::f(), z.w.q(), if a(1) { 1 } else { 2 });\n"
           b"  my_dsl!(not_read(1));\n}\n")
    assert _macro_calls(src) == [
        ("bar", "foo"), ("baz", "y"), ("f", ""), ("ok", "self"), ("new", "self"), ("is_err", "."),
        ("g", ""), ("new", "Vec"), ("y", "."), ("f", "crate.m"), ("q", "z.w"), ("a", "")]


@pytest.mark.parametrize("arg,param,ok", [
    ("int", "long", True), ("long", "int", False), ("int", "Integer", True), ("int", "Long", False),
    ("int", "Number", True), ("String", "Reader", False), ("String", "CharSequence", True),
    ("Class", "Type", True), ("Class", "TypeToken", False), ("null", "int", False), ("null", "Reader", True),
    ("Foo", "Bar", True), ("Foo", "String", False), ("", "String", True), ("String", "", True),
    ("Integer", "long", True), ("int[]", "Object", True), ("int[]", "String", False),
])
def test_a_java_argument_fits_a_parameter_as_java_says(arg, param, ok):
    assert fits(arg, param) is ok


def test_a_repository_class_is_only_what_its_bases_say():
    known = {"Node": {"Node"}, "Leaf": {"Leaf", "Node"}}
    assert fits("Leaf", "Node", known) and not fits("Node", "Leaf", known)
    assert not fits("List", "Node", known)           # an outside class is no repository class
    assert fits("Leaf", "Serializable", known)       # it may implement an outside interface


def test_a_manifests_dependencies_are_outside_crates():
    toml = ('[package]\nname = "app"\n\n[dependencies]\nserde-json = "1"\nlocal = { path = "../local" }\n\n'
            '[dev-dependencies]\nwalkdir = "2"\n\n[target.\'cfg(unix)\'.dependencies.libc]\nversion = "0.2"\n')
    assert dependencies(toml) == {"serde_json", "local", "walkdir", "libc"}
    mods = RustModules({"Cargo.toml", "src/lib.rs", "tests/t.rs", "local/Cargo.toml", "local/src/lib.rs"},
                       {"Cargo.toml": toml, "local/Cargo.toml": '[package]\nname = "local"\n'})
    assert mods.outside() >= {"std", "serde_json", "walkdir", "libc"} and "local" not in mods.outside()


@pytest.mark.parametrize("path,root", [
    ("src/lib.rs", True), ("tests/t.rs", True), ("src/bin/tool.rs", True), ("examples/demo.rs", True),
    ("build.rs", True), ("src/util.rs", False), ("tests/common/mod.rs", False), ("src/foo/tests/x.rs", False)])
def test_crate_roots(path, root):
    assert RustModules({"Cargo.toml", path}, {}).is_root(path) is root


def test_use_super_in_an_inline_module_is_the_files_own_module():
    imps = parse_file("r", "src/util.rs", b"use super::x;\nmod tests {\n    use super::*;\n"
                                         b"    use super::super::y as z;\n}\n").imports
    assert [(i.target, i.names, i.bound) for i in imps] == [
        ("super::x", (), ()), ("self", ("*",), ()), ("self::super::y", (), ("z",))]
