"""Three defects the session's review found: a failed run's cleanup unlinked another run's writer
lock (a third run could then index beside it); `--report /dev/fd/N` for a descriptor not open
wrote the report into whatever later got that number; a list argument given a number or a mapping
was a TypeError (or read as the mapping's keys)."""

from __future__ import annotations

import os

import pytest

from pipeline.publish import drop_empty_store
from stratum.cli.index import report_target
from stratum.errors import InvalidArgument
from stratum.store import Store
from stratum.toolspec import check_arg


def test_a_failed_runs_cleanup_leaves_a_held_lock_and_its_folder(tmp_path):
    store = tmp_path / "st"
    with Store(store).writer_lock():            # run A holds it (its store still holds only the lock)
        drop_empty_store(store)                 # run B failed on that lock and cleans up what it "made"
        assert (store / "lock").exists()
        with pytest.raises(Exception, match="another index run holds"):
            with Store(store).writer_lock():    # a third run still waits for A
                pass
    drop_empty_store(store)                     # A gone: the lock-only folder goes
    assert not store.exists()


def test_a_report_descriptor_must_be_open_for_writing(tmp_path):
    fd = os.open(tmp_path / "r.json", os.O_WRONLY | os.O_CREAT)
    try:
        assert report_target(f"/dev/fd/{fd}") == ("fd", str(fd))
    finally:
        os.close(fd)
    with pytest.raises(InvalidArgument, match="not open"):
        report_target(f"/dev/fd/{fd}")
    ro = os.open(tmp_path / "r.json", os.O_RDONLY)
    try:
        with pytest.raises(InvalidArgument, match="reading only"):
            report_target(f"/dev/fd/{ro}")
    finally:
        os.close(ro)


@pytest.mark.parametrize("value", [5, {"a": 1}, b"x"])
def test_a_list_argument_that_is_not_a_list_is_refused(value):
    with pytest.raises(InvalidArgument, match="must be a list of strings"):
        check_arg("about", value)
