"""Bare JS/TS specifiers naming the repository's own code (``pipeline.jsworkspace``): real parses of
real code, resolved against path sets and manifest texts as the link stage hands them over."""

from __future__ import annotations

import logging

import pytest

from pipeline.jsworkspace import loads_jsonc
from tests.unit.test_imports import externals, pairs

# vue-core's shape: packages whose package.json points into dist/ (absent) and at an index.js that
# only loads dist/ (checked in), a root tsconfig aliasing @vue/* to packages/*/src
VUE = {
    "package.json": '{"name": "@vue/core-monorepo", "private": true}',
    "tsconfig.json": ('{\n  "compilerOptions": {\n    // aliases\n    "paths": {\n'
                      '      "@vue/compat": ["./packages/vue-compat/src"],\n'
                      '      "@vue/*": ["./packages/*/src"],\n      "vue": ["./packages/vue/src"],\n'
                      '    },\n  },\n  /* trailing commas too */\n}\n'),
    "packages/shared/package.json": ('{"name": "@vue/shared", "main": "index.js", "module": "dist/shared.esm-bundler.js",'
                                     ' "types": "dist/shared.d.ts", "exports": {".": {"types": "./dist/shared.d.ts",'
                                     ' "require": "./index.js"}, "./*": "./*"}}'),
    "packages/vue/package.json": '{"name": "vue", "main": "index.js"}',
}
VUE_PATHS = {"packages/shared/index.js", "packages/shared/src/index.ts", "packages/shared/src/general.ts",
             "packages/vue/index.js", "packages/vue/src/index.ts", "packages/vue-compat/src/index.ts"}


def test_jsonc_reads_comments_and_trailing_commas():
    text = '\ufeff{\n  // a comment\n  "url": "http://x//y", /* block */ "e": "",\n  "l": [1, 2, /* c */],\n}\n'
    assert loads_jsonc(text) == {"url": "http://x//y", "e": "", "l": [1, 2]}


def test_tsconfig_paths_aliases_of_a_monorepo():
    files = {"packages/runtime-core/src/renderer.ts": (
        "import {hasOwn} from '@vue/shared';\nimport {isArray} from '@vue/shared/src/general';\n"
        "import {h} from 'vue';\nimport {c} from '@vue/compat';\nimport {ref} from '@vue/reactivity';\n"
        "import {x} from 'react';\n")}
    assert pairs(files, VUE_PATHS, VUE) == {
        ("packages/runtime-core/src/renderer.ts", "packages/shared/src/index.ts"),
        ("packages/runtime-core/src/renderer.ts", "packages/shared/src/general.ts"),
        ("packages/runtime-core/src/renderer.ts", "packages/vue/src/index.ts"),
        ("packages/runtime-core/src/renderer.ts", "packages/vue-compat/src/index.ts"),
    }
    # a package the alias names but the repository lacks, and an outside one, stay outside
    assert externals(files, VUE_PATHS, VUE) == {("packages/runtime-core/src/renderer.ts", "@vue/reactivity"),
                                                ("packages/runtime-core/src/renderer.ts", "react")}


def test_workspace_packages_by_name_without_a_tsconfig():
    manifests = {k: v for k, v in VUE.items() if k != "tsconfig.json"}
    files = {"packages/runtime-core/src/a.ts": "import {hasOwn} from '@vue/shared';\nimport {h} from 'vue';\n",
             "packages/runtime-core/src/b.ts": "import {isArray} from '@vue/shared/src/general';\n"}
    # the TypeScript source, not the index.js that loads dist/
    assert pairs(files, VUE_PATHS, manifests) == {
        ("packages/runtime-core/src/a.ts", "packages/shared/src/index.ts"),
        ("packages/runtime-core/src/a.ts", "packages/vue/src/index.ts"),
        ("packages/runtime-core/src/b.ts", "packages/shared/src/general.ts"),
    }
    assert externals(files, VUE_PATHS) == {("packages/runtime-core/src/a.ts", "@vue/shared"),
                                           ("packages/runtime-core/src/a.ts", "vue"),
                                           ("packages/runtime-core/src/b.ts", "@vue/shared/src/general")}


def test_package_entries_and_subpaths():
    manifests = {
        "libs/js/package.json": '{"name": "plain-js", "main": "lib/main.js"}',
        "libs/built/package.json": '{"name": "@x/built", "exports": {".": {"import": "./dist/index.mjs"}, "./utils/*": "./dist/utils/*.js"}}',
        "libs/dts/package.json": '{"name": "dts-only", "types": "index.d.ts", "main": "index.js"}',
        "node_modules/react/package.json": '{"name": "react", "main": "index.js"}',
        "examples/demo/other/package.json": '{"name": "plain-js"}',          # deeper: the shallower one keeps the name
    }
    paths = {"libs/js/lib/main.js", "libs/built/src/index.ts", "libs/built/src/utils/str.ts",
             "libs/dts/index.d.ts", "libs/dts/index.js", "node_modules/react/index.js", "examples/demo/other/index.js"}
    files = {"app/main.js": ("const p = require('plain-js');\nimport b from '@x/built';\n"
                             "import {s} from '@x/built/utils/str';\nimport d from 'dts-only';\nimport r from 'react';\n")}
    assert pairs(files, paths, manifests) == {
        ("app/main.js", "libs/js/lib/main.js"),           # main, JavaScript source
        ("app/main.js", "libs/built/src/index.ts"),        # exports' dist/index.mjs read as src/
        ("app/main.js", "libs/built/src/utils/str.ts"),    # an exports pattern, likewise
        ("app/main.js", "libs/dts/index.js"),              # the code before its declarations
    }
    assert externals(files, paths, manifests) == {("app/main.js", "react")}    # node_modules is no workspace


def test_nearest_config_extends_and_base_url():
    manifests = {
        "tsconfig.base.json": '{"compilerOptions": {"paths": {"~/*": ["shared/*"]}}}',
        "apps/web/tsconfig.json": '{"extends": "../../tsconfig.base.json", "compilerOptions": {"strict": true}}',
        "apps/admin/jsconfig.json": '{"compilerOptions": {"baseUrl": "src", "paths": {"~/*": ["lib/*"]}}}',
    }
    paths = {"shared/log.ts", "apps/admin/src/lib/log.js", "apps/admin/src/components/Button.jsx"}
    files = {"apps/web/src/page.ts": "import {log} from '~/log';\n",
             "apps/admin/src/page.js": "import {log} from '~/log';\nimport B from 'components/Button';\n"}
    assert pairs(files, paths, manifests) == {
        ("apps/web/src/page.ts", "shared/log.ts"),                    # inherited paths, from the base's folder
        ("apps/admin/src/page.js", "apps/admin/src/lib/log.js"),      # its own, from its baseUrl
        ("apps/admin/src/page.js", "apps/admin/src/components/Button.jsx"),   # baseUrl alone
    }


def test_a_broken_config_is_skipped_with_a_warning(caplog):
    manifests = {"tsconfig.json": '{"compilerOptions": {"paths": {"@u/*": [',
                 "packages/u/package.json": '{"name": "@u/core", }',           # a trailing comma: fine
                 "packages/v/package.json": "not json"}
    files = {"app/a.ts": "import {f} from '@u/core';\nimport {g} from '@u/x';\n"}
    with caplog.at_level(logging.WARNING, logger="pipeline.jsworkspace"):
        got = pairs(files, {"packages/u/src/index.ts"}, manifests)
    assert got == {("app/a.ts", "packages/u/src/index.ts")}
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "tsconfig.json does not parse" in warned and "packages/v/package.json does not parse" in warned


def test_a_hostile_config_is_skipped_quickly_and_fails_no_index(caplog):
    """A review: a package.json nested 50,000 deep failed the whole index (RecursionError), and
    220 KB of unclosed ``/*`` took 60 s (each comment's regex rescanned the rest): both skipped now,
    in linear time, and the other packages still resolve."""
    import time

    manifests = {"packages/u/package.json": '{"name": "@u/core"}',
                 "test/fixtures/deep/package.json": "[\n" * 50000 + "]\n" * 50000,
                 "test/fixtures/open/package.json": '{' + '"k": 1, /* ' * 20000,
                 "test/fixtures/str/package.json": '{' + '"k\\' * 20000}
    files = {"app/a.ts": "import {f} from '@u/core';\n"}
    t = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="pipeline.jsworkspace"):
        got = pairs(files, {"packages/u/src/index.ts"}, manifests)
    assert time.perf_counter() - t < 5.0
    assert got == {("app/a.ts", "packages/u/src/index.ts")}
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert all(f"test/fixtures/{d}/package.json does not parse" in warned for d in ("deep", "open", "str"))


@pytest.mark.parametrize("spec", ["node:fs", "https://deno.land/x/mod.ts", "@u"])
def test_what_names_no_package_is_outside(spec):
    manifests = {"packages/u/package.json": '{"name": "@u/core"}'}
    files = {"a.ts": f"import x from '{spec}';\n"}
    assert pairs(files, {"packages/u/index.ts"}, manifests) == set()


def test_a_fixture_package_serves_its_test_area_alone():
    # a test fixture named as an outside package must not take its name from the code
    manifests = {"test/fixtures/fake-react/package.json": '{"name": "react", "main": "index.js"}'}
    paths = {"test/fixtures/fake-react/index.js"}
    files = {"src/app.ts": "import React from 'react';\n",
             "test/fixtures/app/main.js": "const React = require('react');\n"}
    assert pairs(files, paths, manifests) == {("test/fixtures/app/main.js", "test/fixtures/fake-react/index.js")}
    assert externals(files, paths, manifests) == {("src/app.ts", "react")}
