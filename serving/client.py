"""A typed Python client for a Stratum gRPC server, mirroring ``stratum.tools.Tools`` call for call.

Every method takes the same arguments as the tool (same names, same defaults), returns the same
``stratum.envelope.Response`` and raises the same ``stratum.errors`` type the tool raised on the
server, so code written against a local ``Tools`` runs unchanged against a server::

    with Client("127.0.0.1:7000") as c:
        s = c.open_session(author="me").data["session"]
        r = c.search(s, "where are page tokens signed")

Credentials: ``token`` is sent as ``authorization: Bearer <token>`` on every call (the server's
token file names its identity); ``root_cert`` (PEM bytes or a path) verifies a TLS server, and
``client_cert``/``client_key`` present a certificate for mTLS. ``tls=True`` alone uses the system's
root certificates. Without any of them the channel is plaintext (a loopback server); a token is
not sent in plaintext to a non-loopback address unless ``plaintext_token=True`` says so.

Errors: the server sends the exact Stratum error code in trailing metadata; without it (an error
raised by gRPC itself) the status code picks the type. A server that cannot be reached or does not
answer within the timeout raises ``Unavailable`` (retryable).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any

import grpc

from serving import convert
from serving._gen import stratum_pb2 as pb
from serving._gen import stratum_pb2_grpc as pb_grpc
from serving.auth import is_loopback, read_pem
from serving.server import ERROR_CODE_KEY, MAX_RESPONSE_BYTES, RETRYABLE_KEY, _tool_name
from stratum import errors as E
from stratum.envelope import Response
from stratum.limits import echo
from stratum.notetext import LONE_SURROGATE, check_utf8

def _tree(cls: type[E.StratumError]) -> list[type[E.StratumError]]:
    return [cls] + [c for sub in cls.__subclasses__() for c in _tree(sub)]


# every error of the tree by its code; a subclass comes after its parent and wins a shared code
# ("invalid_argument" -> InvalidArgument, "internal" -> SystemError_)
_BY_CODE: dict[str, type[E.StratumError]] = {cls.code: cls for cls in _tree(E.StratumError)}

_BY_STATUS: dict[grpc.StatusCode, type[E.StratumError]] = {
    grpc.StatusCode.NOT_FOUND: E.NotFound,
    grpc.StatusCode.INVALID_ARGUMENT: E.InvalidArgument,
    grpc.StatusCode.OUT_OF_RANGE: E.InvalidArgument,
    grpc.StatusCode.RESOURCE_EXHAUSTED: E.InvalidArgument,     # e.g. a request over the size limit
    grpc.StatusCode.UNAUTHENTICATED: E.Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: E.PermissionDenied,
    grpc.StatusCode.UNAVAILABLE: E.Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: E.Unavailable,
    grpc.StatusCode.CANCELLED: E.Unavailable,     # the server went away mid-call (a drain): try again
}


def error_from_rpc(err: grpc.RpcError, rpc: str = "") -> E.StratumError:
    """The Stratum error a failed call stands for, with the tool's message: the words the server put
    before a system error's for a plain gRPC caller (``internal error (store_damaged): ``,
    ``serving.server.status_for``) are the error's type here, so they are dropped (an MCP or
    ``--json`` caller read the code twice); the server log's ``(ref ...)`` after it is kept."""
    code, details = err.code(), err.details() or ""
    trailers = dict(err.trailing_metadata() or ())
    cls = _BY_CODE.get(trailers.get(ERROR_CODE_KEY, "")) or _BY_STATUS.get(code, E.SystemError_)
    details = details.removeprefix(f"internal error ({trailers.get(ERROR_CODE_KEY)}): ")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        details = f"{rpc or 'call'} did not finish within its deadline ({details})"
    elif code == grpc.StatusCode.RESOURCE_EXHAUSTED and ERROR_CODE_KEY not in trailers:
        details = _too_large(details, rpc)
    elif code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) and ERROR_CODE_KEY not in trailers:
        details = f"server unavailable: {details}"
    retryable = trailers.get(RETRYABLE_KEY)
    return cls(details, retryable=None if retryable is None else retryable == "true")


_TOO_LARGE = re.compile(r"(SERVER|CLIENT)?:?\s*Received message larger than max \((\d+) vs\. (\d+)\)")


def _too_large(details: str, rpc: str) -> str:
    """gRPC's own refusal of a message over a size limit, said as which limit and what to do: the
    server's (``SERVER: Received message larger than max (1048644 vs. 1048576)``) bounds one request
    (``stratum serve --max-request-bytes``); this client's bounds one answer (``max_response_bytes``).
    The client checks each argument first (``toolspec.check_arg``), so a request gets here only when
    the server was started with a lower limit than the arguments' own."""
    m = _TOO_LARGE.search(details)
    if m is None:
        return details
    side, size, limit = m.group(1), int(m.group(2)), int(m.group(3))
    if side == "CLIENT":
        return (f"the answer to {rpc or 'the call'} is {size} bytes, over this client's limit of {limit} bytes "
                f"(Client(max_response_bytes=...)); ask for less in one call (a smaller page_size or level) "
                f"or raise the limit")
    return (f"the request is {size} bytes, over the server's limit of {limit} bytes for one request "
            f"(stratum serve --max-request-bytes); it was dropped unread and nothing ran. Send less in one "
            f"call (a shorter text or query, fewer list items)")


def _hosts(address: str) -> list[str]:
    """The hosts a gRPC target reaches ("h:p", "[v6]:p", "dns:///h:p", "ipv4:a:p,b:p",
    "ipv6:[a]:p,[b]:p"); a unix socket ("unix:path", "unix:///path", "unix-abstract:name") is local.
    Every address of a list counts: a probe's "ipv6:[::1]:1,[2001:db8::7]:50051" sent its token in
    plaintext to the second, and a host named "unixbuild.example.com" passed as a socket."""
    if address.startswith(("unix:", "unix-abstract:")):
        return ["localhost"]
    rest, listed = address, False
    if "///" in rest:
        rest = rest.split("///", 1)[1]
    elif rest.startswith(("ipv4:", "ipv6:", "dns:")):
        listed = not rest.startswith("dns:")
        rest = rest.split(":", 1)[1]
    return [_host(a) for a in (rest.split(",") if listed else [rest])]


def _host(rest: str) -> str:
    """The host part of one "h:p" or "[v6]:p" (a bare IPv6 address: itself)."""
    if rest.startswith("["):
        return rest[1:].split("]", 1)[0]
    return rest.rsplit(":", 1)[0] if rest.count(":") == 1 else rest


def _pem(what: str, value: bytes | str | os.PathLike | None) -> bytes | None:
    return None if value is None else read_pem(what, value)


class Client:
    """Calls a Stratum server. ``timeout`` (seconds) is the deadline of each call."""

    def __init__(self, address: str, timeout: float | None = 30.0, *,
                 max_response_bytes: int = MAX_RESPONSE_BYTES, token: str | None = None,
                 root_cert: bytes | str | None = None, client_cert: bytes | str | None = None,
                 client_key: bytes | str | None = None, tls: bool = False, plaintext_token: bool = False):
        self.address = address
        self.timeout = timeout
        options = [("grpc.max_receive_message_length", max_response_bytes)]
        if (client_cert is None) != (client_key is None):
            raise E.InvalidArgument("a client certificate needs its key, and a key its certificate")
        if token is not None and (not token.strip() or any(c.isspace() for c in token.strip())):
            raise E.InvalidArgument("the token must be one word without spaces")
        if token is not None and LONE_SURROGATE.search(token):     # never echoed: it is a secret
            raise E.InvalidArgument("the token holds a byte that is not valid UTF-8; give it as UTF-8 text")
        check_utf8("server address", address, E.InvalidArgument)    # neither reaches the wire (a traceback)
        secure = tls or root_cert is not None or client_cert is not None
        if token and not secure and not plaintext_token and not all(map(is_loopback, _hosts(address))):
            raise E.InvalidArgument(f"refusing to send a bearer token in plaintext to {echo(address)}: use TLS "
                                    "(root_cert=... or tls=True; --tls-ca on the command line)")
        if secure:
            creds = grpc.ssl_channel_credentials(root_certificates=_pem("TLS root certificate", root_cert),
                                                 private_key=_pem("client key", client_key),
                                                 certificate_chain=_pem("client certificate", client_cert))
            self._channel = grpc.secure_channel(address, creds, options=options)
        else:
            self._channel = grpc.insecure_channel(address, options=options)
        self._metadata = (("authorization", f"Bearer {token.strip()}"),) if token else None
        self._stub = pb_grpc.StratumStub(self._channel)
        self._opened: set[str] = set()     # sessions this client opened and has not closed
        self._closed = False

    # ---- plumbing ----------------------------------------------------------------------------
    def _call(self, rpc: str, request_type: type, kwargs: dict[str, Any]) -> Response:
        # each argument as the tools check it (``toolspec.check_arg``), before a request is built: a byte
        # that is not UTF-8 cannot be sent (it was a UnicodeEncodeError traceback), and a value the
        # wire cannot hold or the door would refuse is refused in the tools' words, not protobuf's;
        # None is not sent (the server answers as for a request without it)
        request = convert.request_for(request_type, kwargs, sending=True)
        if self._closed:
            raise self._closed_error(rpc)
        try:
            reply = getattr(self._stub, rpc)(request, timeout=self.timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            raise error_from_rpc(err, rpc) from None
        except ValueError:      # gRPC's "Cannot invoke RPC on closed channel!": closed by another thread
            if not self._closed:
                raise
            raise self._closed_error(rpc) from None
        return convert.response_from_proto(reply)

    def _closed_error(self, rpc: str) -> E.NotFound:
        """What a call after ``close()`` raises: NotFound, as a closed local ``Tools`` raises for its
        sessions (``Tools.close`` forgets them), not gRPC's raw ``ValueError``; the docs promise the
        tools' error types."""
        method = _tool_name(rpc)        # OpenSession: open_session, as the server names its tools
        return E.NotFound(f"{method} on a closed client: Client.close() closed its channel to {echo(self.address)} "
                          "and the sessions it opened; make a new Client (and open a new session)")

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Block until the channel is connected; Unavailable if it is not within ``timeout``."""
        if self._closed:        # gRPC's poller thread died on the closed channel, and this said "no server answered"
            raise self._closed_error("WaitReady")
        try:
            grpc.channel_ready_future(self._channel).result(timeout=timeout)
        except grpc.FutureTimeoutError:
            raise E.Unavailable(f"no Stratum server answered at {self.address} within {timeout:g}s") from None

    def close(self) -> None:
        """Close the sessions this client opened (as ``Tools.close`` ends its sessions), then the channel."""
        try:
            for sid in sorted(self._opened):
                try:
                    self.close_session(sid)
                except (E.NotFound, E.Unavailable, E.Unauthenticated):   # gone already (or the server is)
                    self._opened.discard(sid)
        finally:
            self._closed = True
            self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- the tools (same signatures as stratum.tools.Tools) --------------------------------------
    def open_session(self, author: str = "", model: str = "", budget: int | None = None,
                     policy: str = "", branch: str = "", commit: str = "", worktree: str = "") -> Response:
        resp = self._call("OpenSession", pb.OpenSessionRequest,
                          dict(author=author, model=model, budget=budget, policy=policy, branch=branch,
                               commit=commit, worktree=worktree))
        self._opened.add(resp.data["session"])
        return resp

    def detach(self, session: str) -> None:
        """Leave a session open on the server when this client closes (the CLI keeps one so the
        next command can ask for the next page with --session)."""
        self._opened.discard(session)

    def close_session(self, session: str) -> Response:
        resp = self._call("CloseSession", pb.CloseSessionRequest, dict(session=session))
        self._opened.discard(session)
        return resp

    def tree(self, session: str, path: str = "", depth: int = 2, page_size: int = 50,
             page_token: str = "") -> Response:
        return self._call("Tree", pb.TreeRequest, dict(session=session, path=path, depth=depth,
                                                       page_size=page_size, page_token=page_token))

    def search(self, session: str, query: str, kinds: Sequence[str] = (), path_prefix: str = "",
               language: str = "", page_size: int = 10, page_token: str = "") -> Response:
        return self._call("Search", pb.SearchRequest, dict(
            session=session, query=query, kinds=kinds, path_prefix=path_prefix, language=language,
            page_size=page_size, page_token=page_token))

    def get(self, session: str, target: str, level: str = "api", lines: str = "") -> Response:
        return self._call("Get", pb.GetRequest, dict(session=session, target=target, level=level, lines=lines))

    def walk(self, session: str, target: str, edges: Sequence[str] = (), direction: str = "out",
             page_size: int = 20, page_token: str = "") -> Response:
        return self._call("Walk", pb.WalkRequest, dict(
            session=session, target=target, edges=edges, direction=direction, page_size=page_size,
            page_token=page_token))

    def remember(self, session: str, kind: str, text: str, about: Sequence[str],
                 tags: Sequence[str] = (), supersedes: Sequence[str] = ()) -> Response:
        return self._call("Remember", pb.RememberRequest, dict(
            session=session, kind=kind, text=text, about=about, tags=tags, supersedes=supersedes))

    def pin(self, session: str, target: str) -> Response:
        return self._call("Pin", pb.PinRequest, dict(session=session, target=target))

    def unpin(self, session: str, target: str) -> Response:
        return self._call("Unpin", pb.UnpinRequest, dict(session=session, target=target))

    def prefetch(self, session: str, focus: list[str], budget: int | None = None) -> Response:
        return self._call("Prefetch", pb.PrefetchRequest, dict(session=session, focus=focus, budget=budget))

    def status(self, session: str) -> Response:
        return self._call("Status", pb.StatusRequest, dict(session=session))

    def retract(self, session: str, note_id: str, reason: str = "") -> Response:
        return self._call("Retract", pb.RetractRequest, dict(session=session, note_id=note_id, reason=reason))

    def confirm(self, session: str, note_id: str) -> Response:
        return self._call("Confirm", pb.ConfirmRequest, dict(session=session, note_id=note_id))


__all__ = ["Client", "error_from_rpc"]
