"""What the traceback tests read of a search answer (shared by tests/integration/test_*tbframes*.py)."""

from __future__ import annotations

from stratum.tracebacks import FRAME_WHY


def frame_items(items) -> list[tuple[str, str]]:
    """(path::qualname, why) of the items a traceback frame put first, in the answer's order (a
    file's item: its path), the why cut at its first reason."""
    return [(f"{i.path}::{i.qualname}" if i.qualname else i.path, i.why.split(";")[0])
            for i in items if i.why.startswith(FRAME_WHY)]
