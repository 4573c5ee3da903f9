"""A run's last step: the new version goes live (the manifest switch), the merged delta-log segments
are retired and old versions pruned, inside the ``PUBLISHING`` window.

A signal that lands in that window is for a run already done: the CLI's stop handler records it
and the run reports ok (raised there, the report said "interrupted" of a version that was live, a
probe). Its own module because the window is what the CLI's handler reads, not the job's detail.
"""

from __future__ import annotations

import threading
import time

from pipeline.report import RunReport
from stratum.store import Manifest, Store

PUBLISHING = threading.Event()


def go_live(store: Store, manifest: Manifest, merged_ids: list[str], keep: int, rep: RunReport) -> None:
    """Publish ``manifest``, retire the merged log, prune to ``keep`` versions (0: keep all)."""
    from pipeline import stages

    PUBLISHING.set()
    try:
        store.publish(manifest)
        stages.retire_log(store, merged_ids)
        if keep > 0:
            _prune(store, keep, rep)
    finally:
        PUBLISHING.clear()


def _prune(store: Store, keep: int, rep: RunReport) -> None:
    """Old versions no reader holds go after a publish; a failure to prune never fails the run
    (the new version is published; ``stratum repair --prune`` retries)."""
    t0 = time.perf_counter()
    try:
        gone = store.prune(keep, locked=True)
    except Exception as e:   # noqa: BLE001 - disk housekeeping must not undo a published index
        rep.messages.append(f"pruning old versions failed ({type(e).__name__}: {str(e)[:160]}); "
                            "run `stratum repair --prune`")
        return
    n = sum(len(v) for v in gone["lance"].values())
    if n or gone["warm"]:
        rep.messages.append(f"pruned {n} old dataset versions and {len(gone['warm'])} warm folders "
                            f"(kept versions {gone['versions']})")
    rep.seconds["prune"] = time.perf_counter() - t0


__all__ = ["PUBLISHING", "go_live"]
