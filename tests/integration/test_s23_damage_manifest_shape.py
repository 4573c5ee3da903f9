"""A manifest.json edited or damaged into another shape is unreadable, with the repair hint, and
`stratum repair` publishes its intact copy under manifests/ again, every note kept. An operations
probe: ``[]`` ended every command, repair too, in a traceback ('list' object has no attribute
'items'); ``datasets`` a string said "dataset 'nodes' is not in published version 1" with no hint
and repair crashed (TypeError); ``datasets.nodes`` edited to 42 was taken for damaged Lance data and
repair said to re-index with --full, the data and manifests/000001.json intact."""

from __future__ import annotations

import json
import shutil

import pytest

from stratum.store import Store
from tests.clirun import run
from tests.gitrepo import Repo

EDITS = {
    "a JSON array": (lambda m: [], "it holds a JSON array, not an object"),
    "datasets a string": (lambda m: {**m, "datasets": "x", "indexes": 5}, "its 'datasets' is \"x\", not dict[str, int]"),
    "another Lance version named": (lambda m: {**m, "datasets": {**m["datasets"], "nodes": 42}},
                                    "its 'datasets' names nodes version 42, its checksums version 1"),
    "a field missing": (lambda m: {k: v for k, v in m.items() if k != "repo_name"}, "it has no 'repo_name'"),
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A repository indexed with one note: (repository path, store)."""
    from stratum.cli import main

    base = tmp_path_factory.mktemp("manifest")
    r = Repo(base / "r")
    r.commit("init", {"calc.py": "def add(a, b):\n    return a + b\n"})
    store = base / "st"
    assert main(["index", str(r.path), "--store", str(store), "--no-ray", "--no-embed"]) == 0
    assert main(["remember", "rca", "kept through a bad manifest", "--about", "calc.py", "--store", str(store)]) == 0
    return r.path, store


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_manifest_of_another_shape_is_unreadable_and_repair_restores_its_copy(indexed, tmp_path, capsys, edit):
    change, said = EDITS[edit]
    repo, original = indexed
    store = tmp_path / "st"
    shutil.copytree(original, store)
    path = store / "manifest.json"
    path.write_text(json.dumps(change(json.loads(path.read_text()))))

    for argv in (["search", "add"], ["status"], ["index", str(repo), "--no-ray", "--no-embed"]):
        rc, _out, err = run(capsys, *argv, "--store", str(store))
        assert rc == 1, (argv, err)
        assert err.strip() == (f"stratum: error: manifest {path} is unreadable: {said}; `stratum repair` "
                               "publishes the last intact version again (every note kept)"), (argv, err)

    rc, out, err = run(capsys, "repair", "--store", str(store))
    assert rc == 0, err
    assert f"damaged: manifest.json: manifest {path} is unreadable: {said}" in out
    assert "manifest restored from version 1's copy, published as version 2" in out
    assert "re-index" not in out
    assert Store(store).manifest().version == 2
    rc, out, _ = run(capsys, "search", "add", "--store", str(store))
    assert rc == 0 and "function add" in out
    rc, out, _ = run(capsys, "notes", "list", "--store", str(store))
    assert rc == 0 and "kept through a bad manifest" in out
    assert run(capsys, "repair", "--check", "--store", str(store))[0] == 0
