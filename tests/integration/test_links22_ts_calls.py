"""TypeScript calls as a user walks them (``pipeline.calls``), on a real repository through the
real index job:

- a ``.tsx`` (or ``.js``) file's calls link by the same name rules as a ``.ts`` file's (the rules'
  tables were keyed by language, and "tsx" matched nothing defined in "typescript");
- ``this.#retry()`` calls the private method ``Ky.#retry`` (the name was not read);
- calls through import aliases and barrels: ``{percent as pct}``, ``import * as F``,
  ``{Account as Acct}`` + ``Acct.open()``, a barrel's ``export *`` and ``export {A as B} from``;
  a name bound by an outside module's import (``{setTimeout as delay} from
  'node:timers/promises'``) is not the repository's ``delay``.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "package.json": '{"name": "shop", "type": "module"}\n',
    "src/models/account.ts": (
        "export class Entity {\n  describe(): string {\n    return 'entity';\n  }\n"
        "  static create(): Entity {\n    return new Entity();\n  }\n}\n\n"
        "export class Account {\n  static open(id: string): Account {\n    return new Account();\n  }\n"
        "  id(): string {\n    return 'a';\n  }\n}\n"),
    "src/lib/format.ts": (
        "export function percent(x: number): string {\n  return `${x}%`;\n}\n\n"
        "export const pad = (s: string, w: number): string => s.padStart(w);\n\n"
        "export function money(n: number): string {\n  return `$${n}`;\n}\n"),
    # two more `open`s and `pad`s elsewhere: no unique-name or method-name rule can pick them
    "src/other/files.ts": ("export class Door {\n  static open(id: string): Door {\n    return new Door();\n  }\n}\n"
                           "export function pad(s: string): string {\n  return s;\n}\n"
                           "export function percent(x: number): number {\n  return x;\n}\n"),
    "src/lib/index.ts": "export * from './format';\nexport {Account as Acct} from '../models/account';\n",
    "src/util/delay.ts": "export function delay(ms: number): number {\n  return ms;\n}\n",
    "src/ui/Describe.tsx": (
        "import {Entity} from '../models/account';\n\n"
        "export function describeIt(e: any) {\n  return <b>{e.describe()}{money(2)}{Entity.create()}</b>;\n}\n"),
    "src/ui/describe2.ts": (
        "import {Entity} from '../models/account';\n\n"
        "export function describeIt2(e: any) {\n  return [e.describe(), money(2), Entity.create()];\n}\n"),
    "src/legacy.js": "export function total() {\n  return money(3);\n}\n",
    "src/alias.ts": (
        "import {Account as Acct} from './models/account';\n"
        "import {percent as pct} from './lib/format';\n"
        "import * as F from './lib/format';\n"
        "import * as L from './lib';\n"
        "import {pad as lpad, Acct as A2} from './lib';\n"
        "import {setTimeout as delay} from 'node:timers/promises';\n\n"
        "export function useAlias(): string {\n  const a = Acct.open('x');\n"
        "  return pct(1) + F.pad('a', 2) + a.id();\n}\n\n"
        "export function useBarrel(): string {\n  const b = A2.open('y');\n  return L.pad('b', 3) + b.id();\n}\n\n"
        "export function useBarrelName(): string {\n  return lpad('c', 1);\n}\n\n"
        "export async function wait(): Promise<void> {\n  await delay(5);\n}\n"),
    "src/core/Ky.ts": (
        "export class Ky {\n  run(): number {\n    return this.#retry() + this.#retry() + this.#delay();\n  }\n\n"
        "  #retry(): number {\n    return this.#delay();\n  }\n\n  #delay(): number {\n    return 1;\n  }\n}\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.clirun import session_over

    with session_over(tmp_path_factory.mktemp("links22ts") / "repo", FILES) as opened:
        yield opened


def _walk(tools, target: str, direction: str = "out") -> dict[str, str]:
    t, sid = tools
    return {f"{i.path}::{i.qualname}": i.meta["how"]
            for i in t.walk(sid, target, edges=["calls"], direction=direction).items}


@pytest.mark.parametrize("caller", ["src/ui/Describe.tsx::describeIt", "src/ui/describe2.ts::describeIt2"])
def test_a_tsx_file_links_its_calls_as_a_ts_file_does(tools, caller):
    assert _walk(tools, caller) == {
        "src/models/account.ts::Entity.describe": "method name",     # e.describe(): the one describe
        "src/lib/format.ts::money": "unique name",                   # not imported: the repository's one
        "src/models/account.ts::Entity.create": "imported module",   # Entity is imported: its create
    }


def test_a_js_file_calls_the_typescript_functions_of_its_project(tools):
    assert _walk(tools, "src/legacy.js::total") == {"src/lib/format.ts::money": "unique name"}


def test_a_private_method_has_its_callers(tools):
    assert _walk(tools, "src/core/Ky.ts::Ky.#retry", "in") == {"src/core/Ky.ts::Ky.run": "own class"}
    assert _walk(tools, "src/core/Ky.ts::Ky.#delay", "in") == {
        "src/core/Ky.ts::Ky.run": "own class", "src/core/Ky.ts::Ky.#retry": "own class"}


def test_calls_through_import_aliases_link(tools):
    assert _walk(tools, "src/alias.ts::useAlias") == {
        "src/models/account.ts::Account.open": "imported module",    # {Account as Acct}; Acct.open()
        "src/lib/format.ts::percent": "imported name",               # {percent as pct}; pct(1)
        "src/lib/format.ts::pad": "imported module",                 # * as F; F.pad()
        "src/models/account.ts::Account.id": "variable's class",     # a = Acct.open(): an Account
    }


def test_calls_through_a_barrel_link(tools):
    assert _walk(tools, "src/alias.ts::useBarrel") == {
        "src/lib/format.ts::pad": "imported module",                 # * as L of lib/index.ts: export *
        "src/models/account.ts::Account.open": "imported module",    # {Acct as A2}: export {Account as Acct}
        "src/models/account.ts::Account.id": "variable's class",
    }
    assert _walk(tools, "src/alias.ts::useBarrelName") == {"src/lib/format.ts::pad": "imported name"}   # {pad as lpad}


def test_a_name_an_outside_module_binds_is_not_the_repositorys(tools):
    assert _walk(tools, "src/alias.ts::wait") == {}                  # delay from node:timers/promises
