"""Record ids of the delta log: 26-character, time-ordered, unique within a process (a ULID's
layout: 48 bits of Unix milliseconds, 80 random bits counted up within a millisecond), and the
seam that makes them one fixed sequence for benchmarks that compare runs (``reproducible_uids``).

Why apart from ``deltalog``: ids are minted and read by their own rules (note ids derive from
them, ``ids.note_id``); the log only stores them.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from contextlib import contextmanager
from random import Random
from typing import Callable, Iterator

from stratum.errors import InvalidArgument

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_uid_lock = threading.Lock()
_uid_last = [0, 0]                              # last (ms, random) handed out in this process


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


_clock_ms: Callable[[], int] = _wall_ms          # the sources of ids: swapped only by reproducible_uids
_randbits: Callable[[int], int] = secrets.randbits


def _reset_uid_state() -> None:
    global _uid_lock
    _uid_lock = threading.Lock()
    _uid_last[0] = _uid_last[1] = 0


os.register_at_fork(after_in_child=_reset_uid_state)


def new_uid() -> str:
    """A 26-char, time-ordered, unique record id (ULID layout), monotonic within a process."""
    return uid_str(_new_uid_int())


def _new_uid_int() -> int:
    with _uid_lock:
        ms = _clock_ms()
        if ms <= _uid_last[0]:                  # same millisecond (or clock stepped back): count up
            ms, rnd = _uid_last[0], _uid_last[1] + 1
            if rnd >= 1 << 80:
                ms, rnd = ms + 1, _randbits(79)
        else:
            rnd = _randbits(79)                 # leaves room to count up within the millisecond
        _uid_last[0], _uid_last[1] = ms, rnd
    return (ms << 80) | rnd


@contextmanager
def reproducible_uids(seed: int, start_ms: int) -> Iterator[None]:
    """Within the block, the record ids this process hands out are one fixed sequence: times
    ``start_ms`` (Unix ms, in the past: ids after the block come after it), ``start_ms + 1``, ...,
    random parts drawn from ``seed``. For benchmarks that compare runs (a note's id is its
    record's, and ids order merged notes and break ties); never for serving: two writers with one
    seed would make the same ids. One writing thread gives one sequence; several share it in the
    order they append."""
    global _clock_ms, _randbits
    if start_ms > _wall_ms():
        raise InvalidArgument("reproducible_uids: start_ms must be a time in the past")
    ticks, rng = iter(range(start_ms, 1 << 48)), Random(seed)
    with _uid_lock:
        saved = _clock_ms, _randbits, list(_uid_last)
        _clock_ms, _randbits = ticks.__next__, rng.getrandbits
        _uid_last[0] = _uid_last[1] = 0
    try:
        yield
    finally:
        with _uid_lock:
            _clock_ms, _randbits = saved[0], saved[1]
            if saved[2] > _uid_last:             # ids after the block come after every earlier one
                _uid_last[:] = saved[2]


_PAIRS = [a + b for a in _CROCKFORD for b in _CROCKFORD]      # 10 bits -> two characters


def uid_str(n: int) -> str:
    """26 Crockford base32 characters, 10 bits at a time (reading a log of 10,000 records spent
    a fifth of its time here one character at a time)."""
    return "".join([_PAIRS[(n >> shift) & 1023] for shift in range(120, -1, -10)])


def uid_int(s: str) -> int:
    n = 0
    for ch in s:
        n = (n << 5) | _CROCKFORD.index(ch)
    return n


def uid_time(uid: str) -> float:
    """The Unix time (seconds) encoded in a record id."""
    return (uid_int(uid) >> 80) / 1000.0


__all__ = ["new_uid", "uid_time", "uid_int", "uid_str", "reproducible_uids"]
