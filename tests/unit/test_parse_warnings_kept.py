"""A file's parse warnings stay with its node (``meta``), with the line its first syntax error starts at,
and the history settings the stored rows were read under decide whether they can be extended."""

from __future__ import annotations

import json

from pipeline.history import remine_reason
from pipeline.parse import parse_file
from stratum.config import HistoryConfig


def _meta(path: str, data: bytes) -> dict:
    return json.loads(parse_file("r", path, data).nodes[0].get("meta") or "{}")


def test_the_file_node_keeps_its_warnings_and_first_error_line():
    m = _meta("b.py", b"def good():\n    return 1\n\ndef bad(:\n    return 2\n")
    assert m["warnings"] == ["syntax_error"] and m["syntax_error_line"] == 4
    assert _meta("c.py", b"x = 1\ny = (2\n")["syntax_error_line"] == 2
    assert _meta("ok.py", b"def f():\n    return g()\n").get("warnings") is None
    assert _meta("notes.txt", b"caf\xe9\n") == {"warnings": ["invalid_utf8"]}       # not parsed, still said


def test_history_rows_are_extended_only_under_the_settings_they_were_read_under():
    cfg = HistoryConfig()
    assert remine_reason({"skip_merges": True, "line_counts": True}, cfg) == ""
    why = remine_reason({"skip_merges": True, "line_counts": True}, HistoryConfig(line_counts=False))
    assert why.startswith("history re-mined in full: line_counts True -> False")
    assert "did not record" in remine_reason(None, cfg)          # a report from before the record: once
