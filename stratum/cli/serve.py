"""`stratum serve` (the gRPC server) and `stratum mcp` (MCP over stdio).

Both are composition roots: they open the stores as ``Tools`` (with the git freshness check from
pipeline.gitio, so Status can say when memory is stale) and hand them to the thin adapters in
serving/. Heavy imports happen inside the commands.
"""

from __future__ import annotations

import argparse
import os
import sys

DEFAULT_PORT = 50051
SECRET_ENV = "STRATUM_PAGE_TOKEN_SECRET"   # shared by replicas so page tokens work across them


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve stores over gRPC (one RPC per tool, health, reflection)",
                       description="Load one or more stores read-only at their published versions and "
                                   "serve the tools over gRPC until SIGTERM/SIGINT.")
    _stores(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (0: any free port; default: %(default)s)")
    p.add_argument("--workers", type=int, default=8, help="RPC worker threads (default: %(default)s)")
    p.add_argument("--grace", type=float, default=10.0,
                   help="seconds in-flight calls get to finish on shutdown (default: %(default)s)")
    p.add_argument("--reload-interval", type=float, default=2.0,
                   help="seconds between checks for a newly published store version (0: never)")
    p.add_argument("--max-request-bytes", type=int, default=None, help="largest request accepted (default 1 MiB)")
    _session_defaults(p)
    p.set_defaults(func=_serve)

    p = sub.add_parser("mcp", help="serve the tools to an MCP client over stdio",
                       description="MCP over stdio for Claude Code, Cursor, Codex: on local stores, or "
                                   "as a front for a running `stratum serve` (--server). One session per "
                                   "connection. Claude Code: claude mcp add stratum -- stratum mcp --store PATH")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--store", metavar="PATH", action="append", default=None,
                     help="store root (repeatable; default: <repository>/.stratum of the current directory)")
    src.add_argument("--server", metavar="HOST:PORT", default=None, help="front a running `stratum serve`")
    p.add_argument("--author", default="mcp", help="who the session's notes are attributed to")
    p.add_argument("--model", default="", help="the agent's model id, recorded on its notes")
    p.add_argument("--timeout", type=float, default=30.0, help="--server: seconds per call (default: %(default)s)")
    _session_defaults(p)
    p.set_defaults(func=_mcp)


def _stores(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", metavar="PATH", action="append", default=None,
                   help="store root (repeatable: one shard each; default: <repository>/.stratum of the "
                        "current directory)")


def _session_defaults(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=int, default=None, help="context budget of a session in tokens")
    p.add_argument("--policy", choices=("score", "lru"), default=None, help="eviction policy (default: score)")


def _open_tools(args):
    """Tools over the stores named on the command line, with git freshness for Status."""
    from pipeline.gitio import freshness
    from stratum.cli import resolve_store
    from stratum.tools import DEFAULT_BUDGET, Tools

    stores = args.store or [resolve_store(argparse.Namespace(store=None))]
    secret = os.environ.get(SECRET_ENV)
    return Tools.open(stores, secret=secret.encode() if secret else None, freshness=freshness,
                      default_budget=args.budget or DEFAULT_BUDGET, policy=args.policy or "score")


def _serve(args) -> int:
    import logging

    from serving.server import MAX_REQUEST_BYTES, run

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    tools = _open_tools(args)

    def ready(host: str, port: int) -> None:
        shards = ", ".join(f"{sh.manifest.repo_name} v{sh.manifest.version}" for sh in tools.shards.shards)
        print(f"stratum: serving {shards} on {host}:{port}", flush=True)

    run(tools, args.host, args.port, grace=args.grace, on_ready=ready, workers=args.workers,
        reload_interval=args.reload_interval or None,
        max_request_bytes=args.max_request_bytes or MAX_REQUEST_BYTES)
    return 0


def _mcp(args) -> int:
    from serving.mcp_server import run_stdio

    if args.server:
        from serving.client import Client

        def open_backend():
            return Client(args.server, timeout=args.timeout)
    else:
        def open_backend():
            return _open_tools(args)

    run_stdio(open_backend, author=args.author, model=args.model, budget=args.budget,
              policy=args.policy or "")
    return 0


__all__ = ["register", "DEFAULT_PORT", "SECRET_ENV"]
