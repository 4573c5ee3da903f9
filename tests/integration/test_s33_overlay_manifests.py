"""A branch session links as the index does where the overlay sees only the changed files: it
reads the workspace's manifests (``overlay._manifests``: a review found a monorepo's call through
``import {clamp} from '@mono/util'`` linked in the index but lost in a branch that edited the caller:
the overlay passed no manifests, so the import read as external) and the base's includes of a
header by its sources (``overlay._header_sources``: a branch editing db_test.cc lost ``tests
db/db_test.cc -> db/db_impl.cc``, by: header)."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.tools import Tools
from tests.clirun import NO_EMBED
from tests.gitrepo import Repo, git

WORKSPACE = {
    "package.json": '{"name": "mono", "private": true}\n',
    "packages/util/package.json": '{"name": "@mono/util", "main": "src/index.ts"}\n',
    "packages/util/src/index.ts": "export function clamp(n: number): number {\n  return n;\n}\n",
    "packages/app/package.json": '{"name": "@mono/app"}\n',
    "packages/app/src/a.ts": "import {clamp} from '@mono/util';\n\nexport function a(): number {\n  return clamp(1);\n}\n",
}
HEADER = {
    "db/db_impl.h": "#pragma once\nclass DBImpl {\n public:\n  int Put(int k);\n};\n",
    "db/db_impl.cc": '#include "db/db_impl.h"\n\nint DBImpl::Put(int k) {\n  return k + 1;\n}\n',
    "db/db_test.cc": '#include "db/db_impl.h"\n\nint TestPut() {\n  DBImpl d;\n  return d.Put(1);\n}\n',
}


def _walks(tmp_path, files: dict, edited: str, old: str, new: str, asks: list[tuple[str, str]]) -> dict:
    """{(branch, target, edge): {(path, qualname, by)}} of walks in, on the default branch and on a
    branch ``feat`` that changed only ``edited`` (``old`` -> ``new``)."""
    repo = Repo(tmp_path / "repo")
    repo.commit("init", files)
    store = str(tmp_path / "store")
    index_repository(repo.path, store, NO_EMBED)
    git(repo.path, "checkout", "-q", "-b", "feat")
    repo.commit("edit", {edited: files[edited].replace(old, new)})
    t = Tools.open([store], overlay_builder=builder(NO_EMBED))
    try:
        out = {}
        for branch in ("", "feat"):
            sid = t.open_session(author="agent", branch=branch).data["session"]
            for target, edge in asks:
                out[branch, target, edge] = {(i.path, i.qualname, i.meta.get("by"))
                                             for i in t.walk(sid, target, edges=[edge], direction="in").items}
        return out
    finally:
        t.close()


@pytest.mark.slow
def test_a_branch_session_keeps_a_workspace_import_and_its_calls(tmp_path):
    got = _walks(tmp_path, WORKSPACE, "packages/app/src/a.ts", "clamp(1)", "clamp(2) + 1",
                 [("packages/util/src/index.ts::clamp", "calls"), ("packages/util/src/index.ts", "imports")])
    for branch in ("", "feat"):
        assert {(p, q) for p, q, _ in got[branch, "packages/util/src/index.ts::clamp", "calls"]} == \
            {("packages/app/src/a.ts", "a")}, branch
        assert {p for p, _, _ in got[branch, "packages/util/src/index.ts", "imports"]} == {"packages/app/src/a.ts"}, branch


@pytest.mark.slow
def test_a_branch_editing_a_c_test_keeps_its_header_edge(tmp_path):
    got = _walks(tmp_path, HEADER, "db/db_test.cc", "Put(1)", "Put(2)", [("db/db_impl.cc", "tests")])
    assert got["", "db/db_impl.cc", "tests"] == {("db/db_test.cc", "", "header")}
    assert {p for p, _, _ in got["feat", "db/db_impl.cc", "tests"]} == {"db/db_test.cc"}
