"""stratum.npyio reads what np.save wrote, like np.load, from several threads at once."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from stratum import npyio

ARRAYS = [np.arange(12, dtype=np.int32).reshape(3, 4), np.zeros((0, 384), np.float16),
          np.asfortranarray(np.random.default_rng(1).random((5, 3))), np.array(3.5), np.array([True, False])]


@pytest.mark.parametrize("k", range(len(ARRAYS)))
@pytest.mark.parametrize("mmap", [None, "r"])
def test_it_reads_what_np_load_reads(tmp_path, k, mmap):
    p = tmp_path / "a.npy"
    np.save(p, ARRAYS[k])
    got, want = npyio.load(p, mmap), np.load(p, mmap_mode=mmap)
    assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(np.asarray(got), np.asarray(want))


def test_a_cut_file_is_an_error_not_a_short_array(tmp_path):
    p = tmp_path / "a.npy"
    np.save(p, np.arange(1000, dtype=np.int64))
    p.write_bytes(p.read_bytes()[:-80])
    with pytest.raises(ValueError, match="cut short"):
        npyio.load(p)


def most_inside(monkeypatch, owner, name: str, work, threads: int = 8) -> tuple[int, list[str]]:
    """The most threads at once inside ``owner.name`` (made to wait 2 ms inside, so unlocked
    calls overlap) while ``threads`` threads run ``work(k, bad)``; and what they put in ``bad``."""
    import time

    inside, most, guard = [0], [0], threading.Lock()
    real = getattr(owner, name)

    def slow(*a, **kw):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            time.sleep(0.002)
            return real(*a, **kw)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(owner, name, slow)
    bad: list[str] = []
    ts = [threading.Thread(target=work, args=(k, bad)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    monkeypatch.setattr(owner, name, real)
    return most[0], bad


def saved(tmp_path, n: int) -> list:
    """``n`` .npy files, file k holding k in a (50, 4) int32 array."""
    paths = []
    for k in range(n):
        p = tmp_path / f"a{k}.npy"
        np.save(p, np.full((50, 4), k, np.int32))
        paths.append(p)
    return paths


def test_threads_parse_headers_one_at_a_time(tmp_path, monkeypatch):
    """The header parse (numpy's ast.literal_eval) never runs in two threads at once."""
    from numpy.lib import format as npf

    paths = saved(tmp_path, 8)

    def read(k: int, bad: list[str]) -> None:
        for _ in range(10):
            a = npyio.load(paths[k])
            if a.shape != (50, 4) or int(a[0, 0]) != k:
                bad.append(f"{k}: {a.shape}")

    most, bad = most_inside(monkeypatch, npf, "read_array_header_1_0", read)
    assert not bad and most == 1


LITERALS = ['"""Doc.\\n\\n    More."""', "r'raw \\\\d'", "b'bytes'", "u'\\u00e9t\\u00e9'", "(1, [2.5, None], {'a': True})"]


@pytest.mark.parametrize("text", LITERALS + ["f'{x}'", "name", "1 +", "'unterminated"])
def test_literal_eval_gives_ast_literal_evals_value_or_error(text):
    import ast

    try:
        want: object = ast.literal_eval(text)
    except Exception as e:      # noqa: BLE001 - the same type must come out of ours
        with pytest.raises(type(e)):
            npyio.literal_eval(text)
    else:
        assert npyio.literal_eval(text) == want
    got: list = []                                          # an error left the lock free: another
    t = threading.Thread(target=lambda: got.append(npyio.literal_eval("'after'")))   # thread gets it
    t.start()
    t.join(5)
    assert got == ["after"]


def test_literals_and_headers_parse_one_at_a_time(tmp_path, monkeypatch):
    """Docstring literals (pipeline.parse) and .npy headers (the warm build's threads) share the
    one lock: no two of them are ever inside ``ast.literal_eval`` at once (numpy's header parse
    calls it too). The same threads calling ``ast.literal_eval`` directly do overlap, so the
    count would catch a missing lock."""
    import ast

    paths = saved(tmp_path, 4)
    want = [ast.literal_eval(t) for t in LITERALS]

    def through_npyio(k: int, bad: list[str]) -> None:
        for i in range(10):
            if k % 2:
                a = npyio.load(paths[k // 2], "r" if i % 2 else None)
                if a.shape != (50, 4) or int(a[0, 0]) != k // 2:
                    bad.append(f"{k}: {a.shape}")
            elif npyio.literal_eval(LITERALS[i % len(LITERALS)]) != want[i % len(LITERALS)]:
                bad.append(f"{k}: literal {i}")

    def direct(k: int, bad: list[str]) -> None:
        for i in range(10):
            ast.literal_eval(LITERALS[i % len(LITERALS)])

    most, bad = most_inside(monkeypatch, ast, "literal_eval", through_npyio)
    assert not bad and most == 1
    unlocked, _ = most_inside(monkeypatch, ast, "literal_eval", direct)
    assert unlocked > 1
