"""Fuzz every RPC of a real server on loopback: random bytes as the payload, and requests whose
fields are random, huge, unicode, control characters, negative or out-of-range numbers, mixed with
real sessions, targets and page tokens so the calls reach deep into the tools. Bad input must get a
typed status (INVALID_ARGUMENT, NOT_FOUND, ...), never INTERNAL or UNKNOWN, and an error message
never longer than the server's cap nor repeating more than a short prefix of a value.

Bounded: a fixed number of calls per RPC and a wall-clock cap. The seed is fixed (reproducible);
``STRATUM_FUZZ_SEED=<n>`` explores others, and a failure message names the seed."""

from __future__ import annotations

import os
import random
import shutil
import string
import time

import grpc
import pytest

from serving._gen import stratum_pb2 as pb
from serving.client import Client
from serving.server import MAX_MESSAGE_CHARS, serve
from stratum.tools import Tools

pytestmark = pytest.mark.slow
SEED = int(os.environ.get("STRATUM_FUZZ_SEED", "20261201"))
STRUCTURED_PER_RPC = 200
BYTES_PER_RPC = 100
WALL_CAP_SECONDS = 60.0
FORBIDDEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
SERVICE = pb.DESCRIPTOR.services_by_name["Stratum"]

JUNK = ["", " ", "\x00", "\x1b[31mred\x1b[0m", "\u202etxt.exe", "日本語のパス/ファイル.py", "💥" * 40, "../../etc/passwd",
        "/etc/passwd", "shop/../../x", "a" * 1025, "b" * 65, "%s%n%x", "'; DROP TABLE nodes; --", "\r\n\t",
        "\ud7ff\ue000\ufffd", "x" * 70_000, "null", "-1", "AAAA", "shop/cart.py::", "::", "shop//cart.py"]
VALID = {"kind": ["rca", "failure", "insight", "fix", "file", "function"], "level": ["summary", "api", "full"],
         "direction": ["out", "in", "both"], "policy": ["score", "lru"],
         "edges": ["imports", "tests", "cochange", "contains", "notes", "about"],
         "kinds": ["file", "function", "class", "method", "rca", "insight"], "language": ["python", "rust"]}
INTS = [0, 1, -1, 2, 7, 50, 200, 201, 10_000, -(2 ** 31), 2 ** 31 - 1]
INT64S = INTS + [2 ** 63 - 1, -(2 ** 63), 2 ** 40]


@pytest.fixture(scope="module")
def fuzz_server(indexed_store, tmp_path_factory):
    copy = tmp_path_factory.mktemp("fuzz") / "store"      # fuzzed notes land in a copy
    shutil.copytree(indexed_store[1], copy)
    tools = Tools.open([str(copy)])
    server, port = serve(tools, port=0, reload_interval=None)
    addr = f"127.0.0.1:{port}"
    with Client(addr) as c:
        sid = c.open_session().data["session"]
        c.detach(sid)
        items = c.tree(sid, "", depth=10, page_size=200).items
        token = c.tree(sid, "", depth=10, page_size=2).envelope.next_page_token
    yield addr, sid, [it.id for it in items] + [it.path for it in items] + ["shop/cart.py::Cart.total"], token
    server.stop(None)
    tools.close()


def _string(rng: random.Random, name: str, ctx) -> str:
    _addr, sid, targets, token = ctx
    roll = rng.random()
    if name == "session":
        return sid if roll < 0.7 else rng.choice(JUNK + [sid + "x", sid.upper(), "s" * 500_000])
    if name == "page_token":
        return "" if roll < 0.4 else token if roll < 0.6 else rng.choice(JUNK + [token[:-2] + "zz", "A" * 2000])
    if name in ("target", "path", "path_prefix", "about", "focus", "supersedes") and roll < 0.6:
        return rng.choice(targets + ["shop", "shop/"])
    if name in VALID and roll < 0.6:
        return rng.choice(VALID[name])
    if name in ("query", "text") and roll < 0.5:
        return " ".join(rng.choice(["cart", "discount", "price", "round", "SKU", "total", "tax"])
                        for _ in range(rng.randint(1, 8)))
    if roll < 0.8:
        return rng.choice(JUNK)
    if roll < 0.9:                                       # long and printable: an echo would show whole
        return "".join(rng.choice(string.ascii_letters + string.digits + "/._-:") for _ in range(rng.randint(101, 900)))
    return "".join(chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0x80, 0xD7FF), rng.randint(0xE000, 0x10FFFF)]))
                   for _ in range(rng.randint(1, 300)))


def _sane(rng: random.Random, name: str, ctx):
    """A value the tool accepts, so that one fuzzed field beside it is what gets tested."""
    _addr, sid, targets, _token = ctx
    if name == "session":
        return sid
    if name in ("target", "path", "path_prefix", "about", "focus"):
        return rng.choice(targets) if name != "path_prefix" else "shop/"
    if name in VALID:
        return rng.choice(VALID[name][:3])
    if name in ("query", "text"):
        return "why is the cart total rounded " + str(rng.randrange(10 ** 6))
    return {"depth": 2, "page_size": 5, "budget": 20_000}.get(name, "")


def _request(rng: random.Random, method, ctx):
    """All fields random, or (half the time) all sane but one, so the calls get past the first check."""
    cls = getattr(pb, method.input_type.name)
    msg = cls()
    fields = list(cls.DESCRIPTOR.fields)
    fuzzed = set(fields) if rng.random() < 0.5 else {rng.choice(fields)}
    for f in fields:
        wild = f in fuzzed
        if f.has_presence and wild and rng.random() < 0.3:
            continue                                     # optional left unset: the tool's default
        if f.type == f.TYPE_STRING:
            if f.is_repeated:
                n = rng.choice([0, 1, 2, 3, 65, 200]) if wild else (1 if f.name in ("about", "focus") else 0)
                getattr(msg, f.name).extend((_string if wild else _sane)(rng, f.name, ctx) for _ in range(n))
            else:
                value = (_string if wild else _sane)(rng, f.name, ctx)
                if method.name == "CloseSession" and value == ctx[1]:
                    value = "closing-someone-else"       # keep the shared session open for the other calls
                setattr(msg, f.name, value)
        elif f.type in (f.TYPE_INT32, f.TYPE_INT64):
            value = rng.choice(INT64S if f.type == f.TYPE_INT64 else INTS) if wild else _sane(rng, f.name, ctx)
            setattr(msg, f.name, value)
    return msg


def _garbage(rng: random.Random, method, ctx) -> bytes:
    roll = rng.random()
    if roll < 0.4:
        return rng.randbytes(rng.randint(0, 300))
    valid = bytearray(_request(rng, method, ctx).SerializeToString()) or bytearray(b"\x0a\x01a")
    if roll < 0.8:                                       # a valid request with bytes flipped
        for _ in range(rng.randint(1, 6)):
            valid[rng.randrange(len(valid))] = rng.randrange(256)
        return bytes(valid)
    return bytes(valid[: rng.randrange(len(valid))]) + b"\xff\xff\xff\xff\x0f"    # cut, then a bad varint


def _echoes_a_long_value(request, details: str) -> bool:
    """Whether an error message repeats more than a short prefix of a request value (limits.echo
    quotes at most 80 characters)."""
    for f in request.DESCRIPTOR.fields:
        if f.type != f.TYPE_STRING:
            continue
        values = getattr(request, f.name)
        for v in (values if f.is_repeated else [values]):
            if len(v) > 100 and v[:100] in details:
                return True
    return False


def test_fuzz_every_rpc_never_internal(fuzz_server):
    addr = fuzz_server[0]
    rng = random.Random(SEED)
    channel = grpc.insecure_channel(addr, options=[("grpc.max_send_message_length", 4 << 20)])
    bad, counts, start = [], {}, time.monotonic()
    plan = [(m, kind) for m in SERVICE.methods for kind in ["fields"] * STRUCTURED_PER_RPC + ["bytes"] * BYTES_PER_RPC]
    rng.shuffle(plan)
    for method, kind in plan:
        if time.monotonic() - start > WALL_CAP_SECONDS:
            break
        call = channel.unary_unary(f"/{SERVICE.full_name}/{method.name}", request_serializer=None,
                                   response_deserializer=None)
        request = _request(rng, method, fuzz_server) if kind == "fields" else None
        payload = request.SerializeToString() if request is not None else _garbage(rng, method, fuzz_server)
        try:
            call(payload, timeout=30)
            code, details = grpc.StatusCode.OK, ""
        except grpc.RpcError as err:
            code, details = err.code(), err.details() or ""
        counts[(method.name, kind)] = counts.get((method.name, kind), 0) + 1
        if code in FORBIDDEN or len(details) > MAX_MESSAGE_CHARS + 64 or "Traceback" in details \
                or (request is not None and _echoes_a_long_value(request, details)):
            bad.append((method.name, kind, code.name, details[:200], payload[:120]))
    channel.close()
    assert not bad, f"seed {SEED}: {len(bad)} bad answers, first ones: {bad[:5]}"
    for method in SERVICE.methods:          # every RPC was reached both ways within the time cap
        assert counts.get((method.name, "fields"), 0) >= 10 and counts.get((method.name, "bytes"), 0) >= 5, \
            (method.name, counts)


def test_huge_and_undecodable_requests_get_short_invalid_argument(fuzz_server):
    addr, sid = fuzz_server[0], fuzz_server[1]
    channel = grpc.insecure_channel(addr)
    for method in SERVICE.methods:
        call = channel.unary_unary(f"/{SERVICE.full_name}/{method.name}")
        with pytest.raises(grpc.RpcError) as info:
            call(b"\x0a\xff\xff\xff\xff\xff\xff", timeout=30)        # a length past the end
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, method.name
        assert "deserializing" not in info.value.details() and method.input_type.name in info.value.details()
    status = channel.unary_unary(f"/{SERVICE.full_name}/Status")
    with pytest.raises(grpc.RpcError) as info:
        status(pb.StatusRequest(session="s" * 500_000).SerializeToString(), timeout=30)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and len(info.value.details()) < 200
    with Client(addr) as c:                 # the server is fine afterwards
        assert c.status(sid).envelope.version >= 1
        c.detach(sid)
    channel.close()
