"""`stratum serve`'s own output (its ready line and log) is terminal-safe like the CLI's other text:
a repository's name (its folder's, which a clone takes from the remote), a file path in a log line,
or a caller's value that an error carries into the log is spelled out (``\\x1b``), never an escape
sequence that retitles, clears or recolours the operator's terminal. It went out raw before."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from pipeline.job import index_repository
from serving._gen import stratum_pb2 as pb
from serving._gen import stratum_pb2_grpc as pb_grpc
from serving.client import Client
from stratum import errors as E
from stratum.config import EmbedConfig, IndexConfig
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow        # a server process of its own (~5 s)

ROOT = Path(__file__).resolve().parents[2]
ESC = "\x1b]0;owned\x07\x1b[2J\x1b[31m"     # retitle the window, clear the screen, turn red
SECRET = "s3cret-token-for-alice-0123456789"


def test_serve_spells_out_escapes_in_its_ready_line_and_log(tmp_path):
    repo = sample_python_repo(tmp_path / f"shop{ESC}")          # served as the repository "shop\x1b..."
    store = tmp_path / "store"
    index_repository(repo.path, store, IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False)))
    tokens = tmp_path / f"tokens{ESC}.txt"                      # logged: readable by others
    tokens.write_text(f"{SECRET} alice\n")
    tokens.chmod(0o644)
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "serve", "--store", str(store), "--port", "0",
                          "--grace", "5", "--token-file", str(tokens)], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        ready = p.stdout.readline() if p.stdout else ""
        assert "serving" in ready, p.stderr.read() if p.poll() is not None and p.stderr else ready
        address = ready.strip().rsplit(" ", 1)[-1]
        with Client(address, token=SECRET) as c:                # a caller's values with escapes in them
            sid = c.open_session(author="alice").data["session"]
            c.search(sid, f"discount {ESC}")
            with pytest.raises(E.StratumError):
                c.get(sid, f"shop/{ESC}.py")
        stub = pb_grpc.StratumStub(grpc.insecure_channel(address))   # refused, and logged as refused
        with pytest.raises(grpc.RpcError):
            stub.Status(pb.StatusRequest(session=f"s{ESC}"), metadata=(("authorization", "Bearer wrong-token"),),
                        timeout=30)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert "\x1b" not in ready + out and "\x07" not in ready + out, repr(ready)
    assert "\x1b" not in err and "\x07" not in err, repr(err)
    assert "shop\\x1b]0;owned\\x07\\x1b[2J\\x1b[31m v1" in ready, ready     # spelled out, still readable
    assert "is readable by group or others" in err and "tokens\\x1b]0;owned" in err, err
    assert "refused for" in err and "Traceback" not in err, err


def test_the_mcp_servers_log_is_terminal_safe_too():
    """`stratum mcp` set up no log of its own: its warnings went to stderr raw (its stdout is the
    protocol). It logs through the same terminal-safe formatter (WARNING and up)."""
    code = ("import logging; from stratum.cli.serve import log_to_stderr; log_to_stderr(logging.WARNING); "
            f"logging.getLogger('stratum.x').info('quiet'); logging.getLogger('stratum.x').warning({'a' + ESC + 'b'!r})")
    got = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert "\x1b" not in got.stderr and "\x07" not in got.stderr and "a\\x1b]0;owned" in got.stderr
    assert "quiet" not in got.stderr
