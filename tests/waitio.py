"""Waiting for a child's output with a timeout, at any descriptor number.

``select.select`` refuses a descriptor of 1024 or more ("filedescriptor out of range"): a pytest
worker that has opened many stores reaches that (the clean-clone run at f2b6740 failed so in
test_experience_e2e); ``selectors`` (epoll/poll) has no such bound.
"""

from __future__ import annotations

import selectors


def readable(stream, timeout: float) -> bool:
    """Whether ``stream`` has something to read (or is at its end) within ``timeout`` seconds."""
    with selectors.DefaultSelector() as sel:
        sel.register(stream, selectors.EVENT_READ)
        return bool(sel.select(timeout))
