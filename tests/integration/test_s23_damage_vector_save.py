"""A full disk while the vector graph is saved says the system's reason and the file, as the other
warm files do (``npyio.save``): usearch's own error was "RuntimeError: Failed to serialize into
stream", naming neither (an operations probe on a full tmpfs). The disk here is really full: the
graph's path is a link to /dev/full, or a file-size limit (RLIMIT_FSIZE) cuts the write short."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

from stratum.store import Store
from tests.clirun import run
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]


def test_a_reindex_whose_vector_graph_meets_a_full_disk_says_so_and_keeps_the_store(tmp_path, capsys):
    r = Repo(tmp_path / "r")
    r.commit("init", {"calc.py": "def add(a, b):\n    return a + b\n", "shop.py": "class Cart:\n    pass\n"})
    store = tmp_path / "st"
    assert run(capsys, "index", str(r.path), "--store", str(store), "--no-ray")[0] == 0
    assert run(capsys, "remember", "rca", "kept through a full disk", "--about", "calc.py", "--store", str(store))[0] == 0
    r.commit("more", {"calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"})
    graph = store / "indexes" / "v000002" / "vector" / "vectors.usearch"
    graph.parent.mkdir(parents=True)
    graph.symlink_to("/dev/full")              # every write there fails as on a full disk (ENOSPC)

    rc, _out, err = run(capsys, "index", str(r.path), "--store", str(store), "--no-ray")
    assert rc == 1
    assert err.strip().splitlines()[-1].startswith(f"stratum: error: No space left on device ({graph})"), err
    assert "serialize" not in err and "Traceback" not in err
    assert Store(store).manifest().version == 1             # nothing published, the note kept
    rc, out, _ = run(capsys, "notes", "list", "--store", str(store))
    assert rc == 0 and "kept through a full disk" in out

    graph.unlink(missing_ok=True)                           # room again (the failed run may have cleared it)
    assert run(capsys, "index", str(r.path), "--store", str(store), "--no-ray")[0] == 0
    assert Store(store).manifest().version == 2


def test_a_graph_cut_short_by_a_file_size_limit_names_its_errno_and_file(tmp_path):
    """The limit sits between the dense matrix's size and the graph's: only the graph's write fails."""
    code = ("import resource, sys, numpy as np\n"
            "from stratum.vectorindex import VectorIndex\n"
            "v = np.random.default_rng(0).standard_normal((3000, 64)).astype(np.float32)\n"
            "v /= np.linalg.norm(v, axis=1, keepdims=True)\n"
            "idx = VectorIndex.build(v)\n"
            "matrix = 3000 * 64 * 2 + 128\n"
            "assert idx._graph.serialized_length > matrix + 8192\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (matrix + 4096, matrix + 4096))\n"
            "try:\n"
            "    idx.save(sys.argv[1])\n"
            "except OSError as e:\n"
            "    print(e.errno, e.strerror, e.filename, sep='|')\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "vector")], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    target = tmp_path / "vector" / "vectors.usearch"
    assert out.stdout.strip() == f"{errno.EFBIG}|File too large|{target}", out.stderr
    assert os.path.getsize(target) <= 3000 * 64 * 2 + 128 + 4096       # the probe's bytes cut off again
