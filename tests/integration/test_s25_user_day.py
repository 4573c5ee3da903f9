"""What a new user's day with the memories showed (session 25 probe P2), on a real repository
indexed by the real pipeline, through the CLI as typed:

- a note of several lines showed its first line alone, unmarked, where the reason is often on
  line 2 ("do NOT retry, fix discount instead");
- a prose query over 32,000 characters was told "the limit is 32000" (a shorter one over 2,000:
  "the limit is 2000 (a pasted traceback may be up to 32000)");
- `get x.py:0` said "x.py has N lines", where `--lines 0-5` says line numbers start at 1;
- `status` said "authenticated: False" of the OS user whose notes read as proven.
"""

from __future__ import annotations

import json

import pytest

from tests.clirun import indexed_repo, run

CART = "def total(items):\n    return sum(items)\n\n\ndef discount(x):\n    return x * 0.9\n"


@pytest.fixture()
def shop(tmp_path, monkeypatch):
    r, store = indexed_repo(tmp_path / "shop", {"shop/__init__.py": "", "shop/cart.py": CART})
    monkeypatch.chdir(r.path)
    return r, store


def test_a_note_of_several_lines_shows_them_on_its_line(shop, capsys):
    text = "Tried rounding in total.\nIt double-rounds coupons: do NOT retry, fix discount instead."
    rc, out, err = run(capsys, "remember", "failure", text, "--about", "shop/cart.py::total")
    assert rc == 0, err
    rc, out, err = run(capsys, "get", "shop/cart.py::total", "--json")
    assert rc == 0, err
    notes = json.loads(out)["items"][0]["notes"]
    assert notes and "Tried rounding in total. / It double-rounds coupons: do NOT retry" in notes[0]["line"], notes


def test_a_long_note_line_is_cut_with_a_mark(shop, capsys):
    text = "first line " + "word " * 10 + "\n" + "second " * 40
    rc, out, err = run(capsys, "remember", "rca", text, "--about", "shop/cart.py::total")
    assert rc == 0, err
    rc, out, err = run(capsys, "get", "shop/cart.py::total", "--json")
    line = json.loads(out)["items"][0]["notes"][0]["line"]
    assert "\u2026" in line and "second" in line, line


def test_a_prose_query_too_long_for_any_limit_is_told_the_prose_limit(shop, capsys):
    rc, out, err = run(capsys, "search", "cookie parse " * 3000)
    assert rc == 2
    assert "query is 39000 characters; the limit is 2000 (a pasted traceback may be up to 32000)" in err, err


def test_line_zero_is_told_that_lines_start_at_1(shop, capsys):
    for asked in ("shop/cart.py:0", "shop/cart.py:00"):
        rc, out, err = run(capsys, "get", asked)
        assert rc == 2 and "line numbers start at 1" in err and "has 6 lines" not in err, err
    rc, out, err = run(capsys, "get", "shop/cart.py:99")
    assert rc == 2 and "shop/cart.py has 6 lines" in err, err


def test_status_says_how_the_os_user_is_identified_as_its_notes_do(shop, capsys):
    rc, out, err = run(capsys, "remember", "insight", "sums prices", "--about", "shop/cart.py::total")
    assert rc == 0, err
    rc, out, err = run(capsys, "get", "shop/cart.py::total", "--json")
    note_id = json.loads(out)["items"][0]["notes"][0]["id"]
    rc, out, err = run(capsys, "notes", "show", note_id, "--json")
    assert rc == 0, err
    assert '"identified_by": "os_user"' in out, out
    rc, out, err = run(capsys, "status", "--json")
    assert rc == 0, err
    data = json.loads(out)["data"]
    assert data["identified_by"] == "os_user" and data["author"].startswith("os:"), data
    # and "authenticated" as the note's provenance says it (it read False beside a proven note: s27 probe)
    assert data["authenticated"] is True and json.loads(out_note := run(capsys, "notes", "show", note_id, "--json")[1]) \
        and '"authenticated": true' in out_note, data


def test_notes_list_shows_a_note_as_the_answers_do(shop, capsys):
    # it printed line 1 alone, cut at 90 characters with no mark (session 25 probe P3)
    long = "first line is very long: " + "x" * 120
    rc, out, err = run(capsys, "remember", "failure", f"{long}\nsecond line: DO NOT retry", "--about",
                       "shop/cart.py::total")
    assert rc == 0, err
    rc, out, err = run(capsys, "notes", "list")
    assert rc == 0, err
    assert "first line is very long: xxx" in out and "\u2026" in out, out
    rc, out, err = run(capsys, "remember", "rca", "Tried rounding.\nfix discount instead", "--about", "shop/cart.py")
    rc, out, err = run(capsys, "notes", "list")
    assert "Tried rounding. / fix discount instead" in out, out


def test_a_files_notes_are_said_to_be_the_files_not_its_last_definitions(shop, capsys):
    """`get FILE --level api` printed the file's notes after its last definition, indented like that
    definition's doc line: they read as its notes (session 27 probe, express's tryRender)."""
    assert run(capsys, "remember", "failure", "import order breaks", "--about", "shop/cart.py")[0] == 0
    rc, out, err = run(capsys, "get", "shop/cart.py", "--level", "api")
    assert rc == 0, err
    lines = out.splitlines()
    at = lines.index("notes on this file (shop/cart.py):")
    assert lines[at - 1].startswith("def discount") or lines[at - 1].strip().startswith("def discount"), lines
    assert lines[at + 1].startswith("    note: failure note") and "import order breaks" in lines[at + 1], lines
    rc, out, err = run(capsys, "search", "import order breaks")        # a one-line item: no such line
    assert "notes on this" not in out
