"""How a target is read, on real repositories indexed by the real index job, through the real Tools
(and the CLI over them): a path tail several files end with, remember's path tails, and a file or
folder the index skips as vendored.

Before (probe P2, session 24): `get src/cart.ts` with packages/web/src/cart.ts and
packages/admin/src/cart.ts said "no node 'src/cart.ts'" and named neither; `remember --about
web/src/api.ts` said "unknown target" though get, walk, pin and prefetch took that tail; `get` of the
6th file of a vendored folder said "new since the indexed commit ..., or skipped" (the report keeps
five sample paths a reason), and `tree` of a vendored folder said only "no path"."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig, ParseConfig
from stratum.errors import InvalidArgument, NotFound, NoteRejected
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
MONO = {"packages/web/package.json": '{"name": "@org/web"}\n', "packages/admin/package.json": '{"name": "@org/admin"}\n',
        "packages/web/src/cart.ts": "export class Cart {\n  total(): number { return 0; }\n}\n",
        "packages/web/src/api.ts": "export function fetchCart(): number { return 1; }\n",
        "packages/admin/src/cart.ts": "export class AdminCart {\n  refund(a: number): number { return -a; }\n}\n"}


def _indexed(tmp_path: Path, files: dict[str, str], cfg: IndexConfig = CFG) -> tuple[Repo, str]:
    r = Repo(tmp_path / "repo")
    r.commit("init", files)
    store = str(tmp_path / "store")
    index_repository(r.path, store, cfg)
    return r, store


@pytest.fixture
def mono(tmp_path):
    _, store = _indexed(tmp_path, MONO)
    t = Tools.open([store])
    try:
        yield t, t.open_session(author="agent").data["session"], store
    finally:
        t.close()


def test_an_ambiguous_tail_names_the_files_it_could_mean(mono, capsys):
    t, sid, store = mono
    said = "'src/cart.ts' names 2 files by its tail: packages/admin/src/cart.ts, packages/web/src/cart.ts"
    for call in (lambda: t.get(sid, "src/cart.ts"), lambda: t.walk(sid, "src/cart.ts"),
                 lambda: t.pin(sid, "src/cart.ts"), lambda: t.prefetch(sid, ["src/cart.ts"])):
        with pytest.raises(InvalidArgument, match=said):
            call()
    with pytest.raises(InvalidArgument, match="'src/cart.ts:2' names 2 files by its tail"):     # path:LINE too
        t.get(sid, "src/cart.ts:2")
    assert t.get(sid, "web/src/cart.ts").items[0].path == "packages/web/src/cart.ts"       # one file: served
    rc, _, err = run(capsys, "get", "src/cart.ts", "--store", store)
    assert rc != 0 and said in err, err


def test_many_files_with_one_tail_are_listed_a_few_and_counted(tmp_path):
    files = {f"packages/p{i}/src/index.ts": f"export const v{i} = {i};\n" for i in range(8)}
    _, store = _indexed(tmp_path, files)
    t = Tools.open([store])
    try:
        sid = t.open_session().data["session"]
        shown = ", ".join(f"packages/p{i}/src/index.ts" for i in range(5))
        with pytest.raises(InvalidArgument, match=f"names 8 files by its tail: {shown} and 3 more;"):
            t.get(sid, "src/index.ts")
    finally:
        t.close()


def test_remember_takes_a_tail_get_takes_and_records_the_repository_path(mono):
    t, sid, _ = mono
    nid = t.remember(sid, "insight", "fetchCart never retries", ["web/src/api.ts"]).data["note_id"]
    sh = next(iter(t.memory))
    assert [(a.given, a.path) for a in t.memory.overlay(sh).notes[nid].about] == \
        [("packages/web/src/api.ts", "packages/web/src/api.ts")]
    assert nid in {n["id"] for n in t.get(sid, "packages/web/src/api.ts").items[0].notes}
    with pytest.raises(InvalidArgument, match="'src/cart.ts' names 2 files by its tail: packages/admin/src/cart.ts, "
                                              "packages/web/src/cart.ts"):
        t.remember(sid, "insight", "which cart?", ["src/cart.ts"])
    # a path that crosses another file's (admin has no api.ts) is no tail of it: refused, not put on web's
    with pytest.raises(NoteRejected, match="unknown target: 'packages/admin/src/api.ts'"):
        t.remember(sid, "insight", "admin api", ["packages/admin/src/api.ts"])


def test_every_file_of_a_vendored_folder_says_so_and_the_folder_too(tmp_path):
    files = {f"third_party/lib/m{i}.js": f"module.exports = {i};\n" for i in range(8)}
    files |= {f"external/glfw/src/w{i}.c": f"int w{i};\n" for i in range(7)} | {"external/glfw/LICENSE.md": "zlib\n"}
    files |= {"app/main.py": "def main():\n    return 1\n"}
    _, store = _indexed(tmp_path, files)
    t = Tools.open([store])
    try:
        sid = t.open_session().data["session"]
        for path, folder in (("third_party/lib/m0.js", "third_party"), ("third_party/lib/m7.js", "third_party"),
                             ("external/glfw/src/w6.c", "external")):
            with pytest.raises(NotFound) as e:
                t.get(sid, path)
            assert f"'{path}' is not in the index: the index skipped it (vendored: in a folder of other projects' " \
                   f"code" in e.value.message and f"`stratum index --keep-dir {folder}` indexes it" in e.value.message, \
                e.value.message
            assert "new since the indexed commit" not in e.value.message
        for folder in ("third_party/lib", "third_party"):
            with pytest.raises(NotFound, match=f"'{folder}' is not in the index: the index skipped it \\(vendored"):
                t.tree(sid, folder)
        with pytest.raises(NotFound, match="no path 'app/nope'"):
            t.tree(sid, "app/nope")
    finally:
        t.close()


def test_a_kept_folder_is_indexed_and_a_vendored_one_below_it_still_said(tmp_path):
    files = {f"third_party/ours/m{i}.js": f"module.exports = {i};\n" for i in range(7)}
    files |= {f"third_party/ours/node_modules/dep/d{i}.js": f"var d{i};\n" for i in range(7)}
    cfg = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False), parse=ParseConfig(keep_dirs=("third_party/ours",)))
    r, store = _indexed(tmp_path, files, cfg)
    r.commit("new", {"third_party/ours/new.js": "var n;\n"})      # new since the index, in a kept folder
    t = Tools.open([store])
    try:
        sid = t.open_session().data["session"]
        assert t.get(sid, "third_party/ours/m6.js").items[0].kind == "file"
        with pytest.raises(NotFound, match=r"skipped it \(vendored: .*here third_party/ours/node_modules/; "
                                           r"`stratum index --keep-dir third_party/ours/node_modules`"):
            t.get(sid, "third_party/ours/node_modules/dep/d6.js")
        with pytest.raises(NotFound, match="'third_party/ours/new.js' is in the repository but not in the index: "
                                           "new since the indexed commit"):
            t.get(sid, "third_party/ours/new.js")
    finally:
        t.close()


def test_with_several_stores_a_tail_is_recorded_in_its_store_and_candidates_say_theirs(tmp_path):
    stores = []
    for name, files in (("alpha", MONO), ("beta", {"lib/util.py": "def u():\n    return 1\n"})):
        r = Repo(tmp_path / name)
        r.commit("init", files)
        stores.append(str(tmp_path / f"{name}-store"))
        index_repository(r.path, stores[-1], CFG)
    t = Tools.open(stores)
    try:
        sid = t.open_session(author="agent").data["session"]
        nid = t.remember(sid, "insight", "fetchCart never retries", ["web/src/api.ts"]).data["note_id"]
        alpha = next(sh for sh in t.memory if sh.manifest.repo_name == "alpha")
        assert [a.path for a in t.memory.overlay(alpha).notes[nid].about] == ["packages/web/src/api.ts"]
        with pytest.raises(InvalidArgument, match="'src/cart.ts' names 2 files by its tail: "
                                                  "alpha:packages/admin/src/cart.ts, alpha:packages/web/src/cart.ts"):
            t.get(sid, "src/cart.ts")
    finally:
        t.close()
