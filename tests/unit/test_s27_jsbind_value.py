"""A JS module's own value named by a statement of its own (``imports.VALUE``: express's
``exports = module.exports = createApplication``, ``export default f``): its callers through a
``require`` or a default import reach that function. The parse hands those statements to the
import reader (``pipeline/languages/ecmascript.scm``), and the records go through the real import
and call resolution."""

from __future__ import annotations

import json

from pipeline.calls import resolve
from pipeline.imports import FileImports, resolve as resolve_imports
from pipeline.parse import parse_file

REPO = "r"
FILES = {
    "index.js": "module.exports = require('./lib/express')\n",
    "lib/express.js": "function createApplication() { return 1 }\nexports = module.exports = createApplication\n",
    "lib/make.mjs": "function createThing() { return 2 }\nexport default createThing\n",
    "lib/plain.js": "function other() { return 3 }\nconst x = other\nmodule.exports.y = x\n",
    "test/app.js": ("var express = require('..')\nvar plain = require('../lib/plain')\n"
                    "function t() { return express() + plain() }\n"),
    "test/make.mjs": "import make from '../lib/make.mjs'\nexport function t2() { return make() }\n",
}


def _with_values(path: str, src: str) -> FileImports:
    """The file's imports as parsed (the value statements among them: ``ecmascript.scm``)."""
    pf = parse_file(REPO, path, src.encode())
    assert pf.language is not None
    return FileImports(path, pf.language, tuple(pf.imports))


def test_a_modules_own_statement_names_the_function_its_callers_reach():
    fi = [_with_values(p, s) for p, s in FILES.items()]
    assert [(r.names, r.bound) for f in fi if f.path == "lib/express.js" for r in f.imports] == \
        [(("createApplication",), ("module.exports",))]
    assert [r for f in fi if f.path == "lib/plain.js" for r in f.imports] == []     # no module.exports = f
    nodes = [n for p, s in FILES.items() for n in parse_file(REPO, p, s.encode()).nodes]
    bindings: dict = {}
    imp_edges, externals = resolve_imports(REPO, fi, list(FILES), {}, bindings=bindings)
    assert externals == []          # the module's own value is no import of anything
    name = {n["id"]: f"{n['path']}::{n['qualname']}" for n in nodes}
    calls = {(name[e["src"]], name[e["dst"]], json.loads(e["meta"])["how"])
             for e in resolve(nodes, imp_edges, bindings) if e["kind"] == "calls"}
    assert calls == {("test/app.js::t", "lib/express.js::createApplication", "imported module"),
                     ("test/make.mjs::t2", "lib/make.mjs::createThing", "imported module")}
