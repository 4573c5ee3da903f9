"""JavaScript calls through a ``require`` or a default import, as a user walks them, on a real git
repository through the real index job and ``Tools`` (session 27's probe of express: a local name
linked only when it was named like the file):

- ``const helpers = require('./lib/cc'); helpers.trim()`` calls ``cc.js``'s ``trim``, whatever the
  variable is named (``import * as x`` already did); ``const {trim: clean} = require(...)`` binds
  ``clean``; a default import of a CommonJS module is the module (``cc2.trim()``);
- calling the name itself calls the module's own function: ``make()`` after ``require`` of a
  ``module.exports = function createThing``, or a default import of ``export default function
  createThing``; ``Box.unit()`` after a default import of ``export default class Shape``;
- a name an outside module's ``require`` binds (``const {join} = require('path')``) is not the
  repository's ``join``.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "package.json": '{"name": "r"}\n',
    "lib/cc.js": "exports.trim = (s) => s.trim()\n",
    "lib/util.js": "exports.trim = (s) => s\nexports.join = (a) => a\n",      # a second trim, a join
    "lib/thing.js": "module.exports = function createThing(o) { return o }\n",
    "lib/thing.mjs": "export default function createThing(o) { return o }\n",
    "lib/shape.mjs": "export default class Shape {\n  static unit() { return new Shape() }\n}\n",
    "lib/door.mjs": "export class Door {\n  static unit() { return new Door() }\n}\n",     # a second unit
    "main.js": ("const helpers = require('./lib/cc')\n"
                "const {trim: clean} = require('./lib/cc')\n"
                "var make = require('./lib/thing')\n"
                "const {join} = require('path')\n"
                "function go(s) { return helpers.trim(s) + make(s) + join(s) }\n"
                "function tidy(s) { return clean(s) }\n"),
    # a barrel renaming a default export (review r2: `named()` reached nothing)
    "lib/esm.mjs": "export default function esmMake() { return 1 }\n",
    "lib/barrel.mjs": "export { default } from './esm.mjs'\nexport { default as named } from './esm.mjs'\n",
    "use3.mjs": "import b from './lib/barrel.mjs'\nexport function u3() { return b() }\n",
    "use4.mjs": "import { named } from './lib/barrel.mjs'\nexport function u4() { return named() }\n",
    # the same over a module whose default export names a function declared apart (a last read: the
    # barrel rule read only `export default function`, where a default import reads both)
    "lib/esm2.mjs": "function esmHelper() { return 2 }\nexport default esmHelper\n",
    "lib/barrel2.mjs": "export { default as named2 } from './esm2.mjs'\n",
    "use5.mjs": "import { named2 } from './lib/barrel2.mjs'\nexport function u5() { return named2() }\n",
    # express's shape: index.js re-exports lib/app.js, whose value is a function declared apart
    "index.js": "module.exports = require('./lib/app')\n",
    "lib/app.js": "function createApplication() { return {} }\nexports = module.exports = createApplication\n",
    "test/app.test.js": "var express = require('..')\nfunction boot() { return express() }\n",
    "main2.mjs": ("import make from './lib/thing.mjs'\n"
                  "import Box from './lib/shape.mjs'\n"
                  "import cc2 from './lib/cc.js'\n"
                  "export function go2(s) { return make(s) + Box.unit() + cc2.trim(s) }\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.clirun import session_over

    with session_over(tmp_path_factory.mktemp("s27jsbind") / "repo", FILES) as opened:
        yield opened


def _walk(tools, target: str, direction: str = "out") -> dict[str, str]:
    t, sid = tools
    return {f"{i.path}::{i.qualname}": i.meta["how"]
            for i in t.walk(sid, target, edges=["calls"], direction=direction).items}


def test_a_required_module_is_called_through_any_name(tools):
    assert _walk(tools, "main.js::go") == {
        "lib/cc.js::trim": "imported module",                    # helpers.trim()
        "lib/thing.js::createThing": "imported module",          # make(): module.exports = function
    }
    assert _walk(tools, "main.js::tidy") == {"lib/cc.js::trim": "imported name"}     # {trim: clean}


def test_a_default_import_is_the_modules_own_value(tools):
    assert _walk(tools, "main2.mjs::go2") == {
        "lib/thing.mjs::createThing": "imported module",         # export default function createThing
        "lib/shape.mjs::Shape.unit": "imported module",          # export default class Shape
        "lib/cc.js::trim": "imported module",                    # a CommonJS module's default: the module
    }


def test_the_modules_function_has_its_callers(tools):
    assert _walk(tools, "lib/thing.js::createThing", "in") == {"main.js::go": "imported module"}
    assert _walk(tools, "lib/util.js::join", "in") == {}         # join of 'path', not ours


def test_a_module_whose_value_is_a_function_declared_apart_is_called_through_a_re_export(tools):
    """express: `var express = require('..')` (index.js re-exports lib/express.js), `express()`, and
    `exports = module.exports = createApplication`: no caller was linked (a probe, session 27)."""
    assert _walk(tools, "lib/app.js::createApplication", "in") == {"test/app.test.js::boot": "imported module"}


def test_a_barrels_renamed_default_export_reaches_the_modules_value(tools):
    callers = _walk(tools, "lib/esm.mjs::esmMake", "in")
    assert set(callers) == {"use3.mjs::u3", "use4.mjs::u4"}, callers
    assert set(_walk(tools, "lib/esm2.mjs::esmHelper", "in")) == {"use5.mjs::u5"}
