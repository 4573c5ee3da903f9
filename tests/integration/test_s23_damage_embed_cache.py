"""The embedding cache (``data-v1/embeddings.lance``, ``store.CACHES``) is read by `stratum index`
alone: a version whose cache is damaged or gone is still served, saying so once, and `stratum
repair` drops the cache from the version instead of giving the store up. An operations probe:
with the cache's folder deleted every query was refused ("damaged ... not served") and repair said
"no older published version is intact; re-index with --full"."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stratum.store import Store
from tests.clirun import run
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]
CACHE_WARNING = "the embeddings cache of store"


def search(store: Path) -> tuple[int, str, str]:
    """`stratum search add` in a process of its own: its stderr as a user sees it (the warning is
    logged, and pytest captures logging in this process)."""
    p = subprocess.run([sys.executable, "-m", "stratum.cli", "search", "add", "--store", str(store)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A repository indexed with embeddings (the default static model) and one note."""
    from stratum.cli import main

    base = tmp_path_factory.mktemp("cache")
    r = Repo(base / "r")
    r.commit("init", {"calc.py": "def add(a, b):\n    return a + b\n", "shop.py": "class Cart:\n    pass\n"})
    store = base / "st"
    assert main(["index", str(r.path), "--store", str(store), "--no-ray"]) == 0
    assert main(["remember", "rca", "kept with the cache gone", "--about", "calc.py", "--store", str(store)]) == 0
    assert "embeddings" in Store(store).manifest().datasets
    return r, store


def _copy(indexed, tmp_path):
    r, original = indexed
    store = tmp_path / "st"
    shutil.copytree(original, store)
    return r, store


def test_a_deleted_cache_is_served_around_and_repair_drops_it(indexed, tmp_path, capsys):
    r, store = _copy(indexed, tmp_path)
    shutil.rmtree(store / "data-v1" / "embeddings.lance")

    rc, out, err = search(store)
    assert rc == 0 and "function add" in out, err
    assert err.count(CACHE_WARNING) == 1 and "is damaged" in err and "no query reads it" in err
    assert f"`stratum repair --store {store}` drops it" in err
    rc, out, err = run(capsys, "notes", "list", "--store", str(store))
    assert rc == 0 and "kept with the cache gone" in out

    rc, out, _ = run(capsys, "repair", "--check", "--store", str(store))
    assert rc == 1 and "damaged: embeddings: " in out and "queries are served meanwhile" in out
    rc, out, err = run(capsys, "repair", "--store", str(store))
    assert rc == 0, err
    assert "the embeddings cache dropped from version 2: queries never read it" in out
    assert "re-index" not in out and "rolled back" not in out
    m = Store(store).manifest()
    assert m.version == 2 and "embeddings" not in m.datasets and "nodes" in m.datasets
    rc, out, err = search(store)
    assert rc == 0 and "function add" in out and CACHE_WARNING not in err
    assert run(capsys, "repair", "--check", "--store", str(store))[0] == 0

    r.commit("more", {"calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"})
    assert run(capsys, "index", str(r.path), "--store", str(store), "--no-ray")[0] == 0
    m = Store(store).manifest()
    assert m.version == 3 and "embeddings" in m.datasets                    # a new cache
    assert run(capsys, "repair", "--check", "--store", str(store))[0] == 0
    rc, out, _ = run(capsys, "notes", "list", "--store", str(store))
    assert rc == 0 and "kept with the cache gone" in out


def test_a_cache_failing_its_checksums_is_set_aside_by_repair(indexed, tmp_path, capsys):
    """An index run refuses a damaged cache with what to run (damaged data is never reused
    silently); repair drops it and sets its folder aside, and the next run starts a new cache."""
    r, store = _copy(indexed, tmp_path)
    m = json.loads((store / "manifest.json").read_text())
    f = store / "data-v1" / "embeddings.lance" / sorted(
        p for p in m["integrity"]["embeddings"]["files"] if p.startswith("data/"))[0]
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0xFF
    f.write_bytes(bytes(b))

    rc, out, err = search(store)
    assert rc == 0 and "function add" in out and err.count(CACHE_WARNING) == 1 and "checksum mismatch" in err
    r.commit("more", {"shop.py": "class Cart:\n    total = 0\n"})
    rc, _out, err = run(capsys, "index", str(r.path), "--store", str(store), "--no-ray")
    assert rc == 1 and f"`stratum repair --store {store}` drops it" in err.strip().splitlines()[-1]

    rc, out, err = run(capsys, "repair", "--store", str(store))
    assert rc == 0, err
    aside = [p.name for p in (store / "data-v1").iterdir() if p.name.startswith("embeddings.lance.damaged-")]
    assert len(aside) == 1 and not (store / "data-v1" / "embeddings.lance").exists()
    assert f"(its folder set aside as data-v1/{aside[0]})" in out
    assert run(capsys, "index", str(r.path), "--store", str(store), "--no-ray")[0] == 0
    assert "embeddings" in Store(store).manifest().datasets
    assert run(capsys, "repair", "--check", "--store", str(store))[0] == 0
