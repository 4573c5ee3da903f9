"""The vendored rule from the command line: `stratum index --keep-dir` (a kept setting), the run
report and `get` naming the rule and the flag, `cochange` marking partners the index skipped (as
`walk --edge cochange` cannot list them), `--task-memory` refused when it is no size."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.gitrepo import Repo

pytestmark = pytest.mark.slow           # CLI processes


def stratum(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True, timeout=300)
    assert (p.returncode == 0) == ok, (p.returncode, p.stdout, p.stderr)
    return p


def test_keep_dir_from_the_cli_and_what_a_skipped_file_says(tmp_path):
    r = Repo(tmp_path / "repo")
    for n in range(2):                  # app.py and the vendored copy change together twice
        r.commit(f"c{n}", {"app.py": f"def main():\n    return {n}\n", "external/lib/util.py": f"def h():\n    return {n}\n"})
    store = str(tmp_path / "store")
    rep = json.loads(stratum("index", str(r.path), "--store", store, "--no-embed", "--json").stdout)
    assert any(m.startswith("1 file skipped as vendored in external/ (1): in a folder of other projects' code")
               and "--keep-dir FOLDER" in m for m in rep["messages"]), rep["messages"]
    got = stratum("get", "external/lib/util.py", "--store", store, ok=False)
    assert "skipped it (vendored: in a folder of other projects' code" in got.stderr and "--keep-dir" in got.stderr
    cc = stratum("cochange", "app.py", "--store", store)
    assert "1 co-changing files" in cc.stdout and "1 of them not indexed" in cc.stdout, cc.stdout
    assert "external/lib/util.py" in cc.stdout and "(not indexed)" in cc.stdout
    assert json.loads(stratum("cochange", "app.py", "--store", store, "--json").stdout)["partners"][0]["indexed"] is False

    stratum("index", str(r.path), "--store", store, "--keep-dir", "external/lib")
    r.commit("c2", {"app.py": "def main():\n    return 2\n"})
    rep = json.loads(stratum("index", str(r.path), "--store", store, "--json").stdout)    # a hook's plain run
    assert "vendored" not in rep["skipped"] and any("keep_dirs" in m for m in rep["messages"]), rep
    assert "util.py" in stratum("get", "external/lib/util.py", "--store", store).stdout
    cc = stratum("cochange", "app.py", "--store", store)
    assert "not indexed" not in cc.stdout, cc.stdout
    stratum("index", str(r.path), "--store", store, "--keep-dir", "")                    # cleared
    bad = stratum("index", str(r.path), "--store", store, "--keep-dir", "../x", ok=False)
    assert "name a folder inside the repository" in bad.stderr


def test_a_task_memory_that_is_no_size_is_refused_as_usage(tmp_path):
    p = stratum("index", str(tmp_path), "--task-memory", "lots", ok=False)
    assert p.returncode == 2 and "--task-memory must be a size such as 2G" in p.stderr, p.stderr
