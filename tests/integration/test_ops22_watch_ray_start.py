"""A stop during `stratum watch`'s local Ray start, and a second Ctrl-C while Ray shuts down at
exit, as a user meets them: each a process of its own with a Ray folder of its own. Watch starts
Ray only for big work (``IndexConfig.ray_min_parse_bytes``, 24 MiB to parse, and two CPUs), so the
repository here holds 28 MB of Python."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pipeline.stages import cpu_count
from tests.gitrepo import Repo
from tests.integration.test_ray2_start import _env, _ray_pids, ray_tmp  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory) -> Path:
    """40 files of ~700 KB (each under the 1 MiB file limit): 28 MB to parse, above the Ray threshold."""
    r = Repo(tmp_path_factory.mktemp("big") / "big")
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(20000))
    r.commit("big", {f"m{k}.py": body for k in range(40)})
    return r.path


def _named(ray_tmp: str, name: bytes) -> list[int]:
    out = []
    for pid in _ray_pids(ray_tmp):
        try:
            if name in Path(f"/proc/{pid}/cmdline").read_bytes():
                out.append(pid)
        except OSError:
            pass                        # ended meanwhile
    return out


@pytest.mark.skipif(cpu_count() < 2, reason="one CPU: watch never starts a local Ray")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_during_watchs_ray_start_stops_it_there_like_at_any_other_time(big_repo, tmp_path, ray_tmp, sig):
    """Ctrl-C there was taken as a flag only: the start ran on to its end (4-12 s, the Ctrl-C seemed
    ignored, "Started a local Ray instance" came after it), then the run stopped. Now the start is
    cut, as SIGTERM's already was: "stopped", exit 0, nothing published, no Ray process left."""
    store = tmp_path / "s"
    p = subprocess.Popen([sys.executable, "-m", "stratum.cli", "watch", str(big_repo), "--store", str(store),
                          "--no-embed"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(ray_tmp),
                         cwd=ROOT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not _named(ray_tmp, b"gcs_server") and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _named(ray_tmp, b"gcs_server"), "no Ray start seen"
        time.sleep(0.5)                 # its first process up, the rest starting (4-6 s): mid-start
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert "Started a local Ray instance" not in err, "the start ran on after the stop: " + err
    assert p.returncode == 0, err
    assert out.splitlines()[-1] == ("stopped after 0 index run(s); the run under way (start) was stopped "
                                    "before its publish: the store is as it was"), out
    assert "Traceback" not in err, err
    assert not (store / "manifest.json").exists()
    deadline = time.monotonic() + 10
    while _ray_pids(ray_tmp) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _ray_pids(ray_tmp) == []


def test_a_ctrl_c_while_ray_shuts_down_at_exit_ends_the_process_and_ray_quietly(tmp_path, ray_tmp):
    """The run stopped, its process exiting runs ``ray.shutdown`` (~1-3 s); a second Ctrl-C there
    printed two tracebacks ("Exception ignored in atexit callback", then Ray's own exit hook ran the
    shutdown again). Now the reaper ends Ray and the process leaves at once, 130, without one."""
    program = textwrap.dedent("""
        import os, signal, ray
        from pipeline.reaper import start_reaper

        def shutdown():                     # the user's second Ctrl-C lands in it
            os.kill(os.getpid(), signal.SIGINT)
            ray.shutdown()

        ready = start_reaper(shutdown)
        ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
        ready()
        print("started", flush=True)
    """)
    # as from a terminal: a suite started in the background (`make test &`, nohup) has SIGINT ignored,
    # which the child inherits, and Python installs no KeyboardInterrupt handler then
    p = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=_env(ray_tmp),
                       cwd=ROOT, timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout == "started\n", p.stderr
    assert p.returncode == 130 and "Traceback" not in p.stderr, p.stderr
    deadline = time.monotonic() + 10
    while _ray_pids(ray_tmp) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _ray_pids(ray_tmp) == []
