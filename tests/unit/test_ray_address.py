"""A named Ray cluster that is not there is a clear, quick error (Ray's own join retried for ~14
minutes, then said only "ConnectionError")."""

from __future__ import annotations

import socket
import time

import pytest

from pipeline.job import ensure_ray
from stratum.config import IndexConfig
from stratum.errors import Unavailable


def test_nothing_listening_at_the_address_is_said_at_once():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                                   # a port nothing listens on
    started = time.monotonic()
    with pytest.raises(Unavailable, match=f"no Ray cluster answers at 127.0.0.1:{port}.*RAY_ADDRESS"):
        ensure_ray(IndexConfig(ray_address=f"127.0.0.1:{port}"))
    assert time.monotonic() - started < 10


def test_a_malformed_address_names_itself():
    with pytest.raises(Unavailable, match="cannot join the Ray cluster at 'nonsense'"):
        ensure_ray(IndexConfig(ray_address="nonsense"))
