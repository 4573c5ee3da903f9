"""The one place where stratum.envelope dataclasses and tool arguments meet the wire messages.

Responses: ``Response`` <-> ``<Tool>Response`` (envelope = 1, items = 2, data_json = 3, plus typed
copies of stable extras such as ``session`` and ``note_id``). ``data_json`` holds the whole
``Response.data`` dict, so a round trip gives back an equal ``Response``.

Items: note provenance travels as a ``google.protobuf.Struct`` (values keep their JSON types; whole
numbers come back as ints), attached notes as ``NoteRef`` messages whose unset fields stay absent and
whose unknown keys ride in ``extra``, so ``Item`` round-trips equal.

Requests: a request message -> keyword arguments for the tool. A field declared ``optional`` in the
.proto and left unset is omitted, so the tool's own default applies; every other field is passed.
``check_request`` bounds every string and list field first (stratum.limits), so an oversized value
is a short InvalidArgument before any tool looks at it.
"""

from __future__ import annotations

import dataclasses
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


def dumps(value: Any) -> str:
    """Compact JSON for the *_json wire fields ("" for an empty dict)."""
    if not value:
        return ""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_jsonable)


def _loads(text: str) -> dict:
    return json.loads(text) if text else {}


# ---- dataclass -> message --------------------------------------------------------------------------

def envelope_to_proto(env: Envelope) -> pb.Envelope:
    b = env.budget
    return pb.Envelope(
        returned=env.returned, total=env.total, total_is_lower_bound=env.total_is_lower_bound,
        page=env.page, pages=env.pages, has_more=env.has_more, next_page_token=env.next_page_token,
        tokens_returned=env.tokens_returned,
        budget=pb.Budget(limit=b.limit, used=b.used, remaining=b.remaining),
        evictions=[pb.Eviction(node_id=e.node_id, from_level=e.from_level, to_level=e.to_level,
                               tokens_freed=e.tokens_freed, reason=e.reason, label=e.label) for e in env.evictions],
        next_hint=env.next_hint, version=env.version, warnings=env.warnings,
        commit=env.commit, commits=env.commits, stale=env.stale)


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
    for note in it.notes:
        _fill_note(msg.notes.add(), note)
    return msg


def _fill_struct(msg: struct_pb2.Struct, value: dict) -> None:
    # plain JSON types first (numpy scalars, sets, ...); a value already plain goes in as it is
    msg.update(value if _plain(value) else json.loads(dumps(value)))


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


def _fill_note(msg: pb.NoteRef, note: dict) -> None:
    extra = {}
    for key, value in note.items():
        typ = _NOTE_TYPES.get(key)
        if typ is not None and isinstance(value, typ) and not (key == "age_days" and isinstance(value, bool)):
            setattr(msg, key, value)
        else:
            extra[key] = value
    if extra:
        _fill_struct(msg.extra, extra)


def shard_status_to_proto(info: dict) -> pb.ShardStatus:
    """A status shard dict as the typed message; keys it does not name stay in data_json only."""
    fields = pb.ShardStatus.DESCRIPTOR.fields_by_name
    return pb.ShardStatus(**{k: v for k, v in info.items() if k in fields and v is not None})


def response_to_proto(resp: Response, message_type: type[Message]) -> Message:
    """A tool Response as the RPC's response message."""
    fields = message_type.DESCRIPTOR.fields_by_name
    extras: dict[str, Any] = {name: str(resp.data.get(name, "")) for name in _TYPED_EXTRAS if name in fields}
    if "shards" in fields:
        extras["shards"] = [shard_status_to_proto(sh) for sh in resp.data.get("shards", ())]
    msg = message_type(envelope=envelope_to_proto(resp.envelope), data_json=dumps(resp.data), **extras)
    add = msg.items.add                  # fill in place: a list of built messages would be copied
    for it in resp.items:
        _fill_item(add(), it)
    return msg


# ---- message -> dataclass --------------------------------------------------------------------------

def envelope_from_proto(msg: pb.Envelope) -> Envelope:
    b = msg.budget
    return Envelope(
        returned=msg.returned, total=msg.total, total_is_lower_bound=msg.total_is_lower_bound,
        page=msg.page, pages=msg.pages, has_more=msg.has_more, next_page_token=msg.next_page_token,
        tokens_returned=msg.tokens_returned,
        budget=Budget(limit=b.limit, used=b.used, remaining=b.remaining),
        evictions=[Eviction(node_id=e.node_id, from_level=e.from_level, to_level=e.to_level,
                            tokens_freed=e.tokens_freed, reason=e.reason, label=e.label) for e in msg.evictions],
        next_hint=msg.next_hint, version=msg.version, warnings=list(msg.warnings),
        commit=msg.commit, commits=dict(msg.commits), stale=msg.stale)


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
        return {k: _value(v) for k, v in msg.fields.items()}
    except _NotFinite:
        return _whole(json_format.MessageToDict(msg))


class _NotFinite(Exception):
    pass


def _value(v: struct_pb2.Value) -> Any:
    which = v.WhichOneof("kind")
    if which == "string_value":
        return v.string_value
    if which == "number_value":
        x = v.number_value
        if not math.isfinite(x):
            raise _NotFinite
        return _whole(x)
    if which == "bool_value":
        return v.bool_value
    if which == "struct_value":
        return {k: _value(u) for k, u in v.struct_value.fields.items()}
    if which == "list_value":
        return [_value(u) for u in v.list_value.values]
    return None                                  # null_value, or unset


def _note_from_proto(msg: pb.NoteRef) -> dict:
    note = {name: getattr(msg, name) for name in _NOTE_FIELDS if msg.HasField(name)}
    if "age_days" in note:
        note["age_days"] = _whole(note["age_days"])
    if msg.HasField("extra"):
        note.update(_struct(msg.extra))
    return note


def item_from_proto(msg: pb.Item) -> Item:
    return Item(id=msg.id, kind=msg.kind, path=msg.path, name=msg.name, qualname=msg.qualname,
                level=msg.level, text=msg.text, tokens=msg.tokens,
                score=msg.score if msg.HasField("score") else None, language=msg.language,
                start_line=msg.start_line, end_line=msg.end_line, edge=msg.edge,
                direction=msg.direction, warnings=list(msg.warnings), meta=_loads(msg.meta_json),
                provenance=_struct(msg.provenance) if msg.HasField("provenance") else {},
                trust=msg.trust, why=msg.why, notes=[_note_from_proto(n) for n in msg.notes], repo=msg.repo)


def response_from_proto(msg: Message) -> Response:
    """Any RPC response message as the Response the tool returned."""
    return Response(envelope=envelope_from_proto(msg.envelope),
                    items=[item_from_proto(it) for it in msg.items],
                    data=_loads(msg.data_json))


# ---- requests --------------------------------------------------------------------------------------

# Longest value of each request string field (the tools check again; these are the cheap bounds at the
# door). Fields not named here get MAX_TARGET_CHARS, except a note's text (the note rules own it).
_FIELD_LIMITS = {"session": limits.MAX_SESSION_ID_CHARS, "query": limits.MAX_QUERY_CHARS,
                 "page_token": limits.MAX_PAGE_TOKEN_CHARS, "author": limits.MAX_NAME_CHARS,
                 "model": limits.MAX_NAME_CHARS}
_UNBOUNDED = {"text"}


def check_request(msg: Message) -> None:
    """InvalidArgument when a string or list field of a request is over its limit (short message)."""
    for field in msg.DESCRIPTOR.fields:
        if field.type != field.TYPE_STRING or field.name in _UNBOUNDED:
            continue
        limit = _FIELD_LIMITS.get(field.name, limits.MAX_TARGET_CHARS)
        value = getattr(msg, field.name)
        if field.is_repeated:
            if len(value) > limits.MAX_TARGETS:
                raise InvalidArgument(f"{field.name} has {len(value)} values; the limit is {limits.MAX_TARGETS}")
            for v in value:
                limits.check_len(f"a {field.name} value", v, limit)
        else:
            limits.check_len(field.name, value, limit)


def request_to_kwargs(msg: Message) -> dict[str, Any]:
    """Tool keyword arguments from a request; unset ``optional`` fields are left to the tool."""
    kwargs: dict[str, Any] = {}
    for field in msg.DESCRIPTOR.fields:
        if field.has_presence and not msg.HasField(field.name):
            continue
        value = getattr(msg, field.name)
        kwargs[field.name] = list(value) if field.is_repeated else value
    return kwargs


def request_from_kwargs(message_type: type[Message], kwargs: dict[str, Any]) -> Message:
    """A request message from tool keyword arguments (None leaves an ``optional`` field unset)."""
    return message_type(**{k: (list(v) if isinstance(v, (tuple, set, frozenset)) else v)
                           for k, v in kwargs.items() if v is not None})


__all__ = ["dumps", "envelope_to_proto", "shard_status_to_proto", "response_to_proto", "envelope_from_proto",
           "item_from_proto", "response_from_proto", "check_request", "request_to_kwargs", "request_from_kwargs"]
