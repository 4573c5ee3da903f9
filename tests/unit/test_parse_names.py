"""Qualified names, kinds and parents in the cases where languages differ or names collide."""

from __future__ import annotations

from pipeline.parse import parse_file


def names(path: str, code: str) -> tuple[list[tuple[str, str | None, str, int]], dict[str, str]]:
    pf = parse_file("r", path, code.encode())
    by_id = {n["id"]: n for n in pf.nodes[1:]}
    return [(n["kind"], n["subkind"], n["qualname"], n["start_line"]) for n in pf.nodes[1:]], {
        n["qualname"]: by_id[n["parent_id"]]["qualname"] if n["parent_id"] in by_id else "<file>"
        for n in pf.nodes[1:]}


def test_python_overloads_setters_and_hidden_locals():
    got, parents = names("a.py", (
        "import typing as t\n"
        "class A:\n"
        "    @t.overload\n"
        "    def f(self, x: int) -> int: ...\n"
        "    @overload\n"
        "    def f(self, x: str) -> str: ...\n"
        "    def f(self, x):\n"
        "        class Local:\n"
        "            def m(self): pass\n"
        "        return x\n"
        "    @property\n"
        "    def p(self): return 1\n"
        "    @p.setter\n"
        "    def p(self, v): pass\n"
        "if True:\n"
        "    def g(): pass\n"
        "else:\n"
        "    def g(): pass\n"
        "h = lambda: 1\n"))
    # the overload stubs above f belong to its node (it starts at the first stub's decorator), and a
    # name bound to a lambda is a function of subkind lambda
    assert got == [("class", "class", "A", 2), ("method", None, "A.f", 3), ("method", None, "A.p", 11),
                   ("method", None, "A.p#2", 13), ("function", None, "g", 16), ("function", None, "g#2", 18),
                   ("function", "lambda", "h", 19)]
    assert parents == {"A": "<file>", "A.f": "A", "A.p": "A", "A.p#2": "A", "g": "<file>", "g#2": "<file>",
                       "h": "<file>"}


def test_c_prototype_yields_to_definition_and_function_pointers_are_not_functions():
    got, _ = names("a.c", "static int f(int);\nint (*fp)(int);\nint f(int x) { return x; }\nint g(void);\n")
    assert got == [("function", None, "f", 3), ("function", None, "g", 4)]


def test_cpp_namespaces_prefix_and_out_of_line_methods():
    got, parents = names("a.cpp", (
        "namespace outer { namespace inner {\n"
        "class K { void m(); };\n"
        "void K::m() {}\n"
        "void free_fn() {}\n"
        "} }\n"
        "void outer::inner::K::m2() {}\n"
        "Other::Other() {}\n"))
    assert got == [("class", "class", "outer.inner.K", 2), ("method", None, "outer.inner.K.m", 3),
                   ("function", None, "outer.inner.free_fn", 4), ("method", None, "outer.inner.K.m2", 6),
                   ("method", None, "Other.Other", 7)]
    assert parents["outer.inner.K.m"] == "outer.inner.K" and parents["outer.inner.K.m2"] == "outer.inner.K"
    assert parents["Other.Other"] == "<file>"


def test_rust_impl_of_a_foreign_type_is_its_own_node_block_by_block():
    got, parents = names("a.rs", (
        "impl Remote { fn a(&self) {} }\n"
        "impl Display for Remote { fn fmt(&self) {} }\n"
        "mod inner {\n"
        "    pub struct Local;\n"
        "    impl Local { pub fn new() -> Self { Local } }\n"
        "}\n"
        "#[cfg(test)]\n"
        "mod tests { #[test] fn t() { fn helper() {} } }\n"))
    assert got == [("class", "impl", "Remote", 1), ("method", None, "Remote.a", 1),
                   ("class", "impl", "Remote#2", 2),
                   ("method", None, "Remote.fmt", 2), ("class", "struct", "inner.Local", 4),
                   ("method", None, "inner.Local.new", 5), ("function", None, "tests.t", 8)]
    assert parents == {"Remote": "<file>", "Remote.a": "Remote", "Remote#2": "<file>", "Remote.fmt": "Remote#2",
                       "inner.Local": "<file>", "inner.Local.new": "inner.Local", "tests.t": "<file>"}


def test_typescript_overload_signatures_and_object_literal_methods():
    got, _ = names("a.ts", (
        "function f(a: string): void;\n"
        "function f(a: number): void;\n"
        "function f(a: any) {}\n"
        "const api = { get() {} };\n"
        "declare function ambient(x: number): void;\n"
        "describe('x', () => { function inner() {} });\n"))
    assert got == [("function", None, "f", 3), ("function", None, "ambient", 5)]


def test_java_overloads_and_anonymous_classes():
    got, _ = names("A.java", (
        "class A {\n"
        "  void run(int x) {}\n"
        "  void run(String s) { Runnable r = new Runnable() { public void run() {} }; }\n"
        "}\n"))
    assert got == [("class", "class", "A", 1), ("method", None, "A.run", 2), ("method", None, "A.run#2", 3)]


def test_go_generic_receivers_and_grouped_types():
    got, parents = names("a.go", (
        "package p\n"
        "type (\n"
        "\tA struct{}\n"
        "\tB interface{ M() }\n"
        ")\n"
        "func (a *A[T]) Get() T { var t T; return t }\n"
        "func (B2) X() {}\n"))
    assert got == [("class", "struct", "A", 3), ("class", "interface", "B", 4), ("method", None, "A.Get", 6),
                   ("method", None, "B2.X", 7)]
    assert parents["A.Get"] == "A" and parents["B2.X"] == "<file>"
