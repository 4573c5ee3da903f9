"""Damaged copies under manifests/ on a real store (a real repository indexed by the real pipeline).

A probe: with the current version's copy cut, `repair --check` said "every file checked intact";
with manifest.json cut too, repair fell back to version 1's copy, published it as "version 2" (the
number of the damaged version, which readers and page tokens key on) and kept 2 notes of 4: the
two merged in version 2 lived only in retired delta-log segments."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def remember(store, kind: str, text: str) -> None:
    """In a process of its own, as an agent writes: its log segment is sealed when it ends (one
    held by this process would never be retired)."""
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "remember", kind, text, "--about", "shop/cart.py",
                        "--store", str(store)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr


def notes(main, capsys, store) -> set[str]:
    assert main(["notes", "list", "--json", "--store", str(store)]) == 0
    return {n["id"] for n in json.loads(capsys.readouterr().out)["notes"]}


@pytest.fixture()
def noted(tmp_path, capsys):
    """v1, two notes merged into v2 (their segments retired), two notes in the live log."""
    from stratum.cli import main
    from tests.gitrepo import sample_python_repo

    r = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    assert main(["index", str(r.path), "--store", str(store), "--no-embed"]) == 0
    for i in range(2):
        remember(store, "rca", f"merged cause {i}: totals round twice")
    r.commit("add a helper", {"shop/util.py": "def helper():\n    return 1\n"})
    assert main(["index", str(r.path), "--store", str(store), "--no-embed"]) == 0
    assert list((store / "deltalog" / "retired").glob("*.seg"))
    for i in range(2):
        remember(store, "failure", f"live note {i}: rounding per line drifts")
    capsys.readouterr()
    written = notes(main, capsys, store)
    assert len(written) == 4 and json.loads((store / "manifest.json").read_text())["version"] == 2
    return r, store, written


def cut(path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def test_check_reports_a_damaged_copy_and_repair_writes_it_again(noted, capsys):
    from stratum.cli import main

    _, store, written = noted
    copy = store / "manifests" / "000002.json"
    cut(copy)
    assert main(["repair", "--check", "--store", str(store)]) == 1
    out = capsys.readouterr().out
    assert "damaged: manifests/000002.json" in out and "every file checked intact" not in out

    assert main(["repair", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "manifests/000002.json written again from manifest.json" in out
    assert copy.read_text() == (store / "manifest.json").read_text()
    assert main(["repair", "--check", "--store", str(store)]) == 0
    assert "every file checked intact" in capsys.readouterr().out
    assert notes(main, capsys, store) == written


def test_falling_back_to_an_older_copy_publishes_a_new_number_and_keeps_every_note(noted, capsys):
    from stratum.cli import main

    r, store, written = noted
    cut(store / "manifests" / "000002.json")
    cut(store / "manifest.json")
    assert main(["repair", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "manifest restored from version 1's copy" in out and "version 2's is damaged too" in out
    assert "published as version 3" in out                  # never 2 again
    assert "retired delta-log segment(s) moved back" in out
    assert "agent notes kept (any status): 4" in out
    assert json.loads((store / "manifest.json").read_text())["version"] == 3
    assert (store / "manifests" / "damaged" / "000002.json").is_file()
    assert notes(main, capsys, store) == written             # served at once, before any index
    assert main(["search", "totals round twice", "--json", "--store", str(store)]) == 0
    assert any(i.get("kind") == "rca" for i in json.loads(capsys.readouterr().out)["items"])
    assert main(["repair", "--check", "--store", str(store)]) == 0
    assert "every file checked intact" in capsys.readouterr().out

    assert main(["index", str(r.path), "--store", str(store), "--no-embed"]) == 0
    capsys.readouterr()
    assert json.loads((store / "manifest.json").read_text())["version"] == 4
    assert notes(main, capsys, store) == written
