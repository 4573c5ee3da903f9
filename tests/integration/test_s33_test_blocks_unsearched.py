"""Tests written as calls stay nodes but out of search (session 33 re-probe, M1).

Once a spec file's ``describe``/``it`` blocks were nodes (``pipeline.testblocks``), their titles, which
repeat the words of the code they test, ranked first for "where is X" questions: on vue-core 9 of 15
top-1 results were test blocks (all 15 were functions, methods or interfaces before), and "custom
element props reflection" pushed ``defineCustomElement`` off page 1. ``textprep.searched`` keeps them
out of the keyword and vector lists (no document, no vector), as a full build and an incremental
re-index make them; ``tree``, ``get`` (``path:LINE`` too) and ``walk`` still show them. A real git
repository (a TypeScript package and its spec file), the real index job and the real Tools.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

SRC = "packages/runtime-dom/src/apiCustomElement.ts"
SPEC = "packages/runtime-dom/__tests__/customElement.spec.ts"

CUSTOM_ELEMENT_TS = """export interface CustomElementOptions {
  shadowRoot?: boolean
}

/**
 * Define a custom element from a component: its props become attributes, reflected both ways.
 */
export function defineCustomElement(options: CustomElementOptions): typeof HTMLElement {
  class VueElement extends HTMLElement {
    _props: Record<string, unknown> = {}

    attributeChangedCallback(name: string, _old: string, value: string) {
      this._props[name] = value
    }
  }
  return VueElement
}

export function reflectProp(el: HTMLElement, key: string, value: unknown): void {
  el.setAttribute(key, String(value))
}
"""

SPEC_TS = """import { describe, expect, it, test } from 'vitest'
import { defineCustomElement, reflectProp } from '../src/apiCustomElement'

describe('defineCustomElement', () => {
  describe('props', () => {
    it('custom element props reflection', () => {
      const E = defineCustomElement({})
      const el = new E()
      reflectProp(el, 'foo', 1)
      expect(el.getAttribute('foo')).toBe('1')
    })

    it('custom element props reflection to attributes', () => {
      const el = new (defineCustomElement({}))()
      reflectProp(el, 'bar', 'x')
      expect(el.getAttribute('bar')).toBe('x')
    })

    test('custom element props reflection of camelCase props', () => {
      const el = new (defineCustomElement({ shadowRoot: true }))()
      reflectProp(el, 'fooBar', 2)
      expect(el.getAttribute('foo-bar')).toBe('2')
    })
  })

  it('define custom element props reflection with shadow root', () => {
    expect(defineCustomElement({ shadowRoot: true })).toBeTruthy()
  })
})
"""

FILES: dict[str, str | bytes] = {
    "packages/runtime-dom/package.json": '{"name": "@vue/runtime-dom"}\n',
    SRC: CUSTOM_ELEMENT_TS,
    SPEC: SPEC_TS,
}

QUERY = "custom element props reflection"
TEST_TITLE = "defineCustomElement.props.custom element props reflection"


def _line(text: str, needle: str) -> int:
    return next(i for i, s in enumerate(text.splitlines(), 1) if needle in s)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """The repository indexed once, then re-indexed incrementally after a commit that changes the
    implementation only (the spec file's rows are kept from the first version): (tools, session,
    page of the first version, page of the second)."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("s33unsearched")
    repo = Repo(base / "repo")
    repo.commit("a custom element and its spec", FILES)
    cfg = IndexConfig(num_cpus=1)
    index_repository(repo.path, base / "store", cfg)
    t = Tools.open([str(base / "store")])
    try:
        first = t.search(t.open_session(author="agent").data["session"], QUERY, page_size=10).items
    finally:
        t.close()
    repo.commit("reflect booleans too", {SRC: CUSTOM_ELEMENT_TS.replace("String(value)", "value === true ? '' : String(value)")})
    index_repository(repo.path, base / "store", cfg)
    t = Tools.open([str(base / "store")])
    try:
        sid = t.open_session(author="agent").data["session"]
        yield t, sid, first, t.search(sid, QUERY, page_size=10).items
    finally:
        t.close()


def _test_blocks(items) -> list[str]:
    return [i.qualname for i in items if i.path == SPEC and i.kind == "function"]


def test_a_prose_query_finds_the_implementation_not_its_tests(indexed):
    _, _, first, _ = indexed
    assert (first[0].path, first[0].qualname) == (SRC, "defineCustomElement"), [(i.path, i.qualname) for i in first]
    assert _test_blocks(first) == []


def test_an_incremental_reindex_keeps_them_out(indexed):
    _, _, _, again = indexed
    assert (again[0].path, again[0].qualname) == (SRC, "defineCustomElement"), [(i.path, i.qualname) for i in again]
    assert _test_blocks(again) == []


def test_the_blocks_are_still_nodes(indexed):
    t, sid, _, _ = indexed
    got = t.get(sid, f"{SPEC}::{TEST_TITLE}", level="summary").items[0]
    assert got.text.startswith(f"test {TEST_TITLE}: it('custom element props reflection')")
    at = t.get(sid, f"{SPEC}:{_line(SPEC_TS, 'reflectProp(el, ' + repr('foo') + ', 1)')}", level="summary").items[0]
    assert at.qualname == TEST_TITLE                       # a Vitest frame's line finds its it() block
    shown = {i.qualname for i in t.tree(sid, SPEC, depth=3, page_size=50).items}
    assert {"defineCustomElement", "defineCustomElement.props", TEST_TITLE,
            "defineCustomElement.define custom element props reflection with shadow root"} <= shown
    called = t.walk(sid, f"{SPEC}::{TEST_TITLE}", edges=["calls"], page_size=10).items
    assert (SRC, "reflectProp") in {(i.path, i.qualname) for i in called}
