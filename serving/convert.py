"""The one place where stratum.envelope dataclasses and tool arguments meet the wire messages.

Responses: ``Response`` <-> ``<Tool>Response`` (envelope = 1, items = 2, data_json = 3, plus typed
copies of stable extras such as ``session`` and ``note_id``). ``data_json`` holds the whole
``Response.data`` dict, so a round trip gives back an equal ``Response``.

Items: note provenance travels as a ``google.protobuf.Struct`` (values keep their JSON types; whole
numbers come back as ints), attached notes as ``NoteRef`` messages whose unset fields stay absent and
whose unknown keys ride in ``extra``, so ``Item`` round-trips equal.

Requests: a request message -> keyword arguments for the tool. A field declared ``optional`` in the
.proto and left unset is omitted, so the tool's own default applies; every other field is passed.
``check_request`` bounds every string and list field first, each by the tools' own bound
(``stratum.toolspec.ARGS``) and in their words, so an oversized value is a short InvalidArgument
before any tool looks at it, the same one the tool gives over MCP.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from typing import Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from serving._gen import stratum_pb2 as pb
from stratum import limits
from stratum.envelope import Budget, Envelope, Eviction, Item, Response
from stratum.errors import InvalidArgument
from stratum.toolspec import ARGS, ArgSpec, check_arg

# Typed response fields copied from Response.data when the message has them (and "shards").
_TYPED_EXTRAS = ("session", "note_id")


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if hasattr(value, "item"):          # numpy scalars
        return value.item()
    if hasattr(value, "tolist"):        # numpy arrays
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


# json.dumps with these options would build a new encoder on every call
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=_jsonable)


def dumps(value: Any) -> str:
    """Compact JSON for the *_json wire fields ("" for an empty dict)."""
    if not value:
        return ""
    return _ENCODER.encode(value)


def _loads(text: str) -> dict:
    return json.loads(text) if text else {}


# ---- dataclass -> message --------------------------------------------------------------------------

def envelope_to_proto(env: Envelope) -> pb.Envelope:
    return _fill_envelope(pb.Envelope(), env)


def _fill_envelope(msg: pb.Envelope, env: Envelope) -> pb.Envelope:
    """``env`` into ``msg`` in place (a built Envelope passed to the response's constructor is copied)."""
    msg.returned, msg.total, msg.total_is_lower_bound = env.returned, env.total, env.total_is_lower_bound
    msg.page, msg.pages, msg.has_more, msg.next_page_token = env.page, env.pages, env.has_more, env.next_page_token
    msg.tokens_returned, msg.next_hint, msg.version = env.tokens_returned, env.next_hint, env.version
    msg.commit, msg.stale = env.commit, env.stale
    b, mb = env.budget, msg.budget
    mb.limit, mb.used, mb.remaining = b.limit, b.used, b.remaining
    if env.evictions:
        add = msg.evictions.add
        for e in env.evictions:
            add(node_id=e.node_id, from_level=e.from_level, to_level=e.to_level, tokens_freed=e.tokens_freed,
                reason=e.reason, label=e.label)
    if env.warnings:
        msg.warnings.extend(env.warnings)
    if env.commits:
        msg.commits.update(env.commits)
    return msg


def _fill_item(msg: pb.Item, it: Item) -> pb.Item:
    msg.id, msg.kind, msg.path, msg.name, msg.qualname = it.id, it.kind, it.path, it.name, it.qualname
    msg.level, msg.text, msg.tokens, msg.language = it.level, it.text, it.tokens, it.language
    msg.start_line, msg.end_line, msg.edge, msg.direction = it.start_line, it.end_line, it.edge, it.direction
    if it.warnings:
        msg.warnings.extend(it.warnings)
    if it.meta:
        msg.meta_json = dumps(it.meta)
    if it.score is not None:
        msg.score = it.score
    if it.provenance:
        _fill_struct(msg.provenance, it.provenance)
    msg.trust, msg.why, msg.repo = it.trust, it.why, it.repo
    if it.notes:
        add = msg.notes.add
        for note in it.notes:
            _fill_note(add, note)
    return msg


def _fill_struct(msg: struct_pb2.Struct, value: dict) -> None:
    """``value`` into ``msg`` as its JSON round trip would: a dict of plain scalars (the usual
    provenance) value by value, anything else through ``Struct.update`` (plain JSON types) or the
    JSON round trip first (numpy scalars, sets, ...)."""
    if not _fill_scalars(msg.fields, value):
        msg.Clear()
        msg.update(value if _plain(value) else json.loads(dumps(value)))


def _fill_scalars(fields: Any, value: dict) -> bool:
    """Each value of exactly str, bool, int, float or None type (str keys) into its ``Value`` as
    ``Struct.update`` sets it; False at the first other one (the caller starts over)."""
    for key, v in value.items():
        t = type(v)
        if type(key) is not str:
            return False
        if t is str:
            fields[key].string_value = v
        elif t is bool:
            fields[key].bool_value = v
        elif t is int or t is float:
            fields[key].number_value = v
        elif v is None:
            fields[key].null_value = 0
        else:
            return False
    return True


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    """Only JSON's own types (exactly: no subclasses), dicts keyed by str: the JSON round trip
    would give back an equal value, so ``Struct.update`` can take it directly."""
    t = type(value)
    if t in _SCALARS:
        return True
    if t is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if t is list:
        return all(_plain(v) for v in value)
    return False


_NOTE_FIELDS = {f.name: f for f in pb.NoteRef.DESCRIPTOR.fields if f.name != "extra"}
_PY_TYPES: dict[int, type | tuple[type, ...]] = {
    FieldDescriptor.TYPE_STRING: str, FieldDescriptor.TYPE_BOOL: bool,
    FieldDescriptor.TYPE_DOUBLE: (int, float), FieldDescriptor.TYPE_FLOAT: (int, float),
    FieldDescriptor.TYPE_INT32: int, FieldDescriptor.TYPE_INT64: int}
# what a note dict's value must be to go into its typed field (else it travels in ``extra``): from the descriptor
_NOTE_TYPES = {name: _PY_TYPES[f.type] for name, f in _NOTE_FIELDS.items()}


def _fill_note(add: Any, note: dict) -> None:
    """One note dict as a NoteRef made by ``add`` (a repeated field's add): its typed keys set
    (present), the others in ``extra``."""
    typed, extra = {}, {}
    for key, value in note.items():
        typ = _NOTE_TYPES.get(key)
        if typ is not None and isinstance(value, typ) and not (key == "age_days" and isinstance(value, bool)):
            typed[key] = value
        else:
            extra[key] = value
    msg = add(**typed)
    if extra:
        _fill_struct(msg.extra, extra)


def shard_status_to_proto(info: dict) -> pb.ShardStatus:
    """A status shard dict as the typed message; keys it does not name stay in data_json only."""
    fields = pb.ShardStatus.DESCRIPTOR.fields_by_name
    return pb.ShardStatus(**{k: v for k, v in info.items() if k in fields and v is not None})


@functools.cache
def _extras_of(descriptor: Any) -> tuple[tuple[str, ...], bool]:
    """A response type's typed extras (of _TYPED_EXTRAS) and whether it has ``shards``, read once per type."""
    fields = descriptor.fields_by_name
    return tuple(name for name in _TYPED_EXTRAS if name in fields), "shards" in fields


def response_to_proto(resp: Response, message_type: type[Message]) -> Message:
    """A tool Response as the RPC's response message."""
    typed, shards = _extras_of(message_type.DESCRIPTOR)
    extras: dict[str, Any] = {name: str(resp.data.get(name, "")) for name in typed}
    if shards:
        extras["shards"] = [shard_status_to_proto(sh) for sh in resp.data.get("shards", ())]
    msg = message_type(data_json=dumps(resp.data), **extras)
    _fill_envelope(msg.envelope, resp.envelope)
    add = msg.items.add                  # fill in place: a list of built messages would be copied
    for it in resp.items:
        _fill_item(add(), it)
    return msg


# ---- message -> dataclass --------------------------------------------------------------------------

# the decoders below pass dataclass fields by position (a 16- or 21-keyword call costs ~1-3 us more
# than a positional one, per envelope and per item): the orders are checked here, once
_ORDERS = {Budget: ("limit", "used", "remaining"),
           Eviction: ("node_id", "from_level", "to_level", "tokens_freed", "reason", "label"),
           Envelope: ("returned", "total", "total_is_lower_bound", "page", "pages", "has_more", "next_page_token",
                      "tokens_returned", "budget", "evictions", "next_hint", "version", "warnings", "commit",
                      "commits", "stale"),
           Item: ("id", "kind", "path", "name", "qualname", "level", "text", "tokens", "score", "language",
                  "start_line", "end_line", "edge", "direction", "warnings", "meta", "provenance", "trust", "why",
                  "notes", "repo")}
for _cls, _order in _ORDERS.items():
    if tuple(f.name for f in dataclasses.fields(_cls)) != _order:
        raise ImportError(f"stratum.envelope.{_cls.__name__}'s fields changed: update serving.convert's decoders")


def envelope_from_proto(msg: pb.Envelope) -> Envelope:
    b, evictions, commits = msg.budget, msg.evictions, msg.commits
    return Envelope(
        msg.returned, msg.total, msg.total_is_lower_bound, msg.page, msg.pages, msg.has_more, msg.next_page_token,
        msg.tokens_returned, Budget(b.limit, b.used, b.remaining),
        [Eviction(e.node_id, e.from_level, e.to_level, e.tokens_freed, e.reason, e.label) for e in evictions]
        if evictions else [],
        msg.next_hint, msg.version, list(msg.warnings), msg.commit, {k: commits[k] for k in commits} if commits else {},
        msg.stale)


def _whole(value: Any) -> Any:
    """Struct numbers are doubles: give whole ones back as ints (3 days, not 3.0), recursively."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
        return int(value)
    if isinstance(value, dict):
        return {k: _whole(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole(v) for v in value]
    return value


def _struct(msg: struct_pb2.Struct) -> dict:
    """``json_format.MessageToDict`` of a Struct, whole numbers as ints (``_whole``), read directly
    (~4x faster); a non-finite number goes through json_format for its own error."""
    try:
        fields = msg.fields
        return {k: _value(fields[k]) for k in fields}
    except _NotFinite:
        return _whole(json_format.MessageToDict(msg))


class _NotFinite(Exception):
    pass


_EXACT = 2 ** 53         # a double below this in magnitude is an exact int


def _value(v: struct_pb2.Value) -> Any:
    which = v.WhichOneof("kind")
    if which == "string_value":
        return v.string_value
    if which == "number_value":
        x = v.number_value
        if x.is_integer():                       # finite and whole: an int as _whole gives it
            return int(x) if -_EXACT < x < _EXACT else x
        if not math.isfinite(x):
            raise _NotFinite
        return x
    if which == "bool_value":
        return v.bool_value
    if which == "struct_value":
        fields = v.struct_value.fields
        return {k: _value(fields[k]) for k in fields}
    if which == "list_value":
        return [_value(u) for u in v.list_value.values]
    return None                                  # null_value, or unset


_NOTE_NAMES = tuple(_NOTE_FIELDS)


def _note_from_proto(msg: pb.NoteRef) -> dict:
    has = msg.HasField
    note = {name: getattr(msg, name) for name in _NOTE_NAMES if has(name)}
    if "age_days" in note:
        note["age_days"] = _whole(note["age_days"])
    if has("extra"):
        note.update(_struct(msg.extra))
    return note


def item_from_proto(msg: pb.Item) -> Item:
    notes = msg.notes
    return Item(msg.id, msg.kind, msg.path, msg.name, msg.qualname, msg.level, msg.text, msg.tokens,
                msg.score if msg.HasField("score") else None, msg.language, msg.start_line, msg.end_line,
                msg.edge, msg.direction, list(msg.warnings), json.loads(meta) if (meta := msg.meta_json) else {},
                _struct(msg.provenance) if msg.HasField("provenance") else {}, msg.trust, msg.why,
                [_note_from_proto(n) for n in notes] if notes else [], msg.repo)


def response_from_proto(msg: Message) -> Response:
    """Any RPC response message as the Response the tool returned."""
    return Response(envelope=envelope_from_proto(msg.envelope),
                    items=[item_from_proto(it) for it in msg.items],
                    data=_loads(msg.data_json))


# ---- requests --------------------------------------------------------------------------------------

# The door's bound of each request string field is the tool's own (``toolspec.ARGS``, checked by
# ``toolspec.check_arg``, so the words and code are the tool's too: the door once gave ``lines`` and
# ``language`` 1024 characters where the tools allow 32 and 128, and said "values" where the tools
# say "entries"). A closed set's field with no length of its own (level, direction) is left to the
# tool, which refuses any other value; the session id is bounded as the sessions bound it; a note's
# text is the note rules' (``notes.validate``).
_SESSION = ArgSpec(max_chars=limits.MAX_SESSION_ID_CHARS)


@functools.cache
def _string_limits(descriptor: Any) -> tuple[tuple[str, str, ArgSpec], ...]:
    """A request type's bounded string fields: (field, name said, bound), read once per type. A
    field with no bound at all is refused here, once per type, so none can slip past the door."""
    out = []
    for f in descriptor.fields:
        if f.type != f.TYPE_STRING or f.name == "text":
            continue
        spec = _SESSION if f.name == "session" else ARGS.get(f.name)
        if spec is None:
            raise TypeError(f"{descriptor.name}.{f.name} has no bound in stratum.toolspec.ARGS")
        if spec.max_chars is not None:
            out.append((f.name, "session id" if spec is _SESSION else f.name, spec))
    return tuple(out)


def check_request(msg: Message) -> None:
    """InvalidArgument when a string or list field of a request is over its limit (short message),
    in the words the tool would use."""
    for name, said, spec in _string_limits(msg.DESCRIPTOR):
        check_arg(said, getattr(msg, name), spec)


@functools.cache
def _arguments(descriptor: Any) -> tuple[tuple[str, bool, bool], ...]:
    """A request type's fields as tool arguments: (name, optional, repeated), read once per type."""
    return tuple((f.name, f.has_presence, f.is_repeated) for f in descriptor.fields)


def request_to_kwargs(msg: Message) -> dict[str, Any]:
    """Tool keyword arguments from a request; unset ``optional`` fields are left to the tool."""
    kwargs: dict[str, Any] = {}
    for name, optional, repeated in _arguments(msg.DESCRIPTOR):
        if optional and not msg.HasField(name):
            continue
        value = getattr(msg, name)
        kwargs[name] = list(value) if repeated else value
    return kwargs


_INTS = {FieldDescriptor.TYPE_INT32: 31, FieldDescriptor.TYPE_INT64: 63, FieldDescriptor.TYPE_SINT32: 31,
         FieldDescriptor.TYPE_SINT64: 63, FieldDescriptor.TYPE_UINT32: 32, FieldDescriptor.TYPE_UINT64: 64}


def request_from_kwargs(message_type: type[Message], kwargs: dict[str, Any]) -> Message:
    """A request message from tool keyword arguments; None leaves a field unset, as a request
    without it (the tool's default; a required field's is empty, and the server's refusal of a
    missing one is the answer: the client said "target is required (got None)" where the server
    and the tools said "target is empty: give a node id, ...", a probe).

    Each argument is checked as the tools check it, so a client raises the tools' InvalidArgument,
    not protobuf's TypeError or ValueError: a string where a list goes was split into its letters
    (``edges="imports"``: "unknown edge kind(s) ['i', 'm', ...]"), "2" or True for a number, a
    number past the field's range (a probe)."""
    fields = message_type.DESCRIPTOR.fields_by_name
    out = {}
    for k, v in kwargs.items():
        f = fields.get(k)
        if f is None:
            raise InvalidArgument(f"unknown argument {k!r}")
        if v is None:
            continue
        if f.is_repeated:
            if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple, set, frozenset)):
                raise InvalidArgument(f"{k} must be a list of strings, not {type(v).__name__} {limits.echo(v)!r}")
            v = list(v)
            if not all(isinstance(x, str) for x in v):
                raise InvalidArgument(f"{k} must be a list of strings")
        elif f.type in _INTS:
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidArgument(f"{k} must be a whole number, not {type(v).__name__} {limits.echo(v)!r}")
            bits = _INTS[f.type]
            lo = 0 if f.type in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64) else -(1 << bits)
            if not lo <= v < (1 << bits):
                raise InvalidArgument(f"{k} is out of range: {v}")
        elif f.type == FieldDescriptor.TYPE_STRING and not isinstance(v, str):
            raise InvalidArgument(f"{k} must be a string, not {type(v).__name__} {limits.echo(v)!r}")
        elif f.type == FieldDescriptor.TYPE_BOOL and not isinstance(v, bool):
            raise InvalidArgument(f"{k} must be true or false, not {type(v).__name__} {limits.echo(v)!r}")
        out[k] = v
    return message_type(**out)


def request_for(message_type: type[Message], kwargs: dict[str, Any], *, sending: bool = False) -> Message:
    """The request a caller's tool arguments make, refused in the tools' words: each argument given
    checked as the tools check it (``toolspec.check_arg``; ``sending``: for a wire, which cannot
    hold a byte that is not UTF-8), then typed into the message (``request_from_kwargs``). The gRPC
    client sends it; the MCP server reads its arguments back from it (``request_to_kwargs``), so a
    bad or missing argument is answered alike on both (MCP said pydantic's "Field required" and
    "Input should be a valid integer": a probe)."""
    fields = message_type.DESCRIPTOR.fields_by_name
    for k in kwargs:
        if k not in fields:
            raise InvalidArgument(f"unknown argument {k!r}")
    return request_from_kwargs(message_type, {k: v if v is None else check_arg(k, v, sending=sending)
                                              for k, v in kwargs.items()})


def request_type(tool: str) -> type[Message]:
    """A tool's request message (``open_session`` -> ``OpenSessionRequest``): one RPC per tool,
    named alike (the server's ``_tool_name`` reads the other way)."""
    return getattr(pb, "".join(w.title() for w in tool.split("_")) + "Request")


__all__ = ["dumps", "envelope_to_proto", "shard_status_to_proto", "response_to_proto", "envelope_from_proto",
           "item_from_proto", "response_from_proto", "check_request", "request_to_kwargs", "request_from_kwargs",
           "request_for", "request_type"]
