"""Which engine a run takes, and a bad STRATUM_RAY_OBJECT_STORE, decided without starting Ray."""

from __future__ import annotations

import pytest

from pipeline.job import choose_engine, object_store_bytes
from stratum.config import IndexConfig
from stratum.errors import InvalidArgument

pytestmark = pytest.mark.xdist_group("ray")   # a local Ray cluster: one worker starts them, in turn (tests/conftest.py)

BIG = 64 << 20          # over IndexConfig.ray_min_parse_bytes (24 MiB)


def test_large_work_with_one_cpu_for_a_local_ray_stays_in_process(monkeypatch):
    """One worker parses no faster than this process: the ~5 s start would buy nothing."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    kind, why = choose_engine(IndexConfig(num_cpus=1), BIG)
    assert kind == "in-process" and "1 CPU" in why, why
    assert choose_engine(IndexConfig(num_cpus=2), BIG)[0] == "ray"
    assert choose_engine(IndexConfig(num_cpus=1, ray=True), BIG) == ("ray", "--ray")   # asked for: asked for


def test_a_named_cluster_is_the_reason_even_with_ray(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert choose_engine(IndexConfig(ray=True, ray_address="10.0.0.5:6379"), 0) == ("ray", "--ray-address 10.0.0.5:6379")
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.6:6379")
    assert choose_engine(IndexConfig(num_cpus=1), 0) == ("ray", "RAY_ADDRESS=10.0.0.6:6379")


@pytest.mark.parametrize("value", ["1000", "78643199", "2e8", "-5"])
def test_an_object_store_below_rays_minimum_is_refused_naming_it(monkeypatch, value):
    monkeypatch.setenv("STRATUM_RAY_OBJECT_STORE", value)
    with pytest.raises(InvalidArgument, match="at least 78643200"):
        object_store_bytes()


def test_the_object_store_default_and_minimum_are_taken(monkeypatch):
    monkeypatch.delenv("STRATUM_RAY_OBJECT_STORE", raising=False)
    assert object_store_bytes() == 256 << 20
    monkeypatch.setenv("STRATUM_RAY_OBJECT_STORE", "78643200")
    assert object_store_bytes() == 78643200
