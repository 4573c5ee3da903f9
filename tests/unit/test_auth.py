"""serving.auth's pure parts: the token file format, constant-time lookup, rotation, bind rules."""

from __future__ import annotations

import hashlib
import logging
import os
import time

import pytest

from serving import auth
from serving.auth import ServerSecurity, TLSConfig, TokenFile, is_loopback
from stratum import errors as E
from stratum.identity import ANONYMOUS, MAINTAINER

ALICE = "alice-secret-0123456789"
BOB = "bob-secret-0123456789abc"


def _file(tmp_path, text: str, mode: int = 0o600):
    p = tmp_path / "tokens"
    p.write_text(text)
    os.chmod(p, mode)
    return p


def test_token_file_names_identities_and_roles(tmp_path):
    digest = hashlib.sha256(BOB.encode()).hexdigest()
    tf = TokenFile(_file(tmp_path, f"# who may call\n{ALICE} alice maintainer,reader  # admin\n"
                                   f"sha256:{digest} bob\ncert carol maintainer\n\n"))
    alice = tf.lookup(ALICE)
    assert (alice.name, alice.roles, alice.authenticated, alice.method) == ("alice", {MAINTAINER, "reader"}, True, "token")
    assert alice.is_maintainer
    assert tf.lookup(BOB).name == "bob" and not tf.lookup(BOB).roles     # the file held only the hash
    assert tf.lookup("sha256:" + digest) is None                           # the hash is not the token
    assert tf.lookup(ALICE[:-1]) is None and tf.lookup("") is None
    assert tf.cert_roles("carol") == {MAINTAINER} and tf.cert_roles("alice") == frozenset()
    assert len(tf) == 2


@pytest.mark.parametrize("text, says", [
    ("short alice\n", "shorter than"),
    (f"{ALICE}\n", "expected"),
    (f"{ALICE} al ice extra\n", "expected"),
    (f"{ALICE} 'alice'\n", "identity name"),
    (f"{ALICE} {'a' * 129}\n", "identity name"),
    (f"{ALICE} alice Maintainer!\n", "role"),
    ("sha256:abc alice\n", "64 hex"),
])
def test_a_bad_token_file_is_refused_with_its_line(tmp_path, text, says):
    with pytest.raises(E.InvalidArgument, match=says) as info:
        TokenFile(_file(tmp_path, "# header\n" + text))
    assert ":2:" in info.value.message and ALICE not in info.value.message


def test_missing_token_file_is_a_clear_error(tmp_path):
    with pytest.raises(E.InvalidArgument, match="cannot read the token file"):
        TokenFile(tmp_path / "absent")


def test_readable_by_others_is_warned_about(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="stratum.serving.auth"):
        TokenFile(_file(tmp_path, f"{ALICE} alice\n", mode=0o644))
    assert any("chmod 600" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="stratum.serving.auth"):
        TokenFile(_file(tmp_path, f"{ALICE} alice\n", mode=0o600))
    assert not caplog.records


def test_tokens_rotate_without_a_restart_and_a_broken_edit_keeps_the_old_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(auth, "RELOAD_CHECK_SECONDS", 0.0)
    path = _file(tmp_path, f"{ALICE} alice\n")
    tf = TokenFile(path)
    assert tf.lookup(ALICE).name == "alice"
    time.sleep(0.01)
    path.write_text(f"{BOB} bob\n")
    assert tf.lookup(ALICE) is None and tf.lookup(BOB).name == "bob"
    path.write_text("broken line with too many fields here\n")
    assert tf.lookup(BOB).name == "bob"


def test_every_entry_is_compared(tmp_path, monkeypatch):
    """No early exit: the time a lookup takes does not say which entry (or whether one) matched."""
    tf = TokenFile(_file(tmp_path, "".join(f"{ALICE}{i:04d} user{i}\n" for i in range(50))))
    calls = []
    real = auth.hmac.compare_digest
    monkeypatch.setattr(auth.hmac, "compare_digest", lambda a, b: calls.append(1) or real(a, b))
    assert tf.lookup(f"{ALICE}0000").name == "user0"
    assert len(calls) == 50


@pytest.mark.parametrize("host, loop", [("127.0.0.1", True), ("127.8.9.1", True), ("::1", True), ("[::1]", True),
                                        ("localhost", True), ("0.0.0.0", False), ("", False), ("::", False),
                                        ("10.0.0.5", False), ("example.org", False)])
def test_loopback(host, loop):
    assert is_loopback(host) is loop


def test_non_loopback_binds_need_tls_and_authentication_or_insecure(tmp_path):
    tls = TLSConfig(b"-----BEGIN CERTIFICATE-----", b"-----BEGIN PRIVATE KEY-----")
    tokens = TokenFile(_file(tmp_path, f"{ALICE} alice\n"))
    ServerSecurity().check_bind("127.0.0.1")
    for sec, missing in [(ServerSecurity(), ("TLS", "authentication")), (ServerSecurity(tls), ("authentication",)),
                         (ServerSecurity(None, tokens), ("TLS",))]:
        with pytest.raises(E.InvalidArgument, match="--insecure") as info:
            sec.check_bind("0.0.0.0")
        assert all(m in info.value.message for m in missing)
    ServerSecurity(tls, tokens).check_bind("0.0.0.0")
    ServerSecurity(insecure=True).check_bind("0.0.0.0")
    mtls = ServerSecurity(TLSConfig(b"-----BEGIN", b"-----BEGIN", client_ca=b"-----BEGIN"))
    assert mtls.requires_auth and mtls.mode == "tls+mtls"
    mtls.check_bind("10.1.2.3")


class _Ctx:
    """The two things ServerSecurity.identify reads from a grpc.ServicerContext."""

    def __init__(self, metadata=(), cn: bytes | None = None):
        self._md, self._cn = metadata, cn

    def invocation_metadata(self):
        return self._md

    def auth_context(self):
        return {"x509_common_name": [self._cn]} if self._cn else {}


def test_identify(tmp_path):
    assert ServerSecurity().identify(_Ctx()) is ANONYMOUS
    sec = ServerSecurity(None, TokenFile(_file(tmp_path, f"{ALICE} alice maintainer\ncert carol maintainer\n")))
    assert sec.identify(_Ctx((("authorization", f"Bearer {ALICE}"),))).name == "alice"
    for md, says in [((), "requires authentication"), ((("authorization", f"Basic {ALICE}"),), "Bearer"),
                     ((("authorization", "Bearer nope-nope-nope-nope"),), "unknown bearer token")]:
        with pytest.raises(E.Unauthenticated, match=says) as info:
            sec.identify(_Ctx(md))
        assert "nope" not in info.value.message
    mtls = ServerSecurity(TLSConfig(b"-----BEGIN", b"-----BEGIN", client_ca=b"-----BEGIN"), sec.tokens)
    carol = mtls.identify(_Ctx(cn=b"carol"))
    assert (carol.name, carol.method, carol.is_maintainer) == ("carol", "mtls", True)
    assert mtls.identify(_Ctx((("authorization", f"Bearer {ALICE}"),), cn=b"carol")).name == "alice"
    with pytest.raises(E.Unauthenticated, match="CN"):
        mtls.identify(_Ctx(cn=b"carol smith; drop"))


def test_the_client_never_sends_a_token_in_plaintext_off_this_machine():
    from serving.client import Client

    with pytest.raises(E.InvalidArgument, match="plaintext") as info:
        Client("10.0.0.7:50051", token=ALICE)
    assert ALICE not in info.value.message
    for address, kw in [("127.0.0.1:50051", {}), ("[::1]:50051", {}), ("localhost:1", {}),
                        ("10.0.0.7:50051", {"tls": True}), ("10.0.0.7:50051", {"plaintext_token": True})]:
        Client(address, token=ALICE, **kw).close()          # channels are lazy: nothing is dialled
    # a host whose name starts with "unix" is no socket; every address of a list counts
    for address in ("unixbuild.example.com:50051", "ipv6:[::1]:1,[2001:db8::7]:50051",
                    "ipv4:127.0.0.1:1,10.0.0.7:50051", "dns:///unix.example.com:1"):
        with pytest.raises(E.InvalidArgument, match="plaintext"):
            Client(address, token=ALICE)
    for address in ("unix:/tmp/stratum.sock", "unix:///tmp/stratum.sock", "ipv4:127.0.0.1:1,127.0.0.2:2",
                    "ipv6:[::1]:1", "dns:///localhost:1"):
        Client(address, token=ALICE).close()
    with pytest.raises(E.InvalidArgument, match="one word"):
        Client("127.0.0.1:1", token="two words")
    with pytest.raises(E.InvalidArgument, match="key"):
        Client("127.0.0.1:1", client_cert=b"-----BEGIN CERTIFICATE-----")


def test_one_secret_for_two_identities_is_refused(tmp_path):
    with pytest.raises(E.InvalidArgument, match="already 'alice'") as info:
        TokenFile(_file(tmp_path, f"{ALICE} alice\n{ALICE} bob\n"))
    assert ":2:" in info.value.message and ALICE not in info.value.message


def test_a_tls_key_of_another_certificate_is_refused_up_front(tmp_path):
    from serving.auth import TLSConfig
    from tests.tlscerts import Authority

    ca = Authority(tmp_path / "ca")
    one, two = ca.server("one"), ca.server("two")
    assert TLSConfig.from_files(str(one.cert), str(one.key)).cert_chain
    with pytest.raises(E.InvalidArgument, match="does not fit the certificate"):
        TLSConfig.from_files(str(one.cert), str(two.key))


def test_a_port_in_use_is_a_clear_error_not_a_trace(tmp_path):
    import socket

    from serving.server import serve

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with pytest.raises(E.InvalidArgument, match="cannot listen on 127.0.0.1:.*in use.*--port"):
            serve(object(), port=taken.getsockname()[1], reload_interval=None)
    finally:
        taken.close()


def test_token_file_edge_cases_are_read_or_refused_clearly(tmp_path):
    # an editor's byte-order mark does not become part of the first token
    p = tmp_path / "tokens"
    p.write_bytes(b"\xef\xbb\xbf" + f"{ALICE} alice\n".encode())
    os.chmod(p, 0o600)
    got = TokenFile(p).lookup(ALICE)
    assert got is not None and got.name == "alice"
    # one secret listed twice for one name with other roles: which roles hold is not guessed
    with pytest.raises(E.InvalidArgument, match="other roles") as info:
        TokenFile(_file(tmp_path, f"{ALICE} alice\n{ALICE} alice maintainer\n"))
    assert ":2:" in info.value.message and ALICE not in info.value.message
    TokenFile(_file(tmp_path, f"{ALICE} alice maintainer\n{ALICE} alice maintainer\n"))     # the same line twice
    # "os:" names are this machine's users: a token or a certificate cannot claim one
    with pytest.raises(E.InvalidArgument, match="this machine's users"):
        TokenFile(_file(tmp_path, f"{ALICE} os:root\n"))
    with pytest.raises(E.InvalidArgument, match="this machine's users"):
        TokenFile(_file(tmp_path, "cert os:root maintainer\n"))
    # in any case (a probe: "OS:root" passed the case-sensitive check), and history's own name
    with pytest.raises(E.InvalidArgument, match="this machine's"):
        TokenFile(_file(tmp_path, f"{ALICE} OS:root\n"))
    with pytest.raises(E.InvalidArgument, match="reserved"):
        TokenFile(_file(tmp_path, f"{ALICE} History\n"))
    sec = ServerSecurity(None, TokenFile(_file(tmp_path, f"{ALICE} alice\n")))
    with pytest.raises(E.Unauthenticated):
        sec.identify(_Ctx(cn=b"os:root"))
    with pytest.raises(E.Unauthenticated):
        sec.identify(_Ctx(cn=b"Os:root"))


def test_a_call_cancelled_by_a_draining_server_is_unavailable_and_retryable():
    """A probe's drain (SIGTERM under 6 client threads): one call came back CANCELLED, which the
    client made a non-retryable SystemError_; the server was only going away."""
    import grpc

    from serving.client import error_from_rpc

    class Cancelled(grpc.RpcError):         # what grpc raises: an RpcError with the call's status
        def code(self):
            return grpc.StatusCode.CANCELLED

        def details(self):
            return "Cancelled"

        def trailing_metadata(self):
            return ()

    err = error_from_rpc(Cancelled(), "Search")
    assert isinstance(err, E.Unavailable) and err.retryable and "server unavailable" in err.message
