"""Provenance and note extras travel as ``google.protobuf.Struct``: the direct paths (plain values
straight into ``Struct.update``, a Struct read field by field) give exactly what the JSON round
trip and ``json_format.MessageToDict`` gave."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from google.protobuf import json_format, struct_pb2

from serving import convert


def _value(rng: random.Random, depth: int = 0):
    kinds = ["str", "int", "float", "bool", "none", "big"] + (["dict", "list"] if depth < 3 else [])
    k = rng.choice(kinds)
    if k == "str":
        return rng.choice(["", "mined", "ünï", 'a"b', "2024-01-01 00:00:00+00:00"])
    if k == "int":
        return rng.randrange(-10 ** 6, 10 ** 6)
    if k == "float":
        return rng.choice([0.5, -3.25, 1e-9, 3.0, 2.0 ** 60])
    if k == "big":
        return rng.choice([2 ** 53 + 1, -(2 ** 60)])
    if k == "bool":
        return rng.random() < 0.5
    if k == "none":
        return None
    if k == "dict":
        return {f"k{i}": _value(rng, depth + 1) for i in range(rng.randrange(4))}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _old_fill(value: dict) -> bytes:
    msg = struct_pb2.Struct()
    msg.update(json.loads(convert.dumps(value)))
    return msg.SerializeToString(deterministic=True)


def test_struct_both_ways_equals_the_json_round_trip():
    rng = random.Random(1)
    for _ in range(500):
        value = {f"f{i}": _value(rng) for i in range(rng.randrange(1, 8))}
        msg = struct_pb2.Struct()
        convert._fill_struct(msg, value)
        assert msg.SerializeToString(deterministic=True) == _old_fill(value)
        back = struct_pb2.Struct.FromString(msg.SerializeToString())
        assert convert._struct(back) == convert._whole(json_format.MessageToDict(back))


def test_values_json_would_change_still_take_the_round_trip():
    value = {"n": np.int64(3), "tags": {"b", "a"}, "t": (1, 2), "f": np.float32(0.5)}
    assert not convert._plain(value)
    msg = struct_pb2.Struct()
    convert._fill_struct(msg, value)
    assert convert._struct(msg) == {"n": 3, "tags": ["a", "b"], "t": [1, 2], "f": 0.5}


def test_a_non_finite_number_fails_as_json_format_does():
    msg = struct_pb2.Struct()
    msg.update({"x": math.inf})
    with pytest.raises(ValueError, match="Infinity"):
        convert._struct(msg)
