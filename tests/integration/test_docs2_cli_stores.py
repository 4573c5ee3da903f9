"""`--store` given more than once on the command line: the query commands answer from every store
given (as `stratum serve` serves them, and with its refusal of two stores of one repository name);
a command that takes one store refuses a second instead of keeping the last.

A docs-verbatim probe: `stratum status --store A --store B` listed B alone, and `stratum search`
searched B alone, saying nothing."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.clirun import indexed_repo, run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """Two repositories (``alpha``, ``beta``), each indexed into its own store: their store paths."""
    root = tmp_path_factory.mktemp("two")
    return [indexed_repo(root / name, {f"{name}.py": body})[1]
            for name, body in (("alpha", "def alpha_cookie_jar():\n    return 1\n"),
                               ("beta", "def beta_cookie_jar():\n    return 2\n"))]


def test_query_commands_answer_from_every_store_given(two, capsys):
    a, b = two
    rc, out, err = run(capsys, "status", "--json", "--store", a, "--store", b)
    assert rc == 0, err
    assert [s["repo"] for s in json.loads(out)["data"]["shards"]] == ["alpha", "beta"]     # was ["beta"]

    rc, out, err = run(capsys, "search", "cookie jar", "--json", "--store", a, "--store", b)
    assert rc == 0, err
    found = {(it["repo"], it["qualname"]) for it in json.loads(out)["items"] if it["qualname"]}
    assert {("alpha", "alpha_cookie_jar"), ("beta", "beta_cookie_jar")} <= found

    rc, out, err = run(capsys, "get", "beta:beta.py", "--json", "--store", a, "--store", b)
    assert rc == 0 and json.loads(out)["items"][0]["path"] == "beta.py", err

    # a page token printed by one call works in the next given the same stores
    rc, out, err = run(capsys, "search", "cookie jar", "--json", "--page-size", "1", "--store", a, "--store", b)
    token = json.loads(out)["envelope"]["next_page_token"]
    rc, out, err = run(capsys, "search", "cookie jar", "--json", "--page-size", "1", "--page-token", token,
                       "--store", a, "--store", b)
    assert rc == 0 and json.loads(out)["envelope"]["page"] == 2, err


def test_two_stores_of_one_repository_name_are_refused_as_serve_refuses_them(two, capsys, tmp_path):
    copy = tmp_path / "alpha-copy"
    shutil.copytree(two[0], copy)
    rc, _out, err = run(capsys, "status", "--store", two[0], "--store", str(copy))
    assert rc == 2 and "both hold a repository named 'alpha'" in err


@pytest.mark.parametrize("argv", [("notes", "list"), ("notes", "policy"), ("history",), ("cochange", "alpha.py"),
                                  ("repair", "--check")])
def test_a_command_of_one_store_refuses_a_second(two, capsys, argv):
    a, b = two
    rc, out, err = run(capsys, *argv, "--store", a, "--store", b)
    assert rc == 2 and out == ""
    assert f"argument --store: given twice ('{a}', then '{b}')" in err and "takes one store" in err, err
    rc, _out, err = run(capsys, *argv, "--store", a, "--store", a)     # the same path twice is one store
    assert rc == 0, err
