"""The issue-10 probe as a user meets it: a damaged Lance file under a store with notes.

`stratum index` and queries refuse it with one clear line (no traceback), `stratum repair` rolls
back without losing a note, and the next index merges every note again."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def stratum(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True, timeout=600)


def notes(store) -> set[str]:
    p = stratum("notes", "list", "--json", "--store", str(store))
    assert p.returncode == 0, p.stderr
    return {n["id"] for n in json.loads(p.stdout)["notes"]}


def test_damaged_lance_file_index_refuses_repair_keeps_every_note(tmp_path):
    from tests.gitrepo import sample_python_repo

    r = sample_python_repo(tmp_path / "shop")
    repo = r.path
    store = tmp_path / "store"
    assert stratum("index", str(repo), "--store", str(store), "--no-embed").returncode == 0
    for i in range(3):
        p = stratum("remember", "rca", f"cause {i}: totals round twice", "--about", "shop/cart.py", "--store", str(store))
        assert p.returncode == 0, p.stderr
    written = notes(store)
    p = stratum("index", str(repo), "--store", str(store), "--no-embed", "--full")
    assert p.returncode == 0, p.stderr
    m = json.loads((store / "manifest.json").read_text())
    data = sorted(f for f in m["integrity"]["nodes"]["files"] if f.startswith("data/"))
    f = store / "data-v1" / "nodes.lance" / data[0]
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0xFF
    f.write_bytes(bytes(b))
    r.commit("add a helper", {"shop/util.py": "def helper():\n    return 1\n"})   # so the index has work

    for args in (("index", str(repo), "--no-embed"), ("search", "totals")):
        p = stratum(*args, "--store", str(store))
        assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
        assert "is damaged" in p.stderr and "stratum repair" in p.stderr

    p = stratum("repair", "--store", str(store))
    assert p.returncode == 0, p.stderr
    assert "rolled back to the data of version 1" in p.stdout
    # the report of the data served stays: the next index reads its parse format and settings from it
    report = json.loads((store / "manifest.json").read_text())["report"]
    assert report["repair"]["data_of"] == 1 and report["parse_format"] and report["config_key"]
    assert len(written) == 3 and notes(store) == written
    p = stratum("search", "totals round twice", "--json", "--store", str(store))
    assert p.returncode == 0 and any(i.get("kind") == "rca" for i in json.loads(p.stdout)["items"]), p.stderr

    p = stratum("index", str(repo), "--store", str(store), "--no-embed")
    assert p.returncode == 0, p.stderr
    assert notes(store) == written
    p = stratum("repair", "--check", "--prune", "--store", str(store))
    assert p.returncode == 0 and "every file checked intact" in p.stdout


def test_prune_keep_must_be_one_or_more_and_bare_prune_keeps_the_default(tmp_path, capsys):
    """Probe: `repair --prune -1` pruned to the default 3 (-1 was the flag's "no value" sentinel)."""
    from stratum.cli import main
    from tests.gitrepo import sample_python_repo

    r = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    assert main(["index", str(r.path), "--store", str(store), "--no-embed", "--keep", "0"]) == 0
    for i in range(4):          # versions 2..5, each with a change, none pruned (--keep 0)
        r.commit(f"helper {i}", {f"shop/h{i}.py": f"def h{i}():\n    return {i}\n"})
        assert main(["index", str(r.path), "--store", str(store), "--no-embed", "--keep", "0"]) == 0
    capsys.readouterr()
    for bad in ("-1", "0", "x"):
        with pytest.raises(SystemExit) as e:
            main(["repair", "--prune", bad, "--store", str(store)])
        assert e.value.code == 2
        assert "argument --prune: KEEP" in capsys.readouterr().err
    assert main(["repair", "--prune", "--json", "--store", str(store)]) == 0
    assert json.loads(capsys.readouterr().out)["pruned"]["versions"] == [3, 4, 5]      # DEFAULT_KEEP
    assert main(["repair", "--prune", "1", "--json", "--store", str(store)]) == 0
    assert json.loads(capsys.readouterr().out)["pruned"]["versions"] == [5]


def test_repair_sets_delta_log_damage_aside_and_keeps_every_note(tmp_path):
    """A probe: a segment with a torn record (a writer killed mid-append), live or retired, was
    skipped by every reader, reported by every later index, and `repair --check` said "intact"."""
    from stratum.deltalog import MAGIC
    from tests.gitrepo import sample_python_repo

    repo = sample_python_repo(tmp_path / "shop").path
    store = tmp_path / "store"
    assert stratum("index", str(repo), "--store", str(store), "--no-embed").returncode == 0
    for i in range(2):
        assert stratum("remember", "rca", f"cause {i}: totals round twice", "--about", "shop/cart.py",
                       "--store", str(store)).returncode == 0
    assert stratum("index", str(repo), "--store", str(store), "--no-embed", "--full").returncode == 0  # merged: retired
    assert stratum("remember", "failure", "tried rounding per line: totals drift", "--about", "shop/cart.py",
                   "--store", str(store)).returncode == 0
    written = notes(store)
    retired = sorted((store / "deltalog" / "retired").glob("*.seg"))[0]
    live = sorted((store / "deltalog").glob("*.seg"))[0]
    before = {p: p.read_bytes() for p in (retired, live)}
    for p in (retired, live):
        p.write_bytes(before[p] + MAGIC + b"\x01\x00\x00torn")

    p = stratum("repair", "--check", "--json", "--store", str(store))
    assert p.returncode == 1, p.stdout
    found = json.loads(p.stdout)["log_damage"]
    assert sorted(d.split(" @ ")[0] for d in found) == sorted([f"retired/{retired.name}", live.name])
    assert all("torn_tail" in d for d in found)

    p = stratum("repair", "--store", str(store))
    assert p.returncode == 0, p.stderr
    assert "2 damaged delta-log span(s) set aside" in p.stdout
    for p in (retired, live):           # the valid records, byte for byte, under a new name (-r.seg)
        assert not p.exists() and p.with_name(p.name[:-4] + "-r.seg").read_bytes() == before[p]
    kept = sorted(x.name for x in (store / "deltalog" / "damaged").iterdir())
    assert kept == sorted([retired.name, live.name])                     # the original bytes are kept
    assert notes(store) == written and len(written) == 3

    p = stratum("repair", "--check", "--store", str(store))
    assert p.returncode == 0 and "every file checked intact" in p.stdout, p.stdout
    p = stratum("index", str(repo), "--store", str(store), "--no-embed", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["notes"]["log_damage"] == 0 and not any("damage" in m for m in out["messages"])
