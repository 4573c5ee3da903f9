"""The unit layer cannot touch the heavy world: starting Ray here is a bug in the test."""

import pytest


@pytest.fixture(autouse=True)
def _no_ray(monkeypatch):
    try:
        import ray
    except ImportError:
        return

    def refuse(*a, **k):
        raise RuntimeError("unit tests must not start Ray; put this test in tests/integration")

    monkeypatch.setattr(ray, "init", refuse)
