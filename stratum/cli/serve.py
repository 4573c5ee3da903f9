"""`stratum serve` (the gRPC server) and `stratum mcp` (MCP over stdio).

Both are composition roots: they open the stores as ``Tools`` (with the git freshness check from
pipeline.gitio, so Status can say when memory is stale) and hand them to the thin adapters in
serving/. Heavy imports happen inside the commands.

``add_client_flags``/``client_from_args`` are the one definition of how a command reaches a running
server (address, bearer token, TLS roots, client certificate); the query commands use them too.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from stratum.cli import server_place, session_place, whole
from stratum.limits import MAX_BUDGET
from stratum.notetext import terminal_safe

DEFAULT_PORT = 50051
SECRET_ENV = "STRATUM_PAGE_TOKEN_SECRET"   # shared by replicas so page tokens work across them
TOKEN_ENV = "STRATUM_TOKEN"                # a client's bearer token (kept out of `ps` and shell history)


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
    p.add_argument("--reload-interval", type=float, default=0.5,
                   help="seconds between checks for a newly published store version (0: never)")
    p.add_argument("--max-request-bytes", type=int, default=None, help="largest request accepted (default 1 MiB)")
    sec = p.add_argument_group("security", "authentication and TLS (docs/serving.md); without them only a "
                                           "loopback --host is accepted")
    sec.add_argument("--token-file", metavar="PATH", default=None,
                     help="require bearer tokens: lines of '<token> <name> [role,role]' (chmod 600)")
    sec.add_argument("--tls-cert", metavar="PEM", default=None, help="server certificate chain (enables TLS)")
    sec.add_argument("--tls-key", metavar="PEM", default=None, help="server private key")
    sec.add_argument("--client-ca", metavar="PEM", default=None,
                     help="require client certificates signed by this CA (mTLS; the CN is the identity)")
    sec.add_argument("--insecure", action="store_true",
                     help="allow a non-loopback --host without TLS and authentication")
    sec.add_argument("--health-port", type=int, default=None,
                     help="also serve the health service alone on this port, plaintext and without "
                          "credentials (for probes that cannot speak TLS, e.g. Kubernetes gRPC probes)")
    _session_defaults(p)
    p.set_defaults(func=_serve)

    p = sub.add_parser("mcp", help="serve the tools to an MCP client over stdio",
                       description="MCP over stdio for Claude Code, Cursor, Codex: on local stores, or "
                                   "as a front for a running `stratum serve` (--server). One session per "
                                   "connection. Claude Code: claude mcp add stratum -- stratum mcp --store PATH")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--store", metavar="PATH", action="append", default=None,
                     help="store root (repeatable; default: the current repository's, <repo>/.git/stratum)")
    src.add_argument("--server", metavar="HOST:PORT", default=None, help="front a running `stratum serve`")
    _credentials(p)
    p.add_argument("--author", default="", help="a name for the session's notes instead of the OS user's "
                   "(os:<login>; with --server, the credentials' identity); a claimed name is not a maintainer")
    p.add_argument("--maintainer", action="store_true",
                   help="local stores: the agent acts as the OS user WITH the maintainer role (its notes are "
                        "never quarantined, rank first, and may supersede or retract anyone's); without it the "
                        "agent writes as the OS user, proven, with no role")
    p.add_argument("--model", default="", help="the agent's model id, recorded on its notes")
    p.add_argument("--branch", default="", help="the session answers for this branch (base + overlay)")
    p.add_argument("--commit", default="", help="the session answers for this commit (not with --branch)")
    p.add_argument("--worktree", default="", help="the session answers for this worktree, uncommitted edits too")
    p.add_argument("--timeout", type=float, default=30.0, help="--server: seconds per call (default: %(default)s)")
    p.add_argument("--reload-interval", type=float, default=0.5,
                   help="local stores: seconds between checks for a newly published version (0: never)")
    _session_defaults(p)
    p.set_defaults(func=_mcp)


def add_client_flags(p: argparse.ArgumentParser) -> None:
    """--server and the credentials to reach it (query commands)."""
    p.add_argument("--server", metavar="HOST:PORT", default=None, help="query a running `stratum serve`")
    _credentials(p)


def _credentials(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("server connection", "with --server: credentials and TLS")
    g.add_argument("--token", default=None, help=f"bearer token (default: ${TOKEN_ENV}; prefer the variable)")
    g.add_argument("--tls-ca", metavar="PEM", default=None, help="verify the server's TLS certificate with this CA")
    g.add_argument("--tls-client-cert", metavar="PEM", default=None, help="client certificate (mTLS)")
    g.add_argument("--tls-client-key", metavar="PEM", default=None, help="client certificate's key (mTLS)")


def client_token(args) -> str | None:
    """The bearer token a client command sends: ``--token``, else ``$STRATUM_TOKEN``."""
    return getattr(args, "token", None) or os.environ.get(TOKEN_ENV)


def client_from_args(args, timeout: float | None = 30.0):
    """A serving.client.Client for ``args.server`` with the credentials on the command line or in
    $STRATUM_TOKEN; TLS when a CA or a client certificate is given."""
    from serving.client import Client

    return Client(args.server, timeout=timeout, token=client_token(args),
                  root_cert=getattr(args, "tls_ca", None), client_cert=getattr(args, "tls_client_cert", None),
                  client_key=getattr(args, "tls_client_key", None))


def _security(args):
    """The serving.auth.ServerSecurity the flags ask for (bind checks happen when serving starts)."""
    from serving.auth import ServerSecurity, TLSConfig, TokenFile
    from stratum.errors import InvalidArgument

    if bool(args.tls_cert) != bool(args.tls_key):
        raise InvalidArgument("--tls-cert and --tls-key go together")
    if args.client_ca and not args.tls_cert:
        raise InvalidArgument("--client-ca (mTLS) needs --tls-cert and --tls-key")
    tls = TLSConfig.from_files(args.tls_cert, args.tls_key, args.client_ca) if args.tls_cert else None
    tokens = TokenFile(args.token_file) if args.token_file else None
    return ServerSecurity(tls, tokens, insecure=args.insecure)


def _stores(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", metavar="PATH", action="append", default=None,
                   help="store root (repeatable: one shard each; default: the current repository's, "
                        "<repo>/.git/stratum)")


def _session_defaults(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=whole(1, "--budget", MAX_BUDGET), default=None,
                   help="context budget of a session in tokens")
    p.add_argument("--policy", choices=("score", "lru"), default=None, help="eviction policy (default: score)")


def local_place(given: list[str] | None, branch: str, commit: str, worktree: str):
    """What a local query or `stratum mcp` answers from and for (``stratum.cli.session_place``). Run
    inside a linked worktree with ``--store`` naming its own repository's store and no view named
    (the README's `stratum mcp --store /path/to/repo/.git/stratum`): this worktree, as without --store;
    it answered for the default branch with no word, an agent reading main's code as its branch's (a
    probe). With other stores beside that one (a worktree session reads one repository), the answer
    says it is the default branch's and how to ask for this worktree."""
    from stratum.cli import _worktree_here

    place = session_place(given, branch, commit, worktree)
    found = None if not given or branch or commit or worktree else _worktree_here()
    ours = [s for s in place.stores if found is not None and _repository_git(s) == found[0]]
    if found is None or not ours:
        return place
    if len(place.stores) == 1:
        return place._replace(worktree=found[1])
    return place._replace(said=(*place.said, (
        f"this folder is in a linked worktree ({found[1]}) of the repository of {ours[0]}: answered for that "
        f"store's default branch, not this worktree's code; --worktree . with --store {ours[0]} alone answers for it")))


def _repository_git(store: str):
    """The ``.git`` folder of the repository a store answers for (``freshness.repo_at``); None when unknown."""
    from pathlib import Path

    from stratum.errors import StratumError
    from stratum.freshness import repo_at
    from stratum.store import Store
    from stratum.storehome import git_dirs

    try:
        repo = repo_at(store, Store(store).manifest().repo_path)
    except StratumError:
        return None                 # no store there: opening it says so
    dirs = git_dirs(Path(repo)) if repo else None    # the common dir, as _worktree_here gives it (a bare
    return dirs.common.resolve() if dirs is not None else None    # or --separate-git-dir repository too)


def _open_tools(args, stores: list[str] | None = None):
    """Tools over ``stores`` (else those named on the command line, else this repository's: inside
    a linked worktree, the main checkout's), with git freshness for Status."""
    from pipeline.gitio import freshness
    from pipeline.overlay import builder
    from stratum.cli import local_store
    from stratum.tools import DEFAULT_BUDGET, Tools

    stores = stores or args.store or [local_store(None)]
    secret = os.environ.get(SECRET_ENV)
    return Tools.open(stores, secret=secret.encode() if secret else None, freshness=freshness,
                      overlay_builder=builder(), default_budget=args.budget or DEFAULT_BUDGET, policy=args.policy or "score")


class _TerminalSafeLog(logging.Formatter):
    """Log records as the CLI prints text (``terminal_safe``): what a record carries from outside (a
    file or repository name, a path, a caller's value inside an error's message or trace) is spelled
    out (``\\x1b``) instead of driving the operator's terminal, and a message stays one line (a newline
    in a value forged a log line); a trace keeps its own lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return terminal_safe(super().formatMessage(record))

    def formatException(self, ei) -> str:
        return terminal_safe(super().formatException(ei), lines=True)

    def formatStack(self, stack_info: str) -> str:
        return terminal_safe(super().formatStack(stack_info), lines=True)


def log_to_stderr(level: int) -> None:
    """The process's log on stderr, terminal-safe (``_TerminalSafeLog``): ``serve``'s, and ``mcp``'s,
    whose stdout is the protocol and whose warnings printed raw before."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_TerminalSafeLog("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])


def _serve(args) -> int:
    from serving.server import MAX_REQUEST_BYTES, run

    log_to_stderr(logging.INFO)
    security = _security(args)
    security.check_bind(args.host)            # refuse before loading the stores
    tools = _open_tools(args)

    def ready(host: str, port: int) -> None:
        shards = ", ".join(f"{sh.manifest.repo_name} v{sh.manifest.version}" for sh in tools.shards.shards)
        where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"     # as --server takes it (IPv6 too)
        # a repository's name is its folder's: outside data, as the log's
        print(terminal_safe(f"stratum: serving {shards} ({security.mode}) on {where}"), flush=True)

    run(tools, args.host, args.port, grace=args.grace, on_ready=ready, workers=args.workers,
        reload_interval=args.reload_interval or None,
        max_request_bytes=args.max_request_bytes or MAX_REQUEST_BYTES, security=security,
        health_port=args.health_port)     # never returns: it ends the process (exit 0)


def _mcp(args) -> int:
    from serving.mcp_server import run_stdio

    log_to_stderr(logging.WARNING)
    if args.server and args.maintainer:
        from stratum.errors import InvalidArgument

        raise InvalidArgument("--maintainer is for local stores: with --server the server's credentials "
                              "(the token's or certificate's roles) decide who is a maintainer")
    if args.server:
        # as the CLI's --server queries ask: a name git reads in a checkout (--branch HEAD) as this
        # worktree reads it, and with none named, in a linked worktree, its branch (its commit when
        # detached); a server without it serves its default branch, said in the log (``chosen``)
        place = server_place(args.branch, args.commit, args.worktree)
        chosen = not (args.branch or args.commit or args.worktree)

        def open_backend():
            return client_from_args(args, timeout=args.timeout)
    else:     # in a linked worktree: the main checkout's store, for this worktree (as the CLI's queries)
        place = local_place(args.store, args.branch, args.commit, args.worktree)
        chosen = False

        def open_backend():
            return _open_tools(args, place.stores)

    for line in place.said:             # MCP's answers are the client's: what --branch HEAD named goes to the log
        print(f"stratum: {terminal_safe(line)}", file=sys.stderr)
    run_stdio(open_backend, author=args.author, model=args.model, budget=args.budget,
              policy=args.policy or "", branch=place.branch, commit=place.commit, worktree=place.worktree,
              reload_interval=args.reload_interval or None, chosen=chosen, maintainer=args.maintainer)
    return 0


__all__ = ["register", "add_client_flags", "local_place", "log_to_stderr", "client_from_args", "client_token", "DEFAULT_PORT", "SECRET_ENV", "TOKEN_ENV"]
