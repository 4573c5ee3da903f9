"""A re-index that runs out of room (a full disk; here a file-size limit, which cuts a write short
part-way as a full disk does, with no mount needed) says so with the system's reason and the
file, publishes nothing and loses nothing. It said "1211 requested and 992 written"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from stratum.cli import main
from stratum.store import Store
from tests.gitrepo import Repo

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 8192                # bytes a file may hold: the warm index's row hashes (8 bytes a node) need more


# the limit set in the child itself (a preexec_fn forks a process that has Lance loaded)
LIMITED = ("import os, resource, sys\n"
           f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))\n"
           "os.execv(sys.executable, [sys.executable, '-m', 'stratum.cli', *sys.argv[1:]])\n")


def test_a_reindex_that_runs_out_of_room_says_why_and_keeps_the_store(tmp_path, capsys):
    r = Repo(tmp_path / "r")
    r.commit("many functions", {f"m{i}.py": "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(50))
                                for i in range(25)})
    store = tmp_path / "st"
    assert main(["index", str(r.path), "--store", str(store), "--no-ray", "--no-embed"]) == 0
    assert main(["remember", "rca", "kept through a full disk", "--about", "m1.py", "--store", str(store)]) == 0
    capsys.readouterr()
    r.commit("one more", {"m2.py": "def extra():\n    return 0\n"})
    env = {**os.environ, "RAY_TMPDIR": str(ROOT / ".tmp" / "ray"), "RAY_USAGE_STATS_ENABLED": "0"}
    p = subprocess.run([sys.executable, "-c", LIMITED, "index", str(r.path), "--store", str(store), "--no-ray",
                        "--no-embed"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 1, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith(f"stratum: error: File too large ({store}/indexes/v000002/") and ".npy)" in last, p.stderr
    assert "requested and" not in p.stderr
    assert Store(store).manifest().version == 1                  # nothing published
    assert main(["notes", "list", "--store", str(store)]) == 0
    assert "kept through a full disk" in capsys.readouterr().out
    assert main(["index", str(r.path), "--store", str(store), "--no-ray", "--no-embed"]) == 0   # room again
    assert Store(store).manifest().version == 2



def test_a_dataset_write_cut_short_says_it_was_a_write_and_not_to_repair(tmp_path):
    """Lance's write cut short said "reading dataset nodes ... failed ... the store may be damaged:
    run repair" (a probe, under a file-size limit); the store was intact and nothing published."""
    import errno

    import pytest

    from stratum.errors import StoreDamaged, StoreError
    from stratum.store import lance_errors

    with pytest.raises(StoreError) as e:
        with lance_errors(f"dataset nodes in {tmp_path}", tmp_path, writing=True):
            raise OSError(errno.EFBIG, "File too large")
    assert not isinstance(e.value, StoreDamaged)
    said = str(e.value)
    assert said.startswith("writing dataset nodes") and "nothing was published" in said and "repair" not in said
