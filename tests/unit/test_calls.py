"""Call sites and bases read from real tree-sitter parses, and their resolution to definitions."""

from __future__ import annotations

import json

import pytest

from pipeline.calls import resolve
from pipeline.imports import FileImports, resolve as resolve_imports
from pipeline.parse import parse_file

REPO = "r"


def _refs(path: str, src: str) -> dict[str, dict]:
    return {n["qualname"]: json.loads(n.get("meta") or "{}") for n in parse_file(REPO, path, src.encode()).nodes}


def _calls(meta: dict) -> set[tuple[str, str]]:
    return {(c[0], c[1]) for c in meta.get("calls", ())}


@pytest.mark.parametrize("path,src,owner,calls,bases", [
    ("a.py", "import m\nclass A(B, m.C):\n    def f(self):\n        def inner():\n            q()\n"
             "        self.g(); h(); m.k(); a.b.c(); Foo(); super().init(); x[0]()\n",
     "A.f", {("q", ""), ("g", "self"), ("h", ""), ("k", "m"), ("c", "a.b"), ("Foo", ""), ("init", "super"),
             ("super", "")}, ("A", [["B", ""], ["C", "m"]])),
    ("a.js", "class A extends B {\n  f() { this.g(); h(); mod.k(); new Foo(); }\n}\n",
     "A.f", {("g", "this"), ("h", ""), ("k", "mod"), ("Foo", "")}, ("A", [["B", ""]])),
    ("a.ts", "class A extends B implements I {\n  f(): void { this.g(); h<T>(); }\n}\n",
     "A.f", {("g", "this"), ("h", "")}, ("A", [["B", ""], ["I", ""]])),
    ("a.go", "package p\n\nfunc (s *S) F() {\n\ts.G()\n\th()\n\tfmt.Println()\n}\n",
     "S.F", {("G", "s"), ("h", ""), ("Println", "fmt")}, None),
    ("A.java", "class A extends B implements I {\n  void f() { this.g(); h(); Mod.k(); new Foo(); a.b().c(); }\n}\n",
     "A.f", {("g", "this"), ("h", ""), ("k", "Mod"), ("Foo", ""), ("b", "a"), ("c", ".")},
     ("A", [["B", ""], ["I", ""]])),
    ("a.rs", "struct S;\nimpl S {\n    fn f(&self) { self.g(); h(); m::k(); S::new(); x.y(); }\n}\n",
     "S.f", {("g", "self"), ("h", ""), ("k", "m"), ("new", "S"), ("y", "x")}, None),
    ("a.c", "int f(void) {\n  g();\n  s->h();\n  return 0;\n}\n", "f", {("g", ""), ("h", "s")}, None),
    ("a.cpp", "class A : public B, private ns::C {\n  void f() { g(); this->h(); ns::k(); new Foo(); }\n};\n",
     "A.f", {("g", ""), ("h", "this"), ("k", "ns"), ("Foo", "")}, ("A", [["B", ""], ["C", "ns"]])),
])
def test_call_sites_and_bases_as_written(path, src, owner, calls, bases):
    refs = _refs(path, src)
    assert _calls(refs[owner]) == calls
    if bases is not None:
        cls, want = bases
        assert refs[cls]["bases"] == want


def test_a_closures_calls_are_its_functions_and_module_calls_the_files():
    refs = _refs("a.py", "def f():\n    def g():\n        deep()\n    return g\n\nsetup()\n")
    assert _calls(refs["f"]) == {("deep", "")}
    assert _calls(refs[""]) == {("setup", "")}          # the file node's qualname is ""


def test_a_class_hidden_in_a_function_lends_its_bases_to_nobody():
    refs = _refs("a.py", "class Outer:\n    def test(self):\n        class Local(Base):\n            pass\n")
    assert "bases" not in refs["Outer"] and "bases" not in refs["Outer.test"]


def _index(files: dict[str, str]) -> tuple[list[dict], dict[tuple[str, str], str]]:
    parsed = [parse_file(REPO, p, s.encode()) for p, s in files.items()]
    nodes = [n for pf in parsed for n in pf.nodes]
    fi = [pf.file_imports() for pf in parsed]
    manifests = {p: s for p, s in files.items() if p.endswith("go.mod")}
    bindings: dict = {}
    imp_edges, _ = resolve_imports(REPO, fi, list(files), manifests, bindings=bindings)
    edges = resolve(nodes, imp_edges, bindings)
    name = {n["id"]: (n["path"], n["qualname"]) for n in nodes}
    return [{**e, "src": name[e["src"]], "dst": name[e["dst"]], "how": json.loads(e["meta"])["how"]}
            for e in edges], name


def _pairs(edges, kind="calls") -> set[tuple[tuple[str, str], tuple[str, str]]]:
    return {(e["src"], e["dst"]) for e in edges if e["kind"] == kind}


def test_python_calls_resolve_through_imports_classes_and_bases():
    edges, _ = _index({
        "pkg/__init__.py": "from pkg.core import make\n",
        "pkg/core.py": "def make():\n    return Thing()\n\n\nclass Base:\n    def save(self):\n        pass\n\n\n"
                       "class Thing(Base):\n    def run(self):\n        self.save()\n        self.step()\n\n"
                       "    def step(self):\n        pass\n",
        "pkg/other.py": "class Other:\n    def save(self):\n        pass\n",
        "app.py": "import pkg\nfrom pkg.core import Thing as T\n\n\ndef main():\n    pkg.make()\n    T().run()\n"
                  "    unknown()\n    obj.save()\n",
    })
    calls = _pairs(edges)
    assert (("pkg/core.py", "make"), ("pkg/core.py", "Thing")) in calls                  # same file
    assert (("pkg/core.py", "Thing.run"), ("pkg/core.py", "Base.save")) in calls         # inherited
    assert (("pkg/core.py", "Thing.run"), ("pkg/core.py", "Thing.step")) in calls        # own class
    assert (("app.py", "main"), ("pkg/core.py", "make")) in calls                        # pkg re-exports make
    assert (("app.py", "main"), ("pkg/core.py", "Thing")) in calls                       # bound as T
    # two classes define save: an expression's .save() is nobody's; unknown() is outside the repository
    assert not {d for s, d in calls if s == ("app.py", "main")} - {("pkg/core.py", "make"), ("pkg/core.py", "Thing"),
                                                                      ("pkg/core.py", "Thing.run")}
    assert _pairs(edges, "inherits") == {(("pkg/core.py", "Thing"), ("pkg/core.py", "Base"))}


def test_go_calls_resolve_within_the_package_and_through_an_imported_one():
    edges, _ = _index({
        "go.mod": "module example.com/m\n",
        "srv/server.go": "package srv\n\nimport \"example.com/m/util\"\n\ntype S struct{}\n\n"
                         "func (s *S) Start() {\n\ts.listen()\n\thelper()\n\tutil.Log()\n}\n",
        "srv/listen.go": "package srv\n\nfunc (s *S) listen() {}\n\nfunc helper() {}\n",
        "util/log.go": "package util\n\nfunc Log() {}\n",
    })
    assert {d for s, d in _pairs(edges) if s == ("srv/server.go", "S.Start")} == {
        ("srv/listen.go", "S.listen"), ("srv/listen.go", "helper"), ("util/log.go", "Log")}


def test_an_ambiguous_name_makes_no_edge():
    edges, _ = _index({
        "a.py": "def run():\n    go()\n",
        "b.py": "def go():\n    pass\n",
        "c.py": "def go():\n    pass\n",
    })
    assert not _pairs(edges)


def test_a_name_imported_in_two_functions_is_each_ones_own():
    edges, _ = _index({
        "m.py": "class Client:\n    pass\n\n\nclass Runner:\n    pass\n",
        "app.py": "def client():\n    from m import Client as cls\n    return cls()\n\n\n"
                  "def runner():\n    from m import Runner as cls\n    return cls()\n",
    })
    assert _pairs(edges) == {(("app.py", "client"), ("m.py", "Client")), (("app.py", "runner"), ("m.py", "Runner"))}


def test_a_c_call_through_a_header_links_to_the_definition():
    edges, _ = _index({
        "src/util.h": "int helper(int x);\nint declared_only(void);\n",
        "src/util.c": '#include "util.h"\n\nint helper(int x) {\n    return x + 1;\n}\n',
        "src/main.c": '#include "util.h"\n\nint main(void) {\n    declared_only();\n    return helper(1);\n}\n',
    })
    got = {e["dst"]: e["how"] for e in edges if e["src"] == ("src/main.c", "main")}
    assert got == {("src/util.c", "helper"): "imported file, its definition",
                   ("src/util.h", "declared_only"): "imported file"}      # no body anywhere: the prototype


def test_a_go_embedded_type_and_a_rust_trait_impl_are_bases():
    edges, _ = _index({
        "go.mod": "module example.com/m\n",
        "srv/base.go": "package srv\n\ntype Base struct{}\n\nfunc (b *Base) Close() {}\n",
        "srv/server.go": "package srv\n\ntype Server struct {\n\tBase\n\tname string\n}\n\n"
                         "func (s *Server) Stop() {\n\ts.Close()\n}\n",
        "src/lib.rs": "struct S;\n\ntrait Named {\n    fn name(&self) -> String { String::new() }\n}\n\n"
                      "impl Named for S {}\n\nimpl S {\n    fn shout(&self) -> String { self.name() }\n}\n",
    })
    assert _pairs(edges, "inherits") == {(("srv/server.go", "Server"), ("srv/base.go", "Base")),
                                         (("src/lib.rs", "S"), ("src/lib.rs", "Named"))}
    calls = _pairs(edges)
    assert (("srv/server.go", "Server.Stop"), ("srv/base.go", "Base.Close")) in calls     # a promoted method
    assert (("src/lib.rs", "S.shout"), ("src/lib.rs", "Named.name")) in calls             # a trait's default


def test_js_functions_set_on_an_object_or_a_prototype_are_methods_reached_by_their_object():
    # express's style: ``res.json = function json(obj) {...}``, ``View.prototype.render = ...``
    edges, name = _index({
        "lib/response.js": "var res = Object.create(null);\nmodule.exports = res;\n\n"
                           "res.json = function json(obj) {\n  return this.send(stringify(obj));\n};\n\n"
                           "res.send = (body) => body;\n\nres.get = function (field) { return field; };\n\n"
                           "function stringify(v) { return JSON.stringify(v); }\n",
        "lib/view.js": "function View(name) { this.name = name; }\n\n"
                       "View.prototype.render = function render() {\n  return this.lookup(this.name);\n};\n\n"
                       "View.prototype.lookup = function lookup(n) { return n; };\n\nmodule.exports = View;\n",
        "lib/app.js": "var app = exports = module.exports = {};\n\n"
                      "app.render = function render(res) {\n  app.get('x');\n  return res.json({});\n};\n",
    })
    defs = {q for p, q in name.values()}
    assert {"res.json", "res.send", "res.get", "View.render", "View.lookup", "app.render"} <= defs
    kinds = {n["qualname"]: n["kind"] for n in parse_file(REPO, "v.js", b"function V() {}\nV.prototype.f = () => 1;\n").nodes}
    assert kinds == {"": "file", "V": "function", "V.f": "method"}
    got = {(e["src"][1], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("res.json", "res.send")] == "own object"              # this.send
    assert got[("res.json", "stringify")] == "same file"
    assert got[("View.render", "View.lookup")] == "own object"        # this.lookup on a prototype
    assert got[("app.render", "res.json")] == "qualified name"        # res.json(...) from another file
    assert ("app.render", "res.get") not in got                       # app.get is not res.get


def test_a_variable_whose_class_the_syntax_says_reaches_that_class_method():
    edges, _ = _index({
        "m.py": "class Base:\n    def close(self):\n        pass\n\n\nclass Client(Base):\n    def get(self):\n"
                "        pass\n\n\nclass Other:\n    def get(self):\n        pass\n\n    def close(self):\n        pass\n",
        "app.py": "import typing as t\nfrom m import Client, Other\n\n\n"
                  "def use(o: t.Optional[Other] = None, p: 'Client' = None):\n"
                  "    c = Client()\n    c.get()\n    c.close()\n    o.get()\n    p.close()\n"
                  "    c = make()\n    c.get()\n\n\n"
                  "class Holder:\n    def __init__(self):\n        self.client = Client()\n\n"
                  "    def run(self):\n        self.client.get()\n\n\n"
                  "top = Other()\ntop.close()\n",
    })
    got = {(e["src"][1], e["dst"][0], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("use", "m.py", "Client.get")] == "variable's class"
    assert got[("use", "m.py", "Base.close")] == "variable's class"          # through its base
    assert got[("use", "m.py", "Other.get")] == "variable's class"           # Optional[Other]
    assert ("use", "m.py", "Other.close") not in got                          # p is a Client: Base.close
    assert got[("Holder.run", "m.py", "Client.get")] == "attribute's class"  # self.client = Client()
    assert got[("", "m.py", "Other.close")] == "variable's class"            # module level
    # ``c = make()`` retypes c (make names no class): the second c.get() links nowhere
    sites = [e for e in edges if e["src"] == ("app.py", "use") and e["dst"] == ("m.py", "Client.get")]
    assert [e["weight"] for e in sites] == [1.0]


def test_js_and_java_variables_typed_by_new_or_declaration():
    edges, _ = _index({
        "lib/a.js": "class Store {\n  save() {}\n}\nclass Cache {\n  save() {}\n}\n"
                    "function run() {\n  const s = new Store();\n  s.save();\n}\n",
        "A.java": "class Writer {\n  void emit() {}\n}\nclass Reader {\n  void emit() {}\n}\n"
                  "class Use {\n  void f(Reader r) {\n    Writer w = new Writer();\n    w.emit();\n    r.emit();\n  }\n}\n",
    })
    got = {(e["src"][1], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("run", "Store.save")] == "variable's class"
    assert ("run", "Cache.save") not in got
    assert got[("Use.f", "Writer.emit")] == "variable's class"
    assert got[("Use.f", "Reader.emit")] == "variable's class"


def test_go_and_rust_variables_typed_by_parameters_and_literals():
    edges, _ = _index({
        "go.mod": "module example.com/m\n",
        "web/context.go": "package web\n\ntype Context struct{}\n\nfunc (c *Context) JSON() {}\n\n"
                          "type Router struct{}\n\nfunc NewRouter() *Router { return &Router{} }\n",
        "web/router.go": "package web\n\nfunc (r *Router) JSON() {}\n\nfunc (r *Router) Handle() {}\n",
        "app/main.go": "package app\n\nimport \"example.com/m/web\"\n\n"
                       "func handler(c *web.Context) {\n\tc.JSON()\n}\n\n"
                       "func setup() {\n\tr := web.NewRouter()\n\tr.Handle()\n\tr.JSON()\n}\n",
        "src/lib.rs": "struct Store;\nimpl Store {\n    fn new() -> Store { Store }\n    fn save(&self) {}\n}\n"
                      "struct Cache;\nimpl Cache {\n    fn save(&self) {}\n}\n"
                      "fn run(c: &Cache) {\n    let s = Store::new();\n    s.save();\n    c.save();\n}\n",
    })
    got = {(e["src"][1], e["dst"][0], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("handler", "web/context.go", "Context.JSON")] == "variable's class"
    assert got[("setup", "web/router.go", "Router.JSON")] == "variable's class"      # r := web.NewRouter()
    assert ("setup", "web/context.go", "Context.JSON") not in got
    assert got[("run", "src/lib.rs", "Store.save")] == "variable's class"            # let s = Store::new()
    assert got[("run", "src/lib.rs", "Cache.save")] == "variable's class"            # c: &Cache


def test_a_variable_holds_what_the_function_it_came_from_declares_it_returns():
    edges, _ = _index({
        "pkg/testing.py": "class FlaskClient:\n    def get(self):\n        pass\n",
        "pkg/app.py": "from __future__ import annotations\nimport typing as t\n"
                      "if t.TYPE_CHECKING:\n    from pkg.testing import FlaskClient\n\n\n"
                      "class Flask:\n    def test_client(self) -> FlaskClient:\n        pass\n\n"
                      "    def other(self) -> t.Optional[Flask]:\n        pass\n\n"
                      "    def run(self):\n        me = self.other()\n        me.test_client()\n\n\n"
                      "class Response:\n    def get(self):\n        pass\n",
        "tests/test_app.py": "from pkg.app import Flask\n\n\ndef test_get():\n    app = Flask()\n"
                             "    client = app.test_client()\n    client.get()\n    returns(1)\n",
        "go.mod": "module example.com/m\n",
        "web/engine.go": "package web\n\ntype Engine struct{}\n\nfunc New() (*Engine, error) { return &Engine{}, nil }\n\n"
                         "func (e *Engine) GET() {}\n\ntype Other struct{}\n\nfunc (o *Other) GET() {}\n",
        "app/main.go": "package app\n\nimport \"example.com/m/web\"\n\nfunc main() {\n\tr, _ := web.New()\n"
                       "\tr.GET()\n\tvar e *web.Engine = nil\n\te.GET()\n}\n",
    })
    got = {(e["src"][1], e["dst"][0], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("test_get", "pkg/testing.py", "FlaskClient.get")] == "variable's class"   # client = app.test_client()
    assert ("test_get", "pkg/app.py", "Response.get") not in got
    assert got[("Flask.run", "pkg/app.py", "Flask.test_client")] == "variable's class"    # me = self.other()
    assert got[("main", "web/engine.go", "Engine.GET")] == "variable's class"   # r, _ := web.New(); var e *web.Engine
    assert ("main", "web/engine.go", "Other.GET") not in got
    g = [e for e in edges if e["src"] == ("app/main.go", "main") and e["dst"] == ("web/engine.go", "Engine.GET")]
    assert g[0]["weight"] == 2.0                                    # both calls


def test_an_attribute_holds_what_the_init_parameter_or_the_class_body_says():
    edges, _ = _index({
        "m.py": "class Flask:\n    def route(self):\n        pass\n\n\nclass Blueprint:\n    def route(self):\n"
                "        pass\n",
        "ext.py": "from m import Flask, Blueprint\n\n\nclass Ext:\n    bp: Blueprint\n\n"
                  "    def __init__(self, app: Flask):\n        self.app = app\n\n"
                  "    def setup(self):\n        self.app.route()\n        self.bp.route()\n",
    })
    got = {(e["src"][1], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("Ext.setup", "Flask.route")] == "attribute's class"      # self.app = app, app: Flask
    assert got[("Ext.setup", "Blueprint.route")] == "attribute's class"  # the body's bp: Blueprint


def test_js_and_ts_attributes_hold_what_the_constructor_or_class_body_gives_them():
    edges, _ = _index({
        "src/store.ts": "export class Store {\n  save(): void {}\n}\nexport class Cache {\n  save(): void {}\n}\n"
                        "export class Client {\n  save(): void {}\n}\n",
        "src/app.ts": "import {Store, Cache, Client} from './store';\n\nexport class App {\n  cache = new Cache();\n"
                      "  constructor(private client: Client, store: Store) {\n    this.store = store;\n  }\n"
                      "  run(): void {\n    this.store.save();\n    this.cache.save();\n    this.client.save();\n  }\n}\n",
    })
    got = {(e["src"][1], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("App.run", "Store.save")] == "attribute's class"      # this.store = store, store: Store
    assert got[("App.run", "Cache.save")] == "attribute's class"      # cache = new Cache()
    assert got[("App.run", "Client.save")] == "attribute's class"     # constructor(private client: Client)


def test_go_struct_fields_and_java_fields_type_their_attributes():
    edges, _ = _index({
        "go.mod": "module example.com/m\n",
        "web/router.go": "package web\n\ntype Router struct{}\n\nfunc (r *Router) Handle() {}\n\n"
                         "type Pool struct{}\n\nfunc (p *Pool) Handle() {}\n",
        "web/engine.go": "package web\n\ntype Engine struct {\n\trouter *Router\n}\n\n"
                         "func (e *Engine) Run() {\n\te.router.Handle()\n}\n",
        "A.java": "class Foo {\n  void go() {}\n}\nclass Bar {\n  void go() {}\n}\n"
                  "class A {\n  private Foo foo;\n  private Bar bar;\n  void f() {\n    foo.go();\n    this.bar.go();\n  }\n}\n",
    })
    got = {(e["src"][1], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}
    assert got[("Engine.Run", "Router.Handle")] == "attribute's class"     # e.router, router *Router
    assert ("Engine.Run", "Pool.Handle") not in got
    assert got[("A.f", "Foo.go")] == "attribute's class"                   # a field by its bare name
    assert got[("A.f", "Bar.go")] == "attribute's class"                   # this.bar


def _how(files: dict[str, str]) -> dict[tuple[str, str], str]:
    edges, _ = _index(files)
    return {(e["src"][1], e["dst"][1]): e["how"] for e in edges if e["kind"] == "calls"}


@pytest.mark.parametrize("path,src,want,not_want", [
    # the nearest typing above the call decides, not the first
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f():\n    x = A()\n    x = B()\n    x.m()\n", "B.m", "A.m"),
    ("a.js", "class A { m() {} }\nclass B { m() {} }\nfunction f() {\n  let x = new A();\n  x = new B();\n"
             "  x.m();\n}\n", "B.m", "A.m"),
    # x = y: what y holds there
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f(y: B):\n    x = A()\n    x = y\n    x.m()\n", "B.m", "A.m"),
    # a reassignment naming no class leaves x unknown
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "async def f(g):\n    x = A()\n    x = await g()\n    x.m()\n", None, "A.m"),
    ("a.ts", "class A { m(): void {} }\nclass B { m(): void {} }\nfunction f(x: A, y: any) {\n  x = y.clone();\n"
             "  x.m();\n}\n", None, "A.m"),
    # Optional[A] / Optional<A> is an A
    ("a.py", "from typing import Optional\nclass A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f(a: Optional[A]):\n    a.m()\n", "A.m", "B.m"),
    ("U.java", "class A { void m() {} }\nclass B { void m() {} }\n"
               "class U { void f(Optional<A> o) { o.m(); } }\n", "A.m", "B.m"),
    # names local to a class body are no fields: a static block's, an overload signature's parameter
    ("a.js", "class Helper { init() {} }\nclass Other { init() {} }\nclass C {\n"
             "  static { const h = new Helper(); }\n  run() { this.h.init(); }\n}\n", None, "Helper.init"),
    ("a.ts", "class Request { send(): void {} }\nclass Other { send(): void {} }\nclass C {\n"
             "  on(ev: Request): void;\n  on(ev: any): void {}\n  run() { this.ev.send(); }\n}\n", None, "Request.send"),
    # a call before and after a retyping resolves each with its own class
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f():\n    x = A()\n    x.m()\n    x = B()\n    x.m()\n", "B.m", None),
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def g(x):\n    x.m()\n    x = A()\n    x.m()\n", "A.m", None),
    # rebindings whose value is not known: for, with, tuples, destructuring, for-of
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f(items):\n    x = A()\n    for x in items:\n        x.m()\n", None, "A.m"),
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f(cm):\n    x = A()\n    with cm as x:\n        x.m()\n", None, "A.m"),
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f(y):\n    x = A()\n    x, z = y, 1\n    x.m()\n", None, "A.m"),
    ("a.js", "class A { m() {} }\nclass B { m() {} }\nfunction f(items, y) {\n  var x = new A();\n"
             "  for (x of items) {\n    x.m();\n  }\n}\n", None, "A.m"),
    ("a.js", "class A { m() {} }\nclass B { m() {} }\nfunction f(y) {\n  let x = new A();\n  [x] = [y];\n"
             "  x.m();\n}\n", None, "A.m"),
    # a typing holds from the line after its statement: a call on that line is its right side
    ("a.py", "class A:\n    def m(self): pass\n    def children(self): pass\nclass B:\n    def m(self): pass\n"
             "    def children(self): pass\ndef f(n: A):\n    for n in n.children():\n        pass\n", "A.children", None),
    # a parameter holds on its definition's own line (a one-line body); aliases chain
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f(a: A): return a.m()\n", "A.m", "B.m"),
    ("a.py", "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
             "def f():\n    a = A()\n    b = a\n    c = b\n    c.m()\n", "A.m", "B.m"),
    # an attribute or subscript target sets something on c, it does not rebind c; a comprehension's
    # variable is its own; a destructuring default is read, not bound
    ("a.py", "class Client:\n    def send(self): pass\nclass Other:\n    def send(self): pass\n"
             "def f():\n    c = Client()\n    c.timeout, x = 1, 2\n    c.send()\n", "Client.send", None),
    ("a.py", "class Client:\n    def send(self): pass\nclass Other:\n    def send(self): pass\n"
             "def f(items):\n    x = Client()\n    names = [x.name for x in items]\n    x.send()\n", "Client.send", None),
    ("a.js", "class Client { send() {} }\nclass Other { send() {} }\nfunction f(opts) {\n  const fallback = new Client();\n"
             "  const { client = fallback } = opts;\n  fallback.send();\n}\n", "Client.send", None),
    ("Box.java", "class Node { void render() {} }\nclass Leaf { void render() {} }\n"
                 "class Box<Node> {\n  Node value;\n  void f() {\n    Node local = null;\n    local.render();\n"
                 "    value.render();\n  }\n}\n", None, "Node.render"),
    # a return type that is the function's type parameter is no class of the repository
    ("a.ts", "class Node { visit(): void {} }\nclass Leaf { visit(): void {} }\n"
             "function first<Node>(xs: Node[]): Node { return xs[0]; }\n"
             "function useIt(leaves: Leaf[]) {\n  const n = first(leaves);\n  n.visit();\n}\n", None, "Node.visit"),
])
def test_a_variable_holds_only_what_the_nearest_typing_says(path, src, want, not_want):
    got = {dst for (_, dst), how in _how({path: src}).items() if how in ("variable's class", "attribute's class")}
    if want:
        assert want in got
    if not_want:
        assert not_want not in got


def test_an_attribute_is_unknown_when_a_method_assigning_it_ran_past_the_cap():
    body = "".join(f"        v{i} = A()\n" for i in range(200))
    got = _how({"a.py": "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
                        "class K:\n    def __init__(self):\n        self.x = A()\n\n    def big(self):\n"
                        f"{body}        self.x = B()\n\n    def use(self):\n        self.x.m()\n"})
    assert ("K.use", "A.m") not in got


def test_past_the_typings_kept_a_variable_holds_nothing_known():
    body = "".join(f"    v{i} = A()\n" for i in range(200))
    got = _how({"a.py": "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
                        f"def f():\n    x = A()\n{body}    x = B()\n    x.m()\n"})
    assert ("f", "A.m") not in got         # the x = B() above the call was past the cap: no stale A


def test_a_js_factory_is_no_class_and_x_equals_x_clone_reads_the_x_above():
    got = _how({
        "lib/app.js": "var app = exports = module.exports = {};\napp.set = function set(k, v) {};\n",
        "test/a.js": "function createApp() {\n  return {};\n}\nfunction t() {\n  var app = createApp();\n"
                     "  app.set('x', 1);\n}\n",
        "b.py": "class S:\n    def go(self): pass\nclass Other:\n    def clone(self): pass\n"
                "def f():\n    s = S()\n    s = s.clone()\n    s.go()\n",
    })
    assert got[("t", "app.set")] == "qualified name"       # createApp() makes nothing known: app.set by name
    assert ("f", "Other.clone") not in got                 # s.clone() on line 7 reads s = S() (no clone)


@pytest.mark.parametrize("path,src,want", [
    # a typing holds from where it takes effect, not by line
    ("U.java", "class Node { Node next() { return null; } }\nclass Other { Other next() { return null; } }\n"
               "class U {\n  void f(Node head) {\n    for (Node n = head; n != null; n = n.next()) {}\n  }\n}\n", "Node.next"),
    ("a.go", "package a\ntype A struct{}\nfunc (a *A) Ok() bool { return true }\ntype B struct{}\n"
             "func (b *B) Ok() bool { return true }\nfunc NewA() *A { return nil }\n"
             "func f() {\n\tif a := NewA(); a.Ok() {\n\t}\n}\n", "A.Ok"),
    ("a.py", "class A:\n    def run(self): pass\nclass B:\n    def run(self): pass\n"
             "def f():\n    if (a := A()) and a.run():\n        pass\n", "A.run"),
    ("a.py", "def f(a: 'A'): a.m(); a = B(); return a.m()\nclass A:\n    def m(self): pass\n"
             "class B:\n    def m(self): pass\n", "B.m"),
])
def test_a_typing_holds_from_where_it_takes_effect(path, src, want):
    got = {dst for (_, dst), how in _how({path: src}).items() if how == "variable's class"}
    assert want in got


def test_inside_a_comprehension_its_variable_is_not_the_outer_one():
    got = _how({"a.py": "class A:\n    def m(self): pass\nclass B:\n    def m(self): pass\n"
                        "def f(items):\n    x = A()\n    ys = [x.m() for x in items]\n    return ys\n"})
    assert ("f", "A.m") not in got
