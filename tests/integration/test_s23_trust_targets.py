"""How a target is spelled: a path with inner `.` or empty segments names the file it names on disk,
for `get` and `remember` alike, and `path:LINE` names the innermost definition at that line in
`remember` as it does in `get` (the real CLI over a real indexed repository)."""

from __future__ import annotations

import json

import pytest

from tests.clirun import indexed_repo, run

FILES = {"shop/util.py": '"""Helpers."""\n\n\ndef slugify(s):\n    """A slug."""\n    return "-".join(s.split())\n',
         "shop/pricing.py": '"""Pricing."""\n\n\ndef discount(total, rate):\n    return total * (1 - rate)\n'}


@pytest.fixture(scope="module")
def repo_store(tmp_path_factory):
    return indexed_repo(tmp_path_factory.mktemp("targets") / "repo", FILES)


def _json(capsys, *argv: str) -> dict:
    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


def test_inner_dot_and_empty_segments_name_the_indexed_file(capsys, repo_store):
    repo, store = repo_store
    file_id = _json(capsys, "get", "shop/util.py", "--store", store)["items"][0]["id"]
    func_id = _json(capsys, "get", "shop/util.py::slugify", "--store", store)["items"][0]["id"]
    for spelled, want in (("./shop/./util.py", file_id), ("shop//util.py", file_id), ("shop/util.py/.", file_id),
                          ("shop/./util.py::slugify", func_id), ("shop//util.py::slugify", func_id)):
        assert _json(capsys, "get", spelled, "--store", store)["items"][0]["id"] == want, spelled
        got = _json(capsys, "remember", "insight", f"about {spelled}", "--about", spelled, "--store", store)
        note = _json(capsys, "notes", "show", got["data"]["note_id"], "--store", store)
        assert [t["node_id"] for t in note["about"]] == [want], spelled
    # a file the index does not have is named as the resolver reads it
    (repo.path / "shop" / "new.py").write_text("x = 1\n")
    rc, _, err = run(capsys, "get", "shop/./new.py", "--store", store)
    assert rc != 0 and "'shop/new.py' is in the repository but not in the index" in err, err


def test_remember_takes_path_line_as_get_does(capsys, repo_store):
    _, store = repo_store
    got = _json(capsys, "get", "shop/util.py:6", "--store", store)["items"][0]
    assert got["name"] == "slugify"
    wrote = _json(capsys, "remember", "rca", "the slug drops tabs", "--about", "shop/util.py:6", "--store", store)
    note = _json(capsys, "notes", "show", wrote["data"]["note_id"], "--store", store)
    [target] = note["about"]
    assert (target["node_id"], target["qualname"], target["kind"]) == (got["id"], "slugify", "function")
    # module-level code: the file; spelled with inner segments and a column too
    file_id = _json(capsys, "get", "shop/util.py", "--store", store)["items"][0]["id"]
    wrote = _json(capsys, "remember", "insight", "the module docstring", "--about", "./shop//util.py:1:2",
                  "--store", store)
    assert [t["node_id"] for t in _json(capsys, "notes", "show", wrote["data"]["note_id"],
                                        "--store", store)["about"]] == [file_id]
    rc, _, err = run(capsys, "remember", "rca", "past the end", "--about", "shop/util.py:99", "--store", store)
    assert rc != 0 and "shop/util.py has 6 lines" in err, err
