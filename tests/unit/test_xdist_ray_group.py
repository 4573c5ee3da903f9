"""The suite's scheduler (tests/conftest.py) runs the files marked ``xdist_group("ray")`` on one
worker, one after another, first. Under pytest 9.2 xdist 3.8's own group suffix is never added, so
the Ray files ran as separate units, two at once on two workers, unnoticed: this runs a small suite
with that scheduler on two workers and reads where and in what order each file ran."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CONFTEST = "from tests.conftest import pytest_xdist_make_scheduler  # noqa: F401\n"
_BODY = '''import os, time
{mark}
def test_{name}_a():
    with open(os.environ["RAN_LOG"], "a") as f:
        f.write(f"{{os.environ['PYTEST_XDIST_WORKER']}} {name} {{time.monotonic()}}\\n")
    time.sleep(0.3)

def test_{name}_b():
    time.sleep(0.2)
'''


def test_the_ray_files_run_on_one_worker_in_turn_and_first(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(_CONFTEST)
    mark = 'import pytest\npytestmark = [pytest.mark.xdist_group("ray")]\n'
    for name in ("ray1", "ray2", "ray3"):
        (suite / f"test_{name}.py").write_text(_BODY.format(mark=mark, name=name))
    for name in ("plain1", "plain2", "plain3", "plain4"):
        (suite / f"test_{name}.py").write_text(_BODY.format(mark="", name=name))
    log = tmp_path / "ran.log"
    env = {**os.environ, "RAN_LOG": str(log), "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                        "--dist", "loadgroup", "--rootdir", str(suite), str(suite)],
                       cwd=suite, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    runs = [line.split() for line in log.read_text().splitlines()]
    assert len(runs) == 7
    workers = {name: w for w, name, _ in runs}
    assert len({workers["ray1"], workers["ray2"], workers["ray3"]}) == 1, runs
    ray_worker = workers["ray1"]
    on_it = [name for w, name, _ in sorted(runs, key=lambda r: float(r[2])) if w == ray_worker]
    assert on_it[:3] == ["ray1", "ray2", "ray3"], on_it        # the group first, in file order
