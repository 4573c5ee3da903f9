"""hooks.log stays bounded: past ``LOG_CAP`` the runner renames it to hooks.log.1 (one old generation),
and `last_run` reads both files (session 25: nothing ever trimmed it; a store indexed by its hooks at
every commit for a year grew it without end)."""

from __future__ import annotations

import os

import pytest

from pipeline import hooks

OLD = "2020-01-01T00:00:00 [post-commit] v1 published (1 files parsed, 0 reused, in-process)\n"


def filler(before_cap: int = 1) -> str:
    """Whole old lines: just past the cap (``before_cap`` 1), or under it (0)."""
    n = hooks.LOG_CAP // len(OLD) + before_cap
    return OLD * n


def test_a_log_past_the_cap_is_rotated_whole_and_one_under_it_is_left(tmp_path):
    log = tmp_path / "hooks.log"
    log.write_text(filler(0))
    assert not hooks.rotate_log(tmp_path) and log.read_text() == filler(0)
    (tmp_path / "hooks.log.1").write_text("the generation before\n")
    log.write_text(filler())
    assert hooks.rotate_log(tmp_path)
    assert not log.exists() and (tmp_path / "hooks.log.1").read_text() == filler()   # the older one went
    assert not hooks.rotate_log(tmp_path)                                             # no log: nothing to do


def test_a_folder_that_refuses_the_rotation_keeps_the_log_whole(tmp_path):
    """A read-only folder (or a hooks.log.1 that cannot be replaced) must not fail the run."""
    log = tmp_path / "hooks.log"
    log.write_text(filler())
    (tmp_path / "hooks.log.1").mkdir()
    (tmp_path / "hooks.log.1" / "x").write_text("")
    assert not hooks.rotate_log(tmp_path) and log.read_text() == filler()
    if os.geteuid() != 0:               # root renames in a read-only folder all the same
        ro = tmp_path / "ro"
        ro.mkdir()
        (ro / "hooks.log").write_text(filler())
        ro.chmod(0o555)
        try:
            assert not hooks.rotate_log(ro) and (ro / "hooks.log").read_text() == filler()
        finally:
            ro.chmod(0o755)


@pytest.mark.parametrize("old, new, said", [
    # a run whose hook opened the log before a rotation failed into hooks.log.1, after the newest outcome here
    ("2030-01-01T00:00:09 [post-commit] hook run failed (exit 137)\n",
     "2030-01-01T00:00:05 [post-checkout] up to date at v3 (0.01s)\n"
     "2030-01-01T00:00:07 [post-commit] an index run for this store is under way; it will index again\n",
     (False, "2030-01-01T00:00:09 [post-commit] hook run failed (exit 137)")),
    # the current log's newer outcome wins, and wins a tie
    ("2030-01-01T00:00:05 [post-commit] index failed: disk full\n",
     "2030-01-01T00:00:05 [post-checkout] up to date at v3 (0.01s)\n",
     (True, "2030-01-01T00:00:05 [post-checkout] up to date at v3 (0.01s)")),
    # a fresh log with no outcome yet: the last run's is in the older generation
    ("2030-01-01T00:00:05 [post-commit] v4 published (1 files parsed, 0 reused, in-process) (0.3s)\n",
     "2030-01-01T00:00:07 [post-merge] an index run for this store is under way; it will index again\n",
     (True, "2030-01-01T00:00:05 [post-commit] v4 published (1 files parsed, 0 reused, in-process) (0.3s)")),
])
def test_the_last_run_is_the_later_stamped_outcome_of_both_generations(tmp_path, old, new, said):
    (tmp_path / "hooks.log.1").write_text(old)
    (tmp_path / "hooks.log").write_text(new)
    assert hooks.last_run(tmp_path) == said
