"""A JS/TS module whose value is an object literal named first (session 28, f1): ``const api = {
list () {} }; module.exports = api`` (or ``export default api``) makes list a function of the
module, as ``module.exports = { list () {} }`` does; so does ``export default { ... }``. Before,
only the literal written on the right of ``module.exports =`` had nodes: the others' functions were
the file's code, and a caller's ``api.list()`` reached nothing."""

from __future__ import annotations

from pipeline.parse import parse_file
from tests.unit.test_calls import _index

REPO = "r"
FILES = {
    "lib/api.js": ("const api = {\n  list() { return [] },\n  add: (x) => x,\n  limit: 3,\n};\n"
                   "const other = { helper() { return 1 } };\nmodule.exports = api;\n"),
    "lib/app.js": "var app = module.exports = {\n  get: function get(k) { return k },\n  set(k) { return k }\n};\n",
    "lib/tools.ts": "const tools: Tools = { pick(n: number) { return n } };\nexport default tools;\n",
    "lib/plain.mjs": "export default {\n  run() { return 2 },\n};\n",
    "index.js": ("const api = require('./lib/api');\nconst app = require('./lib/app');\n"
                 "function main() { return api.list() + api.add(1) + app.get('k') }\n"),
    "main.ts": ("import tools from './lib/tools';\nimport plain from './lib/plain.mjs';\n"
                "export function go() { return tools.pick(1) + plain.run() }\n"),
}


def _defs(path: str) -> list[tuple[str, str]]:
    return [(n["kind"], n["qualname"]) for n in parse_file(REPO, path, FILES[path].encode()).nodes if n["kind"] != "file"]


def test_an_object_the_module_exports_by_name_holds_the_modules_functions():
    assert _defs("lib/api.js") == [("function", "list"), ("function", "add")]     # not other's helper
    assert _defs("lib/app.js") == [("function", "get"), ("function", "set")]
    assert _defs("lib/tools.ts") == [("function", "pick")]
    assert _defs("lib/plain.mjs") == [("function", "run")]
    kept = "const api = { list() { return [] } };\nmodule.exports = other;\n"
    assert parse_file(REPO, "k.js", kept.encode()).nodes[1:] == []              # not the module's value


def test_a_callers_method_call_on_the_required_module_reaches_them():
    calls = {("::".join(e["src"]), "::".join(e["dst"])) for e in _index(FILES)[0]
             if e["kind"] == "calls" and e["how"] == "imported module"}
    assert calls == {("index.js::main", "lib/api.js::list"), ("index.js::main", "lib/api.js::add"),
                     ("index.js::main", "lib/app.js::get"),
                     ("main.ts::go", "lib/tools.ts::pick"), ("main.ts::go", "lib/plain.mjs::run")}
