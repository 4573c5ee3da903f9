"""A branch session reads the workspace's manifests as the index does (``overlay._manifests``): a
review found a two-package monorepo's call through ``import {clamp} from '@mono/util'`` linked in
the index but lost in a branch session that edited the caller (the overlay passed no manifests, so
the import read as external and its calls and imports edges went with it)."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.tools import Tools
from tests.clirun import NO_EMBED
from tests.gitrepo import Repo, git

FILES = {
    "package.json": '{"name": "mono", "private": true}\n',
    "packages/util/package.json": '{"name": "@mono/util", "main": "src/index.ts"}\n',
    "packages/util/src/index.ts": "export function clamp(n: number): number {\n  return n;\n}\n",
    "packages/app/package.json": '{"name": "@mono/app"}\n',
    "packages/app/src/a.ts": "import {clamp} from '@mono/util';\n\nexport function a(): number {\n  return clamp(1);\n}\n",
}


@pytest.mark.slow
def test_a_branch_session_keeps_a_workspace_import_and_its_calls(tmp_path):
    repo = Repo(tmp_path / "repo")
    repo.commit("init", FILES)
    store = str(tmp_path / "store")
    index_repository(repo.path, store, NO_EMBED)
    git(repo.path, "checkout", "-q", "-b", "feat")
    repo.commit("edit the caller", {"packages/app/src/a.ts": FILES["packages/app/src/a.ts"].replace("clamp(1)", "clamp(2) + 1")})
    t = Tools.open([store], overlay_builder=builder(NO_EMBED))
    try:
        for branch in ("", "feat"):
            sid = t.open_session(author="agent", branch=branch).data["session"]
            callers = {f"{i.path}::{i.qualname}" for i in
                       t.walk(sid, "packages/util/src/index.ts::clamp", edges=["calls"], direction="in").items}
            importers = {i.path for i in t.walk(sid, "packages/util/src/index.ts", edges=["imports"], direction="in").items}
            assert callers == {"packages/app/src/a.ts::a"}, branch
            assert importers == {"packages/app/src/a.ts"}, branch
    finally:
        t.close()
