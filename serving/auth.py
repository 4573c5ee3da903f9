"""Who is calling the gRPC server: bearer tokens, mTLS client certificates, or nobody (loopback).

Three modes, chosen by ``stratum serve`` flags (docs/serving.md has the operator's view):

* **unauthenticated** (the default, loopback only): every caller is ``identity.ANONYMOUS``; the
  tools keep a session's claimed author but mark its notes unauthenticated.
* **tokens** (``--token-file``): each call carries ``authorization: Bearer <token>``; the token
  names an identity and its roles. Missing or unknown tokens are UNAUTHENTICATED.
* **mTLS** (``--client-ca``, needs ``--tls-cert/--tls-key``): the TLS handshake requires a client
  certificate signed by that CA; its subject CN is the identity. A valid bearer token on such a
  connection takes precedence over the CN.

Binding a non-loopback address needs TLS and one of the two authentication modes, or an explicit
``insecure=True`` (``--insecure``): a memory that agents write to must not be open to a network by
accident.

Token file format (UTF-8, one entry a line, ``#`` starts a comment)::

    <secret>  <name>  [role,role,...]
    sha256:<hex of sha256(secret)>  <name>  [roles]    # the file need not hold the secret itself
    cert  <name>  [roles]                              # roles for an mTLS identity (CN = name)

Names are identities (``[A-Za-z0-9._@:-]``, at most 128 characters); the one role with a meaning
today is ``maintainer`` (may supersede or retract other identities' notes). Secrets are compared in
constant time (every entry is compared, through SHA-256 digests). A group- or world-readable file
is served but warned about. The file is re-read when it changes (checked at most every 2 s), so
tokens rotate without a restart; a file that no longer parses keeps the previous tokens, logged.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import os
import re
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stratum.errors import InvalidArgument, Unauthenticated
from stratum.identity import ANONYMOUS, MAX_NAME_CHARS, Identity
from stratum.limits import RESERVED_NAMES, name_key

log = logging.getLogger("stratum.serving.auth")

AUTH_HEADER = "authorization"
MIN_SECRET_CHARS = 16              # shorter secrets are refused: they can be guessed
RELOAD_CHECK_SECONDS = 2.0
_NAME = re.compile(r"^[A-Za-z0-9._@:-]{1,%d}$" % MAX_NAME_CHARS)
LOCAL_PREFIX = "os:"         # stratum.identity's names for this machine's users (an open server's)
_ROLE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


def _local(name: str) -> bool:
    """Whether ``name`` reads as one of this machine's users' (``os:``, ``OS:``: a probe found the
    check case-sensitive, so a token named ``OS:root`` signed notes that read as the OS user's)."""
    return name_key(name).startswith(LOCAL_PREFIX)


@dataclass(frozen=True)
class _Entry:
    digest: bytes                  # sha256 of the secret
    identity: Identity


def _parse(text: str, source: str) -> tuple[list[_Entry], dict[str, frozenset[str]]]:
    """Token entries and mTLS roles from a token file's text; InvalidArgument names the bad line."""
    entries: list[_Entry] = []
    cert_roles: dict[str, frozenset[str]] = {}
    names: set[str] = set()
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) not in (2, 3):
            raise InvalidArgument(f"{source}:{n}: expected '<token> <name> [roles]', got {len(parts)} fields")
        secret, name = parts[0], parts[1]
        roles = frozenset(r for r in (parts[2].split(",") if len(parts) == 3 else ()) if r)
        if not _NAME.match(name):
            raise InvalidArgument(f"{source}:{n}: identity name must match {_NAME.pattern}")
        if _local(name):
            raise InvalidArgument(f"{source}:{n}: names starting {LOCAL_PREFIX!r} (in any case) are this machine's "
                                  "users (a note by it would pass for a local user's)")
        if name_key(name) in RESERVED_NAMES:
            raise InvalidArgument(f"{source}:{n}: {name!r} is reserved (it signs mined history's notes)")
        bad = [r for r in roles if not _ROLE.match(r)]
        if bad:
            raise InvalidArgument(f"{source}:{n}: bad role name(s): {', '.join(sorted(bad))[:80]}")
        if secret == "cert":
            cert_roles[name] = roles
            continue
        if secret.startswith("sha256:"):
            try:
                digest = bytes.fromhex(secret[7:])
            except ValueError:
                digest = b""
            if len(digest) != 32:
                raise InvalidArgument(f"{source}:{n}: sha256: needs 64 hex digits")
        elif len(secret) < MIN_SECRET_CHARS:
            raise InvalidArgument(f"{source}:{n}: token for {name!r} is shorter than {MIN_SECRET_CHARS} characters")
        else:
            digest = hashlib.sha256(secret.encode()).digest()
        first = next((e for e in entries if e.digest == digest), None)
        if first is not None and first.identity.name != name:
            raise InvalidArgument(f"{source}:{n}: this token is already {first.identity.name!r}'s: one secret "
                                  f"names one identity")
        if first is not None and first.identity.roles != roles:
            # the first line's roles were the ones used, silently
            raise InvalidArgument(f"{source}:{n}: this token is listed for {name!r} already, with other roles: "
                                  "list it once")
        if name in names:
            log.info("%s:%d: a second token for %s (both are accepted)", source, n, name)
        names.add(name)
        entries.append(_Entry(digest, Identity(name=name, roles=roles, authenticated=True, method="token")))
    return entries, cert_roles


class TokenFile:
    """Bearer tokens read from a file, re-read when it changes."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._checked = 0.0
        self._stamp: tuple[int, int, int] | None = None
        self._entries: list[_Entry] = []
        self._cert_roles: dict[str, frozenset[str]] = {}
        self._load(first=True)

    def _load(self, first: bool = False) -> None:
        try:
            st = self.path.stat()
            text = self.path.read_text(encoding="utf-8-sig")     # an editor's byte-order mark broke line 1's token
        except (OSError, UnicodeDecodeError) as err:
            if first:
                raise InvalidArgument(f"cannot read the token file {self.path}: {err}") from None
            log.error("token file %s unreadable, keeping the previous tokens: %s", self.path, err)
            return
        try:
            entries, cert_roles = _parse(text, str(self.path))
        except InvalidArgument as err:
            if first:
                raise
            log.error("token file changed but does not parse, keeping the previous tokens: %s", err.message)
            return
        if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("token file %s is readable by group or others (mode %o); chmod 600 it",
                        self.path, stat.S_IMODE(st.st_mode))
        if not entries and not cert_roles:
            log.warning("token file %s lists no tokens: every call will be refused", self.path)
        self._entries, self._cert_roles = entries, cert_roles
        self._stamp = (st.st_mtime_ns, st.st_size, st.st_ino)

    def _maybe_reload(self) -> None:
        now = time.monotonic()
        if now - self._checked < RELOAD_CHECK_SECONDS:
            return
        with self._lock:
            if now - self._checked < RELOAD_CHECK_SECONDS:
                return
            self._checked = now
            try:
                st = self.path.stat()
            except OSError as err:
                log.error("token file %s vanished, keeping the previous tokens: %s", self.path, err)
                return
            if (st.st_mtime_ns, st.st_size, st.st_ino) != self._stamp:
                self._load()

    def lookup(self, secret: str) -> Identity | None:
        """The identity a secret names, comparing against every entry (no early exit)."""
        self._maybe_reload()
        digest = hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()
        found = None
        for entry in self._entries:
            if hmac.compare_digest(entry.digest, digest) and found is None:
                found = entry.identity
        return found

    def cert_roles(self, name: str) -> frozenset[str]:
        self._maybe_reload()
        return self._cert_roles.get(name, frozenset())

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(frozen=True)
class TLSConfig:
    """Server certificate chain and key (PEM), and the CA that signs client certificates (mTLS)."""
    cert_chain: bytes
    private_key: bytes
    client_ca: bytes | None = None

    @classmethod
    def from_files(cls, cert: str, key: str, client_ca: str | None = None) -> "TLSConfig":
        out = cls(read_pem("TLS certificate", cert), read_pem("TLS key", key),
                  read_pem("client CA", client_ca) if client_ca else None)
        _check_pair(cert, key)
        return out


def _check_pair(cert: str, key: str) -> None:
    """A key that is not the certificate's: said here, not as grpc's "Failed to bind" at start."""
    import ssl

    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, password=b"")
    except ssl.SSLError as err:
        raise InvalidArgument(f"the TLS key {key} does not fit the certificate {cert} ({err.reason or err})") from None


def read_pem(what: str, value: bytes | str | os.PathLike) -> bytes:
    """PEM bytes given as bytes or as a file path (the server's and the client's one reader):
    an unreadable or non-PEM file is an InvalidArgument naming ``what``."""
    if isinstance(value, bytes):
        data = value
    else:
        try:
            data = Path(value).read_bytes()
        except OSError as err:
            raise InvalidArgument(f"cannot read the {what} {value}: {err.strerror}") from None
    if b"-----BEGIN" not in data:
        raise InvalidArgument(f"the {what} {'given' if isinstance(value, bytes) else value} is not PEM")
    return data


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    h = host.strip("[]")
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False          # a name or a wildcard ("", "0.0.0.0", "::"): reachable from a network


class ServerSecurity:
    """The transport and authentication a server runs with, and who each call comes from."""

    def __init__(self, tls: TLSConfig | None = None, tokens: TokenFile | None = None, *, insecure: bool = False):
        self.tls, self.tokens, self.insecure = tls, tokens, insecure
        self._warned = False

    @property
    def mtls(self) -> bool:
        return self.tls is not None and self.tls.client_ca is not None

    @property
    def requires_auth(self) -> bool:
        return self.tokens is not None or self.mtls

    @property
    def mode(self) -> str:
        on = (("tls", self.tls is not None), ("mtls", self.mtls), ("tokens", self.tokens is not None))
        return "+".join(m for m, yes in on if yes) or "unauthenticated"

    def check_bind(self, host: str) -> None:
        """InvalidArgument when ``host`` is reachable from a network without TLS and authentication."""
        if is_loopback(host) or self.insecure:
            if not is_loopback(host) and not self._warned:
                self._warned = True
                log.warning("serving %s on %s: reachable from the network (--insecure)", self.mode, host or "*")
            return
        missing = [what for what, ok in (("TLS (--tls-cert/--tls-key)", self.tls is not None),
                                         ("authentication (--token-file or --client-ca)", self.requires_auth))
                   if not ok]
        if missing:
            raise InvalidArgument(f"binding {host or '*'} (not loopback) needs {' and '.join(missing)}; "
                                  f"pass --insecure to serve it anyway")

    def server_credentials(self) -> Any:
        import grpc

        if self.tls is None:
            return None
        return grpc.ssl_server_credentials([(self.tls.private_key, self.tls.cert_chain)],
                                           root_certificates=self.tls.client_ca,
                                           require_client_auth=self.mtls)

    def identify(self, context: Any) -> Identity:
        """The caller of one RPC; Unauthenticated when this server needs credentials and they are
        missing or wrong (the message never repeats the credential)."""
        if not self.requires_auth:
            return ANONYMOUS
        header = ""
        for key, value in context.invocation_metadata() or ():
            if key == AUTH_HEADER:
                header = value if isinstance(value, str) else ""
                break
        if header and self.tokens is not None:
            scheme, _, secret = header.partition(" ")
            if scheme.lower() != "bearer" or not secret.strip():
                raise Unauthenticated("the authorization header must be 'Bearer <token>'")
            ident = self.tokens.lookup(secret.strip())
            if ident is None:
                raise Unauthenticated("unknown bearer token")
            return ident
        if self.mtls:
            names = (context.auth_context() or {}).get("x509_common_name") or []
            if names:
                name = names[0].decode("utf-8", "replace")
                if not _NAME.match(name) or _local(name) or name_key(name) in RESERVED_NAMES:
                    raise Unauthenticated("the client certificate's CN is not a valid identity name")
                roles = self.tokens.cert_roles(name) if self.tokens is not None else frozenset()
                return Identity(name=name, roles=roles, authenticated=True, method="mtls")
        raise Unauthenticated("this server requires authentication: a bearer token "
                              "('authorization: Bearer <token>') or a client certificate")


UNAUTHENTICATED_LOOPBACK = ServerSecurity()

__all__ = ["read_pem", "TokenFile", "TLSConfig", "ServerSecurity", "is_loopback", "AUTH_HEADER", "MIN_SECRET_CHARS",
           "UNAUTHENTICATED_LOOPBACK"]
