"""A TypeScript monorepo's imports of its own packages, as a user walks them, on a real repository
through the real index job (``pipeline.jsworkspace``). The s33 probe on vue-core: ``import {hasOwn}
from '@vue/shared'`` counted as an outside module, so ``walk general.ts::hasOwn --edge calls
--direction in`` gave nothing where 13 files of 6 packages call it.

- a workspace package imported by its ``package.json`` name lands on its source entry (its
  ``exports`` point into ``dist/``, read as ``src/``), through its barrel to the defining module;
- a tsconfig ``paths`` alias (the config with comments and trailing commas) lands on its target;
- a spec file importing a package by name gets its ``tests`` edges, and the calls follow;
- ``react``, no package of the repository, stays outside; a tsconfig that does not parse is
  skipped, the index still built.
"""

from __future__ import annotations

import pytest

pytestmark = [
    pytest.mark.slow,
]

FILES = {
    "package.json": '{"name": "mono", "private": true, "workspaces": ["packages/*"]}\n',
    "tsconfig.json": (
        "{\n  // shared settings\n  \"compilerOptions\": {\n    \"strict\": true,\n"
        "    /* aliases of the packages' folders */\n"
        "    \"paths\": {\n      \"@util/*\": [\"./packages/util/src/*\"],\n    },\n  },\n}\n"),
    "packages/util/package.json": (
        '{"name": "@mono/util", "main": "dist/index.js", "types": "dist/index.d.ts",\n'
        ' "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.mjs"}, "./*": "./src/*.ts"}}\n'),
    "packages/util/src/index.ts": "export {slugify} from './slug';\n\nexport function clamp(n: number): number {\n  return n;\n}\n",
    "packages/util/src/slug.ts": "export function slugify(s: string): string {\n  return s.toLowerCase();\n}\n",
    "packages/app/package.json": '{"name": "@mono/app", "dependencies": {"@mono/util": "workspace:*", "react": "^18"}}\n',
    "packages/app/src/index.ts": "export {title} from './title';\n",
    "packages/app/src/title.ts": (
        "import {slugify, clamp} from '@mono/util';\nimport React from 'react';\n\n"
        "export function title(s: string): string {\n  return slugify(s) + clamp(1) + String(React);\n}\n"),
    "packages/app/src/format.ts": (
        "import {slugify} from '@util/slug';\n\nexport function fmt(s: string): string {\n  return slugify(s);\n}\n"),
    "packages/app/__tests__/render.spec.ts": (
        "import {title} from '@mono/app';\n\ndescribe('render', () => {\n  it('titles', () => {\n"
        "    expect(title('A')).toBe('a');\n  });\n});\n"),
    "packages/legacy/package.json": '{"name": "@mono/legacy"}\n',
    "packages/legacy/tsconfig.json": '{"compilerOptions": {"paths": {"@util/*": [\n',      # cut off: no JSON
    "packages/legacy/src/old.ts": (
        "import {clamp} from '@mono/util';\n\nexport function old(): number {\n  return clamp(2);\n}\n"),
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    from stratum.tools import Tools
    from tests.clirun import indexed_repo

    _repo, store = indexed_repo(tmp_path_factory.mktemp("s33ws") / "repo", FILES)
    t = Tools.open([store])
    try:
        yield t, t.open_session(author="agent").data["session"], store
    finally:
        t.close()


@pytest.fixture()
def opened(indexed):
    return indexed[:2]


def _paths(opened, target: str, edge: str, direction: str = "out") -> set[str]:
    t, sid = opened
    return {i.path for i in t.walk(sid, target, edges=[edge], direction=direction).items}


def _calls(opened, target: str, direction: str = "out") -> set[str]:
    t, sid = opened
    return {f"{i.path}::{i.qualname}" for i in t.walk(sid, target, edges=["calls"], direction=direction).items}


def test_a_package_imported_by_name_is_an_import_edge(opened):
    # its entry (dist/index.mjs read as src/index.ts) and, through that barrel, slugify's module
    assert _paths(opened, "packages/app/src/title.ts", "imports") == {
        "packages/util/src/index.ts", "packages/util/src/slug.ts"}
    assert _paths(opened, "packages/util/src/index.ts", "imports", "in") >= {
        "packages/app/src/title.ts", "packages/legacy/src/old.ts"}


def test_a_tsconfig_paths_alias_is_an_import_edge(opened):
    assert _paths(opened, "packages/app/src/format.ts", "imports") == {"packages/util/src/slug.ts"}


def test_calls_across_packages_link(opened):
    assert _calls(opened, "packages/util/src/slug.ts::slugify", "in") == {
        "packages/app/src/title.ts::title", "packages/app/src/format.ts::fmt"}
    assert _calls(opened, "packages/legacy/src/old.ts::old") == {"packages/util/src/index.ts::clamp"}


def test_a_spec_importing_a_package_by_name_tests_it(opened):
    assert _paths(opened, "packages/app/__tests__/render.spec.ts", "tests") >= {
        "packages/app/src/index.ts", "packages/app/src/title.ts"}


def test_an_outside_package_stays_outside(indexed):
    from stratum.store import Store

    ext = {(r["path"], r["target"]) for r in Store(indexed[2]).snapshot().read("external_imports").to_pylist()}
    assert ext == {("packages/app/src/title.ts", "react")}
