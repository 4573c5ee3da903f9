"""Which folders are other projects' code (skipped as vendored), the settings that steer it, the
Ray task's memory request and the freshness warning's words about returned folders.

A probe: every folder named ``external`` was skipped at any depth, so sympy's own
``sympy/external`` (16 files, a package of sympy) was not indexed, and a tree page of ``.ci/``,
``bin/``, ``doc/`` warned "these returned files changed since: sympy/core/numbers.py"."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.files import Vendored, discover
from stratum.config import (DEFAULT_TASK_MEMORY, TASK_MEMORY_ENV, VENDORED_RULE, IndexConfig, ParseConfig,
                            keep_dirs_of, parse_size, settings_of, task_memory, with_kept)
from stratum.errors import InvalidArgument
from stratum.freshness import RepoView, warnings_for
from tests.gitrepo import Repo

LAYOUT = {
    # first-party: a package of the project named external (sympy/external), an app's clients
    "sympy/__init__.py": "", "sympy/external/__init__.py": "", "sympy/external/gmpy.py": "x = 1\n",
    "sympy/external/tests/test_gmpy.py": "def test(): pass\n",
    "app/external/client.go": "package external\n", "app/external/license.py": "def check(): pass\n",
    # third-party: external at the root, or holding a copied-in project's license or manifest
    "external/glfw/src/window.c": "int w;\n",
    "src/external/zlib/LICENSE": "zlib license\n", "src/external/zlib/inflate.c": "int i;\n",
    "web/external/package.json": "{}\n", "web/external/index.js": "var a;\n",
    # always vendored, at any depth
    "pkg/node_modules/left-pad/index.js": "var p;\n", "lib/third_party/mine/a.py": "a = 1\n",
    "lib/third_party/mine/node_modules/dep/i.js": "var d;\n",
}


def _skipped(paths: list[str], cfg: ParseConfig = ParseConfig()) -> dict[str, str]:
    v = Vendored(paths, cfg)
    return {p: f for p in paths if (f := v.folder(p)) is not None}


def test_external_is_vendored_only_where_third_party_code_sits():
    got = _skipped(sorted(LAYOUT))
    assert got == {
        "external/glfw/src/window.c": "external",
        "src/external/zlib/LICENSE": "src/external", "src/external/zlib/inflate.c": "src/external",
        "web/external/package.json": "web/external", "web/external/index.js": "web/external",
        "pkg/node_modules/left-pad/index.js": "pkg/node_modules",
        "lib/third_party/mine/a.py": "lib/third_party",
        "lib/third_party/mine/node_modules/dep/i.js": "lib/third_party"}
    # sympy's package and an app's external/ with a license.py module (code, not a license) are kept
    assert not {p for p in got if p.startswith(("sympy/", "app/"))}


def test_a_root_external_that_is_a_python_package_is_the_projects_own():
    assert _skipped(["external/__init__.py", "external/api.py", "external/x/y.py"]) == {}


def test_keep_dirs_keep_a_folder_but_not_a_vendored_one_below_it():
    cfg = ParseConfig(keep_dirs=("lib/third_party/mine", "./src/external/"))
    got = _skipped(sorted(LAYOUT), cfg)
    assert "lib/third_party/mine/a.py" not in got and "src/external/zlib/inflate.c" not in got
    assert got["lib/third_party/mine/node_modules/dep/i.js"] == "lib/third_party/mine/node_modules"
    assert got["external/glfw/src/window.c"] == "external"       # not named: still skipped
    # the old behaviour is one setting away: every external vendored again
    assert "sympy/external/gmpy.py" in _skipped(sorted(LAYOUT), ParseConfig(vendored_dirs=("external",)))


def test_discover_keeps_sympys_external_and_counts_each_vendored_folder(tmp_path):
    r = Repo(tmp_path / "r")
    r.commit("layout", LAYOUT)
    d = discover(r.path)
    kept = {f.path for f in d.files}
    assert {"sympy/external/gmpy.py", "sympy/external/tests/test_gmpy.py", "app/external/client.go"} <= kept
    assert d.skipped["vendored"] == 8 and "external/glfw/src/window.c" not in kept
    assert d.vendored == {"external": 1, "src/external": 2, "web/external": 2, "pkg/node_modules": 1,
                          "lib/third_party": 2}
    assert d.to_dict()["vendored"]["src/external"] == 2
    d = discover(r.path, ParseConfig(keep_dirs=("external",)))
    assert "external/glfw/src/window.c" in {f.path for f in d.files} and "external" not in d.vendored


def test_keep_dirs_are_repository_relative_folders():
    assert keep_dirs_of(["./src/external/", "src/external", "", "  ", "a/b"]) == ("a/b", "src/external")
    for bad in ["/abs/src", "../up", "a/../../up", ".", "a\0b"]:
        with pytest.raises(InvalidArgument, match="name a folder inside the repository"):
            keep_dirs_of([bad])
    with pytest.raises(InvalidArgument):        # checked where the index reads them too
        Vendored([], ParseConfig(keep_dirs=("../x",)))


def test_keep_dirs_is_a_kept_setting_and_a_recorded_list_reads_back_as_the_tuple():
    cfg = IndexConfig(parse=ParseConfig(keep_dirs=("src/external",)))
    recorded = settings_of(cfg)
    assert recorded["keep_dirs"] == ("src/external",)
    as_json = {**recorded, "keep_dirs": ["src/external"]}         # the manifest is JSON
    plain, taken = with_kept(IndexConfig(explicit=frozenset()), as_json)
    assert plain.parse.keep_dirs == ("src/external",) and taken == {"keep_dirs": ("src/external",)}
    same, taken = with_kept(replace(cfg, explicit=frozenset()), as_json)
    assert taken == {} and same.parse.keep_dirs == ("src/external",)
    cleared, _ = with_kept(IndexConfig(explicit=frozenset({"keep_dirs"})), as_json)
    assert cleared.parse.keep_dirs == ()


def test_the_skip_reason_names_the_rule_and_the_way_back():
    assert VENDORED_RULE.startswith("vendored: ") and "--keep-dir" in VENDORED_RULE
    assert "node_modules" in VENDORED_RULE and "external at the repository root" in VENDORED_RULE


def test_task_memory_from_the_setting_the_environment_or_the_default():
    assert task_memory(IndexConfig(), {}) == DEFAULT_TASK_MEMORY == 2 << 30
    assert task_memory(IndexConfig(), {TASK_MEMORY_ENV: "3G"}) == 3 << 30
    assert task_memory(IndexConfig(task_memory=0), {TASK_MEMORY_ENV: "3G"}) == 0     # the setting wins
    assert [parse_size(s) for s in ("800M", "2.5GiB", "512mb", "1024", "0", "1T")] == \
        [800 << 20, int(2.5 * 2**30), 512 << 20, 1024, 0, 1 << 40]
    with pytest.raises(InvalidArgument, match="STRATUM_TASK_MEMORY must be a size"):
        task_memory(IndexConfig(), {TASK_MEMORY_ENV: "lots"})
    with pytest.raises(InvalidArgument, match="task_memory must be 0"):
        task_memory(IndexConfig(task_memory=-1), {})


A, B = "a" * 40, "b" * 40


def _moved(changed: set[str]) -> RepoView:
    return RepoView(indexed=A, head=B, ahead=1, changed=frozenset(changed), dirty=frozenset(), taken_ns=0)


def _edited(dirty: set[str]) -> RepoView:
    return RepoView(indexed=A, head=A, ahead=0, changed=frozenset(), dirty=frozenset(dirty), taken_ns=0)


def test_a_tree_page_of_folders_names_no_file_it_did_not_return():
    """The probe's page: the repository's own item and .ci/, bin/, doc/; the commit touched
    sympy/core/numbers.py, below none of them."""
    page = [("", "repo"), (".ci", "dir"), ("bin", "dir"), ("doc", "dir")]
    w, stale = warnings_for(_moved({"sympy/core/numbers.py"}), page)
    assert stale and w == ["stale: the index is at aaaaaaa and HEAD is bbbbbbb (1 commit ahead); "
                           "none of the returned files changed since"]
    w, stale = warnings_for(_edited({"sympy/core/numbers.py"}), page)
    assert (w, stale) == ([], False)        # an uncommitted edit elsewhere: nothing returned changed


def test_a_returned_folder_counts_the_changed_files_below_it_and_names_only_returned_files():
    changed = {f"src/m{i:02d}.py" for i in range(14)} | {"docs/a.md", "src/app.py"}
    w, _ = warnings_for(_moved(changed), [("src", "dir"), ("docs", "dir"), ("src/app.py", "function")])
    assert w == ["stale: the index is at aaaaaaa and HEAD is bbbbbbb (1 commit ahead); these returned files "
                 "changed since: src/app.py; files changed since below the returned folders: docs/ (1), src/ (15)"]
    w, _ = warnings_for(_edited({"src/new.py", "src/app.py"}), [("src", "dir"), ("src/app.py", "file")])
    assert w == ["uncommitted changes in src/app.py (returned here)",
                 "uncommitted changes below the returned folders: src/ (2)"]
