"""The gRPC server: a thin adapter from ``stratum.v1.Stratum`` RPCs to one ``Tools`` instance.

Each RPC decodes its request (bytes that are not the request message are INVALID_ARGUMENT, never
gRPC's own INTERNAL "Exception deserializing request!"), authenticates the caller
(serving.auth.ServerSecurity), bounds the request's fields (convert.check_request), and calls the
tool inside ``identity.acting_as(caller)``, so the tools know who owns a session and who writes a
note. The tool's ``Response`` is converted by serving.convert. Errors are translated in one
function, ``status_for``:

    NotFound                                   -> NOT_FOUND
    Unauthenticated (missing or bad credential)-> UNAUTHENTICATED
    PermissionDenied (another identity's note) -> PERMISSION_DENIED
    Abandoned (the caller stopped waiting)     -> CANCELLED (nobody reads it; nothing was charged)
    BudgetExceeded (the session's quota),
    ResourceExhausted (session caps)           -> RESOURCE_EXHAUSTED
    InvalidArgument, InvalidPageToken,
    NoteRejected, other UserError              -> INVALID_ARGUMENT
    (a request over the size limit             -> RESOURCE_EXHAUSTED, from gRPC itself)
    SystemError_ (retryable)                   -> UNAVAILABLE
    SystemError_, any other exception          -> INTERNAL; the trace is logged here, never sent

Messages are capped at ``MAX_MESSAGE_CHARS`` whatever a tool put in them, so an error can never
overflow gRPC's header limit (a 500 KB session id used to come back as "Stream removed").

Page-token errors are INVALID_ARGUMENT whether the token was tampered with, foreign or stale: in each
case only a different request (without the token) can succeed, and the message says which it was.
The exact Stratum error code and retry flag travel in the trailing metadata (``stratum-error-code``,
``stratum-retryable``) so serving.client can raise the same error type the tool raised.

Besides the tool RPCs the server runs the standard health service (``grpc.health.v1``, SERVING until
shutdown starts; also alone on a plaintext ``health_port`` for probes) and server reflection, both
open without credentials; honours deadlines (an expired call is not started; an answer to a caller
that has gone is dropped), bounds message sizes, reloads newly published store versions in the
background, and on SIGTERM/SIGINT stops taking calls and lets in-flight ones finish within a grace
period; then the process ends within ``lifecycle.EXIT_BOUND`` seconds (``run``).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import uuid
from concurrent import futures
from typing import Any, Callable, NoReturn

import grpc
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from serving import convert, lifecycle
from serving._gen import stratum_pb2 as pb
from serving.auth import UNAUTHENTICATED_LOOPBACK, ServerSecurity
from stratum.delivery import awaited_by
from stratum.errors import (Abandoned, BudgetExceeded, InvalidArgument, NotFound, PermissionDenied, ResourceExhausted,
                            StoreReadOnly, StratumError, SystemError_, Unauthenticated, UserError)
from stratum.identity import acting_as
from stratum.tools import APPENDING
from stratum.limits import echo

log = logging.getLogger("stratum.serving")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Stratum"].full_name     # "stratum.v1.Stratum"
MAX_REQUEST_BYTES = 1 << 20        # a request is a query, ids and at most one note: 1 MiB is ample
MAX_RESPONSE_BYTES = 64 << 20      # a page of full-level source can be large
ERROR_CODE_KEY = "stratum-error-code"
RETRYABLE_KEY = "stratum-retryable"
MAX_MESSAGE_CHARS = 1000           # an error message, whatever the tool put in it


def status_for(err: BaseException) -> tuple[grpc.StatusCode, str]:
    """The gRPC status code and client-facing message for an error raised by a tool."""
    if isinstance(err, NotFound):
        return grpc.StatusCode.NOT_FOUND, err.message
    if isinstance(err, Unauthenticated):
        return grpc.StatusCode.UNAUTHENTICATED, err.message
    if isinstance(err, PermissionDenied):
        return grpc.StatusCode.PERMISSION_DENIED, err.message
    if isinstance(err, Abandoned):
        return grpc.StatusCode.CANCELLED, err.message
    if isinstance(err, (BudgetExceeded, ResourceExhausted)):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, err.message
    if isinstance(err, UserError):
        return grpc.StatusCode.INVALID_ARGUMENT, err.message
    if isinstance(err, StoreReadOnly):          # how the store is mounted, not a fault of the server
        return grpc.StatusCode.FAILED_PRECONDITION, err.message
    if isinstance(err, SystemError_):
        code = grpc.StatusCode.UNAVAILABLE if err.retryable else grpc.StatusCode.INTERNAL
        return code, f"internal error ({err.code}): {err.message}"
    return grpc.StatusCode.INTERNAL, "internal error; the server log has the details"


def _abort(context: grpc.ServicerContext, rpc: str, err: BaseException) -> None:
    code, message = status_for(err)
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + "..."
    if code in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE):
        ref = uuid.uuid4().hex[:8]
        log.error("%s failed (ref %s)", rpc, ref, exc_info=err)
        message = f"{message} (ref {ref})"
    elif code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
        log.info("%s refused for %s: %s", rpc, echo(context.peer()), message)    # who knocked, for operators
    stratum_code = err.code if isinstance(err, StratumError) else "internal"
    retryable = err.retryable if isinstance(err, StratumError) else False
    context.set_trailing_metadata(((ERROR_CODE_KEY, stratum_code),
                                   (RETRYABLE_KEY, "true" if retryable else "false")))
    context.abort(code, message)


class _Undecodable:
    """What the request deserializer hands on when the bytes are not the request message."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


def _decoder(request_type: type[Message]) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        try:
            return request_type.FromString(data)
        except (DecodeError, RecursionError, ValueError) as err:     # foreign bytes: the caller's bad input
            return _Undecodable(echo(err) or type(err).__name__)
    return decode


def _waiting(context: grpc.ServicerContext) -> bool:
    """Whether the caller still waits: not cancelled, and its deadline not passed (read from the
    deadline itself: the core marks the call inactive a moment later, and an answer admitted in
    that moment was charged though the caller had its DEADLINE_EXCEEDED already)."""
    left = context.time_remaining()
    return context.is_active() and (left is None or left > 0)


def _tool_name(rpc: str) -> str:
    """``OpenSession`` -> ``open_session``: one RPC per tool, named alike (a unit test checks)."""
    return "".join("_" + ch.lower() if ch.isupper() else ch for ch in rpc).lstrip("_")


_NOT_COUNTED = contextlib.nullcontext()
_TOOL_NAMES = {method.name: _tool_name(method.name) for method in pb.DESCRIPTOR.services_by_name["Stratum"].methods}
# the RPCs whose tool appends to the store's delta log (``tool(appends=True)``): at exit, one running is
# waited for (a whole record)
APPENDING_RPCS = frozenset(rpc for rpc, name in _TOOL_NAMES.items() if name in APPENDING)


class StratumServicer:
    """Every RPC is the same steps: who calls, decoded?, bounded fields, tool call as the caller, response."""

    def __init__(self, tools: Any, security: ServerSecurity = UNAUTHENTICATED_LOOPBACK):
        self._tools = tools
        self._security = security
        self.running = lifecycle.InFlight()      # every tool call now running (said at exit: how many abandoned)
        self.appending = lifecycle.InFlight()    # those of APPENDING_RPCS (``run`` waits for them at exit)

    def call(self, rpc: str, request: Any, context: grpc.ServicerContext,
             response_type: type[Message]) -> Message:
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"{rpc}: deadline expired before the call started")
        try:
            caller = self._security.identify(context)
            if isinstance(request, _Undecodable):
                raise InvalidArgument(f"{rpc}: the request is not a valid {rpc}Request message ({request.reason})")
            convert.check_request(request)
            # a read whose caller is gone by the time its answer is admitted changes no session (stratum.delivery)
            with acting_as(caller), awaited_by(lambda: _waiting(context)), self.running, \
                    (self.appending if rpc in APPENDING_RPCS else _NOT_COUNTED):
                tool = getattr(self._tools, _TOOL_NAMES.get(rpc) or _tool_name(rpc))
                resp = tool(**convert.request_to_kwargs(request))
            if not context.is_active():     # deadline passed or caller cancelled: nobody reads the answer
                return response_type()
            return convert.response_to_proto(resp, response_type)
        except Exception as err:   # the adapter boundary: every failure becomes a status (see status_for)
            _abort(context, rpc, err)

    def handler(self) -> grpc.GenericRpcHandler:
        """The Stratum service with our own request decoding (see _decoder)."""
        handlers = {}
        for method in pb.DESCRIPTOR.services_by_name["Stratum"].methods:
            req, resp = getattr(pb, method.input_type.name), getattr(pb, method.output_type.name)

            def behaviour(request, context, _rpc=method.name, _resp=resp):
                return self.call(_rpc, request, context, _resp)

            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                behaviour, request_deserializer=_decoder(req), response_serializer=resp.SerializeToString)
        return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)


def _start(tools: Any, host: str, port: int, *, workers: int, reload_interval: float | None,
           max_request_bytes: int, max_response_bytes: int, max_concurrent_rpcs: int | None,
           security: ServerSecurity | None) -> tuple[grpc.Server, int, health.HealthServicer, StratumServicer]:
    security = security or UNAUTHENTICATED_LOOPBACK
    security.check_bind(host)
    options = [("grpc.max_receive_message_length", max_request_bytes),
               ("grpc.max_send_message_length", max_response_bytes),
               ("grpc.so_reuseport", 0)]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="stratum-rpc"),
                         options=options, maximum_concurrent_rpcs=max_concurrent_rpcs)
    servicer = StratumServicer(tools, security)
    server.add_generic_rpc_handlers((servicer.handler(),))
    health_servicer = health.HealthServicer(experimental_non_blocking=True)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    creds = security.server_credentials()
    bound = _bind(lambda: server.add_secure_port(address, creds) if creds is not None
                  else server.add_insecure_port(address), address, "--port")
    server.start()
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if reload_interval:
        threading.Thread(target=lifecycle.reload_loop, args=(tools, server.wait_for_termination, reload_interval),
                         name="stratum-reload", daemon=True).start()
    return server, bound, health_servicer, servicer


def _bind(add: Callable[[], int], address: str, flag: str) -> int:
    """The port ``add()`` bound; a port in use (grpc raises RuntimeError, or returns 0) is the
    caller's to fix: a clear InvalidArgument, not a traceback."""
    try:
        bound = add()
    except RuntimeError:
        bound = 0
    if bound == 0:
        raise InvalidArgument(f"cannot listen on {address}: the port is in use or not available "
                              f"(choose another {flag}, or 0 for any free port)")
    return bound


def serve(tools: Any, host: str = "127.0.0.1", port: int = 0, *, workers: int = 8,
          reload_interval: float | None = 0.5, max_request_bytes: int = MAX_REQUEST_BYTES,
          max_response_bytes: int = MAX_RESPONSE_BYTES,
          max_concurrent_rpcs: int | None = None,
          security: ServerSecurity | None = None) -> tuple[grpc.Server, int]:
    """Start serving ``tools`` (a stratum.tools.Tools); the running server and its bound port.

    Port 0 binds a free port. ``security`` (serving.auth): TLS and authentication; the default is
    unauthenticated, which only a loopback ``host`` accepts. ``reload_interval`` seconds between
    ``tools.reload()`` calls (None: never). The caller stops the server (``server.stop(grace)``) and
    then closes the tools.
    """
    server, bound, _, _ = _start(tools, host, port, workers=workers, reload_interval=reload_interval,
                                 max_request_bytes=max_request_bytes, max_response_bytes=max_response_bytes,
                                 max_concurrent_rpcs=max_concurrent_rpcs, security=security)
    return server, bound


def _health_only(health_servicer: health.HealthServicer, host: str, port: int) -> grpc.Server:
    """A plaintext server with nothing but the health service: probes that cannot speak TLS or send
    credentials (Kubernetes' gRPC probes) can still ask whether a TLS server is SERVING."""
    hs = grpc.server(futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="stratum-health"),
                     options=[("grpc.so_reuseport", 0)])
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, hs)
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    bound = _bind(lambda: hs.add_insecure_port(address), address, "--health-port")
    hs.start()
    # the port bound, said: with --health-port 0 it was never known (a probe)
    log.info("health checks (plaintext) on %s", f"[{host}]:{bound}" if ":" in host else f"{host}:{bound}")
    return hs


def run(tools: Any, host: str = "127.0.0.1", port: int = 0, *, grace: float = 10.0,
        on_ready: Callable[[str, int], None] | None = None, health_port: int | None = None,
        **options: Any) -> NoReturn:
    """Serve until SIGTERM/SIGINT, then drain: health goes NOT_SERVING, new calls are refused, in-flight
    calls get ``grace`` seconds to finish, and the tools are closed. ``health_port``: also answer
    health checks there, in plaintext and without credentials (for probes).

    This is the serving process's main loop: it ends the process (exit 0) within ``grace`` plus
    ``lifecycle.EXIT_BOUND`` seconds of the signal. A call still running when the grace is over has
    had its answer cancelled; one appending to the delta log is waited for (up to the bound), a
    reading one is not (``lifecycle.end_process``: the interpreter's exit waited for each)."""
    server, bound, health_servicer, servicer = _start(tools, host, port, **{
        "workers": 8, "reload_interval": 0.5, "max_request_bytes": MAX_REQUEST_BYTES,
        "max_response_bytes": MAX_RESPONSE_BYTES, "max_concurrent_rpcs": None, "security": None, **options})
    health_server = _health_only(health_servicer, host, health_port) if health_port is not None else None
    lifecycle.settle_process()      # a long-lived process: compiled kernels, the heap out of the collector
    stopping = threading.Event()

    def _drain(signum: int) -> None:
        log.info("received %s; draining for up to %.1fs", signal.Signals(signum).name, grace)
        health_servicer.enter_graceful_shutdown()
        server.stop(grace)

    def _shutdown(signum, _frame):
        # the handler runs in the main thread between two bytecodes, maybe inside
        # wait_for_termination's Event.wait holding that Event's lock, which server.stop sets:
        # the drain runs on a thread of its own (a watch hung on SIGTERM in that way)
        if stopping.is_set():
            return
        stopping.set()
        threading.Thread(target=_drain, args=(signum,), name="stratum-drain", daemon=True).start()

    previous = {sig: signal.signal(sig, _shutdown) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if on_ready is not None:
            on_ready(host, bound)
        server.wait_for_termination()
    finally:
        server.stop(None)
        if health_server is not None:
            health_server.stop(None)
        # a note being appended when the grace ended gets its record written whole (not acknowledged:
        # its caller was cancelled); one stuck longer is left, as a kill would leave it
        if not servicer.appending.wait_idle(lifecycle.EXIT_BOUND):
            log.warning("%d note writes still running %.1fs past the grace; exiting without them (their "
                        "callers were told the server went away)", servicer.appending.n, lifecycle.EXIT_BOUND)
        tools.close()
        # restored last: a second Ctrl-C during that wait went to Python's handler, whose exit waited
        # on the stuck call threads again (a review)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if servicer.running.n:
        log.info("exiting; %d calls still running past the grace are abandoned (their callers were told the "
                 "server went away)", servicer.running.n)
    lifecycle.end_process(0)


__all__ = ["serve", "run", "status_for", "StratumServicer", "SERVICE_NAME", "MAX_REQUEST_BYTES",
           "MAX_RESPONSE_BYTES", "MAX_MESSAGE_CHARS", "ERROR_CODE_KEY", "RETRYABLE_KEY"]
