"""serving.convert's fast paths (envelope filled in place, items and envelopes decoded by position,
plain provenance value by value, notes made by one ``add``) give exactly what the plain keyword
forms below give: the same wire bytes and the same decoded Response, over random answers."""

from __future__ import annotations

import json
import random

from google.protobuf import json_format

from serving import convert
from serving._gen import stratum_pb2 as pb
from stratum.envelope import Budget, Envelope, Eviction, Item, Response


# ---- the reference: every field by keyword, as the adapter first did it ----------------------------

def _ref_envelope(env: Envelope) -> pb.Envelope:
    b = env.budget
    return pb.Envelope(
        returned=env.returned, total=env.total, total_is_lower_bound=env.total_is_lower_bound, page=env.page,
        pages=env.pages, has_more=env.has_more, next_page_token=env.next_page_token,
        tokens_returned=env.tokens_returned, budget=pb.Budget(limit=b.limit, used=b.used, remaining=b.remaining),
        evictions=[pb.Eviction(node_id=e.node_id, from_level=e.from_level, to_level=e.to_level,
                               tokens_freed=e.tokens_freed, reason=e.reason, label=e.label) for e in env.evictions],
        next_hint=env.next_hint, version=env.version, warnings=env.warnings, commit=env.commit,
        commits=env.commits, stale=env.stale)


def _ref_item(it: Item) -> pb.Item:
    msg = pb.Item(id=it.id, kind=it.kind, path=it.path, name=it.name, qualname=it.qualname, level=it.level,
                  text=it.text, tokens=it.tokens, language=it.language, start_line=it.start_line,
                  end_line=it.end_line, edge=it.edge, direction=it.direction, warnings=it.warnings,
                  meta_json=convert.dumps(it.meta), trust=it.trust, why=it.why, repo=it.repo)
    if it.score is not None:
        msg.score = it.score
    if it.provenance:
        msg.provenance.update(json.loads(convert.dumps(it.provenance)))
    for note in it.notes:
        n = msg.notes.add()
        extra = {}
        for key, value in note.items():
            typ = convert._NOTE_TYPES.get(key)
            if typ is not None and isinstance(value, typ) and not (key == "age_days" and isinstance(value, bool)):
                setattr(n, key, value)
            else:
                extra[key] = value
        if extra:
            n.extra.update(json.loads(convert.dumps(extra)))
    return msg


def _ref_decode(msg: pb.SearchResponse) -> Response:
    e = msg.envelope
    env = Envelope(returned=e.returned, total=e.total, total_is_lower_bound=e.total_is_lower_bound, page=e.page,
                   pages=e.pages, has_more=e.has_more, next_page_token=e.next_page_token,
                   tokens_returned=e.tokens_returned,
                   budget=Budget(limit=e.budget.limit, used=e.budget.used, remaining=e.budget.remaining),
                   evictions=[Eviction(node_id=v.node_id, from_level=v.from_level, to_level=v.to_level,
                                       tokens_freed=v.tokens_freed, reason=v.reason, label=v.label)
                              for v in e.evictions],
                   next_hint=e.next_hint, version=e.version, warnings=list(e.warnings), commit=e.commit,
                   commits=dict(e.commits), stale=e.stale)

    def note(n: pb.NoteRef) -> dict:
        d = {f.name: getattr(n, f.name) for f in pb.NoteRef.DESCRIPTOR.fields
             if f.name != "extra" and n.HasField(f.name)}
        if "age_days" in d:
            d["age_days"] = convert._whole(d["age_days"])
        if n.HasField("extra"):
            d.update(convert._whole(json_format.MessageToDict(n.extra)))
        return d

    items = [Item(id=m.id, kind=m.kind, path=m.path, name=m.name, qualname=m.qualname, level=m.level, text=m.text,
                  tokens=m.tokens, score=m.score if m.HasField("score") else None, language=m.language,
                  start_line=m.start_line, end_line=m.end_line, edge=m.edge, direction=m.direction,
                  warnings=list(m.warnings), meta=json.loads(m.meta_json) if m.meta_json else {},
                  provenance=convert._whole(json_format.MessageToDict(m.provenance))
                  if m.HasField("provenance") else {},
                  trust=m.trust, why=m.why, notes=[note(n) for n in m.notes], repo=m.repo) for m in msg.items]
    return Response(envelope=env, items=items, data=json.loads(msg.data_json) if msg.data_json else {})


# ---- random answers ----------------------------------------------------------------------------------

def _s(rng: random.Random) -> str:
    return rng.choice(["", "a", "src/flask/app.py", "ünï \"q\"", "x" * 300])


def _scalar(rng: random.Random):
    return rng.choice([_s(rng), rng.randrange(-5, 10 ** 6), 0.5, 3.0, 2.0 ** 60, 2 ** 53 + 1, True, False, None])


def _item(rng: random.Random) -> Item:
    notes = []
    for _ in range(rng.choice([0, 0, 1, 2, 5])):
        note = {k: v for k, v in (("id", _s(rng)), ("kind", "fix"), ("age_days", rng.choice([3, 2.5, 0.0, True])),
                                  ("author", _s(rng)), ("trust", "mined"), ("stale", rng.random() < 0.5),
                                  ("line", _s(rng)), ("tokens", rng.randrange(90)), ("extra", [1, None]),
                                  ("session", 7)) if rng.random() < 0.6}
        notes.append(note)
    prov = rng.choice([{}, {k: _scalar(rng) for k in ("source", "author", "authenticated", "commit", "written_at")},
                       {"n": {"deep": [1, "x", None]}, "s": "y"}, {"tags": {"b", "a"}}, {1: "int key"}])
    return Item(id=_s(rng), kind=rng.choice(["function", "file", "fix"]), path=_s(rng), name=_s(rng),
                qualname=_s(rng), level=rng.choice(["", "summary", "api"]), text=_s(rng), tokens=rng.randrange(500),
                score=rng.choice([None, 0.0, 0.140487, -1.5]), language=_s(rng), start_line=rng.randrange(3000),
                end_line=rng.randrange(3000), edge=rng.choice(["", "cochange"]), direction=rng.choice(["", "out"]),
                warnings=rng.choice([[], ["stale note"], ["a", "b"]]),
                meta=rng.choice([{}, {"support": "5", "lift": 33.6, "notes_more": True}]), provenance=prov,
                trust=rng.choice(["", "mined"]), why=_s(rng), notes=notes, repo=rng.choice(["", "flask"]))


def _response(rng: random.Random) -> Response:
    env = Envelope(returned=rng.randrange(30), total=rng.randrange(10 ** 6), total_is_lower_bound=rng.random() < .5,
                   page=rng.randrange(5), pages=rng.randrange(5), has_more=rng.random() < .5,
                   next_page_token=_s(rng), tokens_returned=rng.randrange(10 ** 4),
                   budget=Budget(rng.randrange(10 ** 9), rng.randrange(10 ** 4), rng.randrange(10 ** 9)),
                   evictions=[Eviction(_s(rng), "full", "cold", rng.randrange(900), "budget", _s(rng))
                              for _ in range(rng.choice([0, 0, 1, 3]))],
                   next_hint=_s(rng), version=rng.randrange(9), warnings=rng.choice([[], ["w"]]),
                   commit=_s(rng), commits=rng.choice([{}, {"flask": "a" * 40, "lib": ""}]), stale=rng.random() < .5)
    return Response(envelope=env, items=[_item(rng) for _ in range(rng.randrange(12))],
                    data=rng.choice([{}, {"session": "s1", "n": [1, 2]}]))


def test_fast_paths_equal_the_keyword_forms_both_ways():
    rng = random.Random(10)
    for _ in range(400):
        resp = _response(rng)
        fast = convert.response_to_proto(resp, pb.SearchResponse)
        ref = pb.SearchResponse(envelope=_ref_envelope(resp.envelope), items=[_ref_item(it) for it in resp.items],
                                data_json=convert.dumps(resp.data))
        assert fast.SerializeToString(deterministic=True) == ref.SerializeToString(deterministic=True)
        wire = pb.SearchResponse.FromString(ref.SerializeToString())
        assert convert.response_from_proto(wire) == _ref_decode(wire)


def test_a_plain_provenance_never_leaves_keys_of_a_value_it_could_not_take():
    msg = pb.Item()
    convert._fill_struct(msg.provenance, {"a": "x", "b": {"c": 1}, "d": 2})    # falls back at "b"
    assert convert._struct(msg.provenance) == {"a": "x", "b": {"c": 1}, "d": 2}
