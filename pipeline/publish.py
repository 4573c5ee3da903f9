"""A run's last step: the new version goes live (the manifest switch), the merged delta-log segments
are retired and old versions pruned, inside the ``PUBLISHING`` window; or, for a run that fails or
is stopped before it, what it wrote is removed (``one_run``).

A signal that lands in that window is for a run already done: the CLI's stop handler records it
and the run reports ok (raised there, the report said "interrupted" of a version that was live, a
probe). Its own module because the window is what the CLI's handler reads, not the job's detail.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import threading
import time
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Iterator

from pipeline.report import RunReport
from stratum.store import Manifest, Store

PUBLISHING = threading.Event()
PUBLISHED = threading.Event()   # set once a run's version is live (cleared by whoever starts a run and reads it)


def go_live(store: Store, manifest: Manifest, merged_ids: list[str], keep: int, rep: RunReport) -> None:
    """Publish ``manifest``, retire the merged log, prune to ``keep`` versions (0: keep all)."""
    from pipeline import stages

    PUBLISHING.set()
    try:
        store.publish(manifest)
        PUBLISHED.set()
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


@contextmanager
def one_run(store: Store) -> Iterator["Unpublished"]:
    """The store's writer lock for one index run. A run that fails or is stopped (an error, a full
    disk, a signal) leaves nothing it did not publish: under the lock, its Lance versions, its warm
    folder and its manifest copy go (``Unpublished.discard``); once the lock is let go, a store
    folder the run made and left holding only its lock goes too (``drop_empty_store``). A first
    run stopped for space had left 20 MB of data and indexes beside the lock, and the next
    repositories of a nightly run on that volume failed for space too (an operations probe)."""
    left = Unpublished(store)
    try:
        with store.writer_lock():
            try:
                yield left
            except BaseException:
                left.discard()
                raise
    except BaseException:
        if left.made:
            drop_empty_store(store.root)
        raise


class Unpublished:
    """What one run writes before its publish. ``writing(version)`` is called before its first
    write: the Lance versions each dataset has then are the ones the run must leave."""

    def __init__(self, store: Store):
        self.store = store
        self.made = not os.path.lexists(store.root)        # this run makes the folder (its first run)
        self.version: int | None = None
        self.heads: dict[str, int] = {}

    def writing(self, version: int) -> None:
        self.version = version
        self.heads = {d.name: _newest(d) for d in _datasets(self.store)}

    def discard(self) -> None:
        """Remove what the run wrote, unless its version went live (what failed came after). Best
        effort: the run's own error is what its caller sees, so a step that fails here is skipped."""
        root = self.store.root
        if self.version is not None:
            if _live_version(root) == self.version:
                return
            shutil.rmtree(self.store.index_dir(self.version), ignore_errors=True)
            with contextlib.suppress(OSError):
                (root / "manifests" / f"{self.version:06d}.json").unlink(missing_ok=True)
            for d in _datasets(self.store):
                _drop_newer(d, self.heads.get(d.name))
        if self.made:                   # its first run: what it made besides the lock (notes stay)
            with contextlib.suppress(OSError):
                if (root / ".gitignore").read_text().startswith("# a Stratum store"):
                    (root / ".gitignore").unlink()
            for sub in ("readers", "indexes", "manifests", self.store.data_dir.name):
                with contextlib.suppress(OSError):
                    (root / sub).rmdir()            # only if empty


def _datasets(store: Store) -> list[Path]:
    return sorted(store.data_dir.glob("*.lance")) if store.data_dir.is_dir() else []


_U64 = (1 << 64) - 1


def _lance_version(name: str) -> int | None:
    """The version a Lance ``_versions/`` file name holds (``{v}.manifest``, or ``{2**64-1-v}``
    in Lance's newer naming), else None."""
    stem, dot, ext = name.partition(".")
    if ext != "manifest" or not stem.isdigit():
        return None
    n = int(stem)
    return _U64 - n if n > 1 << 63 else n


def _newest(dataset: Path) -> int:
    """The dataset's newest Lance version by its ``_versions/`` files (a listing: no Lance open)."""
    try:
        names = os.listdir(dataset / "_versions")
    except OSError:
        return 0
    return max((v for v in map(_lance_version, names) if v is not None), default=0)


def _drop_newer(dataset: Path, head: int | None) -> None:
    """Drop the dataset's versions newer than ``head`` (the whole dataset when the run made it) and
    the data files no version left references (a write cut short by a full disk leaves some)."""
    import lance

    if not head:
        shutil.rmtree(dataset, ignore_errors=True)
        return
    versions, txns = dataset / "_versions", dataset / "_transactions"
    newer = [n for n in os.listdir(versions) if (_lance_version(n) or 0) > head] if versions.is_dir() else []
    for n in newer:
        (versions / n).unlink(missing_ok=True)
    if newer:       # it names a version now gone: Lance reads the listing without it
        (versions / "latest_version_hint.json").unlink(missing_ok=True)
    for n in os.listdir(txns) if txns.is_dir() else ():
        read = n.partition("-")[0]      # a version's transaction is named by the version it was made on
        if read.isdigit() and int(read) >= head:
            (txns / n).unlink(missing_ok=True)
    try:            # no version is that old: only the files no version references go
        lance.dataset(str(dataset)).cleanup_old_versions(older_than=timedelta(days=36500), delete_unverified=True,
                                                          error_if_tagged_old_versions=False)
    except Exception:  # noqa: BLE001 - housekeeping after a failed run: the run's own error is raised
        pass


def _live_version(root: Path) -> int | None:
    try:
        return int(json.loads((root / "manifest.json").read_text())["version"])
    except (OSError, ValueError, TypeError, KeyError):
        return None


def drop_empty_store(store: str | os.PathLike) -> None:
    """Remove a store folder a failed first run left holding only its writer ``lock`` (a stray
    ``stores/<name>/`` that took the name from the repository's next, working run). Call it only
    for a folder that run made: anything else in it, or a folder that was there, stays."""
    try:
        fd = os.open(os.path.join(store, "lock"), os.O_RDWR)
    except OSError:                     # gone already, or never made: nothing to drop
        return
    try:
        # under the writer lock: a run that failed because another holds it must not unlink that
        # run's lock and folder (a third run could then take the lock beside it: a review)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.listdir(store) == ["lock"]:
            os.unlink(os.path.join(store, "lock"))
            os.rmdir(store)
    except OSError:                     # another run holds it, or came in: leave it as it is
        pass
    finally:
        os.close(fd)


__all__ = ["PUBLISHING", "PUBLISHED", "go_live", "one_run", "Unpublished", "drop_empty_store"]
