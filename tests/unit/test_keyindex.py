"""KeyIndex: hashed string lookups that must behave like the dicts they replaced."""

import numpy as np
import pyarrow as pa
import pytest

from stratum.keyindex import Column, KeyIndex


def test_lookup_matches_a_dict_with_first_row_winning():
    keys = ["a.py", "b.py", "a.py", None, "", "c/d.py"]
    idx = KeyIndex(pa.array(keys))
    expect: dict = {}
    for i, k in enumerate(keys):
        if k is not None:
            expect.setdefault(k, i)
    for k, row in expect.items():
        assert idx.get(k) == row and idx[k] == row and k in idx
    assert idx.get("missing.py") is None and "missing.py" not in idx
    assert idx.get(None) is None
    with pytest.raises(KeyError):
        idx["missing.py"]
    assert len(idx) == 5


def test_explicit_rows_and_many_keys():
    n = 50_000
    keys = pa.array([f"src/mod{i % 20_000}.py" for i in range(n)])
    rows = np.arange(n, dtype=np.int64)[::-1].copy()        # later positions stand for smaller rows
    idx = KeyIndex(keys, rows)
    assert idx.get("src/mod5.py") == rows[40_005]           # the smallest row holding the key
    assert idx.get("src/mod19999.py") == rows[39_999]


def test_large_string_and_chunked_input():
    chunked = pa.chunked_array([pa.array(["x", "y"], pa.large_string()), pa.array(["z"], pa.large_string())])
    idx = KeyIndex(chunked)
    assert [idx.get(k) for k in "xyz"] == [0, 1, 2]


def test_column_view():
    col = Column(pa.chunked_array([pa.array(["a", None]), pa.array(["c"])]))
    assert len(col) == 3 and col[0] == "a" and col[1] is None and col[2] == "c"
    assert list(col) == ["a", None, "c"]


def test_one_key_hashes_as_in_a_column():
    from stratum.keyindex import hash_key, hash_keys

    keys = ["", "a", "src/ünïcode/модуль.py", "x" * 5000, "node::Cls.method"]
    arr = pa.array(["pad"] + keys).slice(1)          # a sliced array: offsets start mid-buffer
    assert [int(h) for h in hash_keys(arr)] == [int(hash_key(k)) for k in keys]
    assert len({int(h) for h in hash_keys(arr)}) == len(keys)


def test_a_key_with_a_lone_surrogate_is_not_found_not_an_error():
    """A command-line byte that is not UTF-8 arrives as one ("caf\\xe9" -> "caf\\udce9"): `get` and
    `remember --about` failed with a UnicodeEncodeError instead of "unknown target"."""
    idx = KeyIndex(pa.array(["caf\u00e9.py", "caf\ufffd.py", "x"]))
    assert idx.get("caf\udce9.py") is None and "caf\udce9.py" not in idx and idx.get("\ud800") is None
    assert idx.get("caf\u00e9.py") == 0


def test_get_many_agrees_with_get():
    keys = [f"id{i % 700}" for i in range(1000)] + [None]
    idx = KeyIndex(pa.array(keys))
    asked = pa.array(["id5", "nope", None, "id699", "id0", "id5"])
    assert idx.get_many(asked).tolist() == [5, -1, -1, 699, 0, 5]
    assert idx.get_many(pa.array([], pa.string())).tolist() == []


def test_colliding_hashes_still_find_the_right_rows(monkeypatch):
    import stratum.keyindex as K

    monkeypatch.setattr(K, "hash_keys", lambda keys: np.zeros(len(keys), np.uint64))
    monkeypatch.setattr(K, "hash_key", lambda key: np.uint64(0))
    idx = KeyIndex(pa.array(["b", "a", "c", "a"]))
    assert [idx.get(k) for k in "abcd"] == [1, 0, 2, None]
    assert idx.get_many(pa.array(["c", "a", "d", "b"])).tolist() == [2, 1, -1, 0]


@pytest.mark.parametrize("values, form", [
    ([f"src/d{i % 7}/f.py" if i % 11 else None for i in range(400)], "codes"),   # repeated: numpy codes
    ([f"p{(i * 37) % 30}" for i in range(400)], "codes"),          # 30 values, none twice in a row: codes
    ([f"id-{i}" if i % 13 else None for i in range(400)], "arrow"),  # distinct: stays Arrow, never encoded
    ([f"n{i % 3}" for i in range(40)], "list"),                     # small: a Python list
])
def test_column_reads_equal_arrow_in_every_representation(monkeypatch, values, form):
    import pyarrow.compute as pc

    monkeypatch.setattr(Column, "LIST_ROWS", 100)
    monkeypatch.setattr(Column, "SAMPLE_ROWS", 64)
    encoded = []
    real = pc.dictionary_encode
    monkeypatch.setattr(pc, "dictionary_encode", lambda a: (encoded.append(1), real(a))[1])
    arr = pa.array(values)
    for col in (Column(arr), Column(pa.chunked_array([arr.slice(0, 17), arr.slice(17)]))):
        assert [col.peek(i) for i in range(len(values))] == values       # peek: before any preparing
        assert not col._tried
        assert [col[i] for i in range(len(values))] == values
        rows = [len(values) - 1, 0, 5, 5, 11]
        assert col.take(rows) == [values[r] for r in rows]
        assert [col.peek(r) for r in rows] == [values[r] for r in rows]
        for v in (values[1], values[0], "absent", None):
            assert col.equals(rows, v).tolist() == [values[r] == v for r in rows]
        assert list(col) == values
        got = "codes" if col._codes is not None else "list" if col._list is not None else "arrow"
        assert got == form
    assert bool(encoded) == (form == "codes")           # a near-unique column is not encoded at all
