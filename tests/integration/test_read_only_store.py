"""A store on a read-only mount (a shared volume, a CI cache): queries work, and `remember` says the
store is not writable, once and plainly, instead of "internal error (store_error)" over gRPC or a
retryable error that no retry mends (a probe). Real read-only bind mounts (`unshare -m`, root)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys

import grpc
import pytest

from serving.server import status_for
from stratum.errors import StoreReadOnly

pytestmark = pytest.mark.slow


def _in_read_only_mount(store, *argv: str) -> subprocess.CompletedProcess:
    """``stratum ARGV`` with ``store`` bind-mounted read-only over itself in a private mount namespace."""
    cli = shlex.join([sys.executable, "-m", "stratum.cli", *argv])
    script = f"mount --bind {store} {store} && mount -o remount,bind,ro {store} && exec {cli}"
    return subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)


def test_remember_on_a_read_only_store_says_so_and_queries_work(indexed_store, tmp_path):
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare")
    store = tmp_path / "store"
    shutil.copytree(indexed_store[1], store, ignore=shutil.ignore_patterns("deltalog"))
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("needs a private mount namespace (root)")
    p = _in_read_only_mount(store, "search", "discount", "--page-size", "1", "--json", "--store", str(store))
    assert p.returncode == 0 and "discount" in p.stdout, p.stderr     # it failed making cli.secret
    token = json.loads(p.stdout)["envelope"]["next_page_token"]
    p = _in_read_only_mount(store, "search", "discount", "--page-size", "1", "--page-token", token,
                            "--store", str(store))
    assert p.returncode == 0, p.stderr                                  # its next page, in another process
    p = _in_read_only_mount(store, "remember", "insight", "totals round twice", "--about", "shop/cart.py",
                            "--store", str(store))
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert "not writable" in p.stderr and "reading works" in p.stderr
    assert not (store / "deltalog").exists() or not list((store / "deltalog").glob("*.seg"))


def test_a_read_only_store_is_a_failed_precondition_over_grpc():
    code, message = status_for(StoreReadOnly("the store's delta log /s/deltalog is not writable"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "internal error" not in message
