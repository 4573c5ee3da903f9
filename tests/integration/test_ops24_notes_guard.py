"""`stratum notes retract` and `notes confirm` write to a store only while it has its manifest, as
`stratum remember` does. They refused a missing store folder only: with manifest.json gone (a store
moved or deleted under us, its delta log left) a retract was acknowledged into the left-over log."""

from __future__ import annotations

import pytest

from stratum import notes as N
from stratum.deltalog import DeltaLog
from stratum.errors import StoreDamaged
from stratum.tools import Tools
from stratum.config import default_store_path
from tests.clirun import indexed_repo, run

FILES = {"shop/pricing.py": "def discount(total):\n    return total\n"}


@pytest.fixture()
def store(tmp_path):
    """A store holding two unmerged notes: one by agent, one by mallory. (store path, their ids)"""
    _repo, store = indexed_repo(tmp_path / "r", FILES)
    t = Tools.open([store])
    try:
        ids = []
        for author in ("agent", "mallory"):
            sid = t.open_session(author=author).data["session"]
            ids.append(t.remember(sid, "insight", f"discount note by {author}", ["shop/pricing.py::discount"])
                       .data["note_id"])
    finally:
        t.close()
    return store, ids


def _records(store: str) -> int:
    return len(DeltaLog(f"{store}/deltalog").scan().records)


def test_retract_and_confirm_refuse_a_store_without_its_manifest_as_remember_does(store, tmp_path, capsys):
    root, (mine, theirs) = store
    manifest = default_store_path(tmp_path / "r") / "manifest.json"
    text = manifest.read_text()
    manifest.unlink()
    before = _records(root)
    said = run(capsys, "remember", "insight", "written with the manifest gone",
               "--about", "shop/pricing.py::discount", "--store", root)
    assert said[0] == 2 and f"no index at {root}" in said[2], said
    for argv in (("notes", "retract", mine), ("notes", "confirm", theirs), ("notes", "retract", "--all-by", "mallory")):
        got = run(capsys, *argv, "--store", root)
        assert got == said, (argv, got)
    assert _records(root) == before                       # nothing written

    manifest.write_text(text)                               # the store back: both notes still stand
    rc, out, err = run(capsys, "notes", "list", "--status", "active", "--store", root)
    assert rc == 0 and out.count("discount note by") == 2, (out, err)


def test_a_manifest_gone_after_the_notes_were_read_refuses_the_write(store, tmp_path):
    """The log the commands write through carries the guard every surface's note writes do: a
    manifest removed between reading the notes and appending is refused, nothing written."""
    from stratum.cli.notes import _View

    root, (mine, _theirs) = store
    v = _View(root)
    (default_store_path(tmp_path / "r") / "manifest.json").unlink()
    before = _records(root)
    with pytest.raises(StoreDamaged, match="unavailable.*nothing was written"):
        N.retract_once(v.log, mine, notes_now=v.notes_now, author="os:me", reason="", maintainer=True)
    with pytest.raises(StoreDamaged, match="unavailable"):
        N.write_confirm(v.log, mine, author="os:me", known=v.notes, maintainer=True)
    assert _records(root) == before
