"""A write that fails leaves no temporary file in the store (a full disk filled it with
`.manifest.json.PID.N.tmp` files a probe found after each failed run)."""

from __future__ import annotations

import pytest

from stratum.store import atomic_write


def test_a_failed_atomic_write_leaves_the_file_as_it_was_and_no_temporary(tmp_path):
    target = tmp_path / "manifest.json"
    atomic_write(target, "{}")
    with pytest.raises(UnicodeEncodeError):
        atomic_write(target, "\udc80")            # not writable as UTF-8: fails mid-write
    assert target.read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]
