"""A named Ray cluster that is not there is a clear, quick error (Ray's own join retried for ~14
minutes, then said only "ConnectionError"). Each case is a `stratum index` process of its own, as
a user runs it (in this test process an earlier test's Ray may already be up)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

from tests.gitrepo import Repo


def _index(tmp_path, address: str) -> subprocess.CompletedProcess:
    r = Repo(tmp_path / "r")
    r.commit("one", {"a.py": "def a():\n    return 1\n"})
    return subprocess.run([sys.executable, "-m", "stratum.cli", "index", str(r.path), "--no-embed", "--ray-address",
                           address, "--store", str(tmp_path / "s")], capture_output=True, text=True, timeout=120)


def test_nothing_listening_at_the_address_is_said_at_once(tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                                   # a port nothing listens on
    started = time.monotonic()
    p = _index(tmp_path, f"127.0.0.1:{port}")
    assert p.returncode == 1 and time.monotonic() - started < 30, p.stderr
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in p.stderr and "RAY_ADDRESS" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


def test_a_malformed_address_names_itself(tmp_path):
    p = _index(tmp_path, "nonsense")
    assert p.returncode == 1 and "cannot join the Ray cluster at 'nonsense'" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
