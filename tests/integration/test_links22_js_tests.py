"""JavaScript/TypeScript tests kept in a plain ``test/`` or ``tests/`` folder (AVA, mocha, tap:
ky's 40 test files) are tests (``pipeline.testlinks``), linked by name and by import as a
``.test.ts`` file is; a name imported through a barrel (``export {Calc} from './core/calc.js'`` in
``index.ts``) reaches the module it is re-exported from (``pipeline.imports``). A helper in the
test folder (``test/helpers/``, ``_setup.ts``) and a library folder that happens to be named
``test`` below the package's top are not tests.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "package.json": '{"name": "calc", "type": "module"}\n',
    "source/core/calc.ts": "export class Calc {\n  add(a: number, b: number): number {\n    return a + b;\n  }\n}\n",
    "source/util/format.ts": "export function fmt(n: number): string {\n  return `${n}`;\n}\n",
    "source/index.ts": ("export {Calc} from './core/calc.js';\n\n"
                        "export default function make(): number {\n  return 1;\n}\n"),
    "source/test/builder.ts": ("import {fmt} from '../util/format.js';\n\n"
                               "export function build(): string {\n  return fmt(1);\n}\n"),
    "test/calc.ts": ("import test from 'ava';\nimport {Calc} from '../source/core/calc.js';\n\n"
                     "test('adds', t => {\n  t.is(new Calc().add(1, 2), 3);\n});\n"),
    "test/main.ts": ("import test from 'ava';\nimport make, {Calc} from '../source/index.js';\n\n"
                     "test('makes', t => {\n  t.is(make(), 1);\n  t.truthy(new Calc());\n});\n"),
    "test/helpers/server.ts": ("import {fmt} from '../../source/util/format.js';\n\n"
                               "export function serve(): string {\n  return fmt(2);\n}\n"),
    "test/_setup.ts": "import {fmt} from '../source/util/format.js';\n\nexport const ready = fmt(0);\n",
    "packages/lib/package.json": '{"name": "lib"}\n',
    "packages/lib/src/sum.js": "export function sum(a, b) {\n  return a + b;\n}\n",
    "packages/lib/test/sum.js": ("import assert from 'node:assert';\nimport {sum} from '../src/sum.js';\n\n"
                                 "describe('sum', () => {\n  it('adds', () => assert.equal(sum(1, 2), 3));\n});\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.clirun import session_over

    with session_over(tmp_path_factory.mktemp("links22js") / "repo", FILES) as opened:
        yield opened


def _tests_of(tools, path: str) -> list[str]:
    t, sid = tools
    return [i.path for i in t.walk(sid, path, edges=["tests"], direction="in").items]


def test_a_test_folder_file_tests_what_it_is_named_after_and_imports(tools):
    # test/calc.ts by name (first), test/main.ts by its import of Calc through the barrel
    assert _tests_of(tools, "source/core/calc.ts") == ["test/calc.ts", "test/main.ts"]
    assert _tests_of(tools, "source/index.ts") == ["test/main.ts"]
    # test/helpers/server.ts, test/_setup.ts and source/test/builder.ts import it: none is a test
    assert _tests_of(tools, "source/util/format.ts") == []


def test_a_packages_test_folder_counts(tools):
    assert _tests_of(tools, "packages/lib/src/sum.js") == ["packages/lib/test/sum.js"]
