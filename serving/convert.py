"""The one place where stratum.envelope dataclasses and tool arguments meet the wire messages.

Responses: ``Response`` <-> ``<Tool>Response`` (envelope = 1, items = 2, data_json = 3, plus typed
copies of stable extras such as ``session`` and ``note_id``). ``data_json`` holds the whole
``Response.data`` dict, so a round trip gives back an equal ``Response``.

Requests: a request message -> keyword arguments for the tool. A field declared ``optional`` in the
.proto and left unset is omitted, so the tool's own default applies; every other field is passed.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from google.protobuf.message import Message

from serving._gen import stratum_pb2 as pb
from stratum.envelope import Budget, Envelope, Eviction, Item, Response

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
                               tokens_freed=e.tokens_freed, reason=e.reason) for e in env.evictions],
        next_hint=env.next_hint, version=env.version, warnings=env.warnings)


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
    return msg


def item_to_proto(it: Item) -> pb.Item:
    return _fill_item(pb.Item(), it)


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
                            tokens_freed=e.tokens_freed, reason=e.reason) for e in msg.evictions],
        next_hint=msg.next_hint, version=msg.version, warnings=list(msg.warnings))


def item_from_proto(msg: pb.Item) -> Item:
    return Item(id=msg.id, kind=msg.kind, path=msg.path, name=msg.name, qualname=msg.qualname,
                level=msg.level, text=msg.text, tokens=msg.tokens,
                score=msg.score if msg.HasField("score") else None, language=msg.language,
                start_line=msg.start_line, end_line=msg.end_line, edge=msg.edge,
                direction=msg.direction, warnings=list(msg.warnings), meta=_loads(msg.meta_json))


def response_from_proto(msg: Message) -> Response:
    """Any RPC response message as the Response the tool returned."""
    return Response(envelope=envelope_from_proto(msg.envelope),
                    items=[item_from_proto(it) for it in msg.items],
                    data=_loads(msg.data_json))


# ---- requests --------------------------------------------------------------------------------------

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


__all__ = ["dumps", "envelope_to_proto", "item_to_proto", "shard_status_to_proto", "response_to_proto", "envelope_from_proto",
           "item_from_proto", "response_from_proto", "request_to_kwargs", "request_from_kwargs"]
