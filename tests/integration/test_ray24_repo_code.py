"""A Ray index run started in a repository's top folder does not run the repository's own code.

``ray.init`` puts the working directory first on every worker's sys.path: a repository with a
top-level ``pipeline/`` package had it imported in the workers instead of Stratum's (a probe).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.gitrepo import Repo

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


def test_ray_workers_import_stratums_pipeline_not_the_repositorys(tmp_path):
    marker = tmp_path / "marker"
    r = Repo(tmp_path / "repo")
    files = {"pipeline/__init__.py": f"import pathlib\npathlib.Path({str(marker)!r}).write_text('repo code ran')\n"}
    files.update({f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(4)})
    r.commit("init", files)
    env = dict(os.environ, RAY_TMPDIR=os.environ.get("RAY_TMPDIR") or str(tmp_path / "ray"))
    got = subprocess.run([sys.executable, "-P", "-m", "stratum.cli", "index", "--ray", "--no-embed", "--store",
                          str(tmp_path / "store"), "."], cwd=r.path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]
    assert not marker.exists(), "the repository's pipeline/ ran in a Ray worker"
    assert (tmp_path / "store" / "manifest.json").exists()
