"""What authentication and TLS cost a gRPC call: the same calls to `stratum serve` in four modes.

    python benchmarks/grpc_auth_overhead.py [--store PATH] [--calls 300] [--connects 30] [--out FILE]

Definitions (printed with the results):
- modes: `plaintext` (the unauthenticated loopback default), `tokens` (plaintext + bearer token
  checked against a 100-entry token file), `tls+tokens` (TLS 1.3 + token), `mtls` (TLS with a
  client certificate; the CN is the identity). One `stratum serve` process per mode, all on
  127.0.0.1, started from the same store; ECDSA P-256 certificates made for the run.
- call: `get` of one node at level "api" through ``serving.client.Client`` (identity check,
  request bounds, tool call, protobuf both ways): the end-to-end time the caller sees. `status`
  likewise. ``--calls`` sequential calls per mode after 20 warm-up calls, the modes interleaved
  call by call so load from other processes falls on all alike; p50 / p99 in milliseconds.
- connect: a new channel's first call (TCP connect, TLS handshake where there is one, the call),
  ``--connects`` times per mode; p50 in milliseconds.
- store: ``--store`` if given, else the tests' sample repository indexed once into
  benchmarks/.out/auth/ (auth cost per call does not depend on the store's size).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / ".out" / "auth"
MODES = ("plaintext", "tokens", "tls+tokens", "mtls")


def _store(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    store = OUT / "store"
    if not (store / "manifest.json").exists():
        from pipeline.job import index_repository
        from stratum.config import IndexConfig
        from tests.gitrepo import sample_python_repo

        repo = sample_python_repo(OUT / "repo" / "shop")
        index_repository(repo.path, store, IndexConfig(num_cpus=2))
    return store


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def _start(store: Path, flags: list[str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "stratum.cli", "serve", "--store", str(store), "--port", "0",
                             "--reload-interval", "0", *flags], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    line = proc.stdout.readline()
    if "serving" not in line:
        proc.kill()
        raise RuntimeError(f"stratum serve did not start: {line!r}")
    return proc, line.strip().rsplit(" ", 1)[-1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--connects", type=int, default=30)
    ap.add_argument("--out", help="also write the markdown table here")
    args = ap.parse_args()
    print(__doc__)

    from serving.client import Client
    from tests.tlscerts import Authority

    store = _store(args.store)
    OUT.mkdir(parents=True, exist_ok=True)
    ca = Authority(OUT / "pki")
    server, client = ca.server(), ca.client("bench")
    token = "bench-token-" + "7" * 24
    tokens = OUT / "tokens"
    tokens.write_text("".join(f"user{i:03d}-secret-{i:012d} user{i:03d}\n" for i in range(99)) + f"{token} bench\n")
    tokens.chmod(0o600)
    tls = ["--tls-cert", str(server.cert), "--tls-key", str(server.key)]
    flags = {"plaintext": [], "tokens": ["--token-file", str(tokens)],
             "tls+tokens": [*tls, "--token-file", str(tokens)], "mtls": [*tls, "--client-ca", str(ca.ca.cert)]}
    creds = {"plaintext": {}, "tokens": {"token": token}, "tls+tokens": {"token": token, "root_cert": ca.ca.cert_pem},
             "mtls": {"root_cert": ca.ca.cert_pem, "client_cert": client.cert_pem, "client_key": client.key_pem}}
    procs, clients, sessions = [], {}, {}
    try:
        for mode in MODES:
            proc, addr = _start(store, flags[mode])
            procs.append(proc)
            clients[mode] = (addr, Client(addr, timeout=30, **creds[mode]))
            sessions[mode] = clients[mode][1].open_session(budget=10 ** 9).data["session"]
        first = clients["plaintext"][1]
        target = next(it.id for it in first.tree(sessions["plaintext"], "", depth=10, page_size=200).items
                      if it.kind in ("function", "method", "class"))
        samples = {(m, op): [] for m in MODES for op in ("get", "status", "connect")}
        for i in range(20 + args.calls):
            for mode in MODES:
                c, sid = clients[mode][1], sessions[mode]
                for op, fn in (("get", lambda: c.get(sid, target, level="api")), ("status", lambda: c.status(sid))):
                    t = time.perf_counter()
                    fn()
                    if i >= 20:
                        samples[(mode, op)].append((time.perf_counter() - t) * 1000)
        for _ in range(args.connects):
            for mode in MODES:
                t = time.perf_counter()
                with Client(clients[mode][0], timeout=30, **creds[mode]) as fresh:
                    fresh.status(fresh.open_session().data["session"])
                samples[(mode, "connect")].append((time.perf_counter() - t) * 1000)
    finally:
        for _, c in clients.values():
            c.close()
        for p in procs:
            p.terminate()
            p.wait(timeout=30)

    load = os.getloadavg()[0]
    rows = ["| mode | get p50 | get p99 | status p50 | status p99 | new channel + open + status p50 |",
            "|---|---|---|---|---|---|"]
    for mode in MODES:
        g, s, c = samples[(mode, "get")], samples[(mode, "status")], samples[(mode, "connect")]
        rows.append(f"| {mode} | {_pct(g, 50):.2f} | {_pct(g, 99):.2f} | {_pct(s, 50):.2f} | {_pct(s, 99):.2f} "
                    f"| {_pct(c, 50):.1f} |")
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = (f"{when}; {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
              f"{load:.1f}; `python benchmarks/grpc_auth_overhead.py --calls {args.calls} --connects "
              f"{args.connects}`; milliseconds")
    table = header + "\n\n" + "\n".join(rows)
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["main"]
