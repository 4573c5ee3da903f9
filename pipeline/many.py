"""Many repositories in one job: one isolated outcome each, concurrently on a Ray cluster (one task
per repository, its stages in-process on its worker) or one after another here, into one report
a stopped caller still holds (org-wide nightly indexing, `stratum index A B C`).

Why apart from ``pipeline.job``: that module runs one repository's stages; this one decides where
each repository runs and keeps the run's account (what finished, what failed, what never ran).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import Callable

from pipeline.job import Progress, _noop, choose_engine, ensure_ray, index_repository
from pipeline.report import MultiReport, RepoOutcome
from stratum.config import IndexConfig
from stratum.errors import StratumError


def _index_one(repo: str, store: str, cfg: IndexConfig) -> RepoOutcome:
    """One repository of a multi-repository job. Its failure is its outcome, never the job's:
    this is the job's isolation boundary per repository."""
    t = time.perf_counter()
    try:
        rep = index_repository(repo, store, cfg)
        return RepoOutcome(repo, store, time.perf_counter() - t, report=rep.to_dict(), root=rep.repo)
    except StratumError as e:
        err = {"code": e.code, "type": type(e).__name__, "message": e.message}
    except Exception as e:  # noqa: BLE001 - recorded as this repository's error, with its type
        err = {"code": "internal", "type": type(e).__name__, "message": f"{type(e).__name__}: {e}"}
    return RepoOutcome(repo, store, time.perf_counter() - t, error=err)


def index_many(targets: list[tuple[str, str]], config: IndexConfig | None = None,
               progress: Progress | None = None, *, into: MultiReport | None = None,
               on_outcome: Callable[[MultiReport, RepoOutcome], None] | None = None) -> MultiReport:
    """Index several repositories, each ``(repo path, store path)``, concurrently on Ray (one task
    per repository, each running its stages in-process on its worker) when a cluster is named or
    ``--ray`` is given; else one after another in this process. One summary report.

    ``into``: the report to fill (``MultiReport.listing(targets)``): a caller stopped half-way (a
    signal) still holds what finished. ``on_outcome(report, outcome)`` is called as each repository
    finishes (a log line, the report file rewritten). A job that cannot start (no cluster answers)
    returns with ``error`` set and every repository ``not_run``; it never raises for that.

    Listings of one store (a repository and a folder of it, or one repository twice: stores are
    keyed on the top level) are indexed once, by the first of them, and each gets its outcome: two
    tasks on one store at once had failed the second ("another index run holds ... lock")."""
    cfg = config or IndexConfig()
    progress = progress or _noop
    t0 = time.perf_counter()
    out = into if into is not None else MultiReport.listing(targets)
    kind, why = choose_engine(cfg, 0)
    if kind != "ray" and cfg.ray is None:     # not a size decision here: say what decides it
        why = "one after another: no cluster named (--ray-address, RAY_ADDRESS) and no --ray"
    out.engine = f"{kind} ({why})"
    inner = replace(cfg, ray=False) if kind == "ray" else cfg   # on Ray: each task runs its stages in-process

    group: dict[str, list[int]] = {}       # a store -> its listings, the first of them indexes it
    for i, (_, store) in enumerate(targets):
        group.setdefault(os.path.realpath(store), []).append(i)
    runs = list(group.values())
    done = 0

    def finish(ks: list[int], outcome: RepoOutcome) -> None:
        nonlocal done
        for k in ks:
            out.outcomes[k] = outcome if k == ks[0] else replace(outcome, repo=targets[k][0])
            done += 1
            out.seconds = time.perf_counter() - t0
            # the count first: a signal right after a line finds it counted; but the last count ends
            # the stage ("done"), so it follows its line (which came after "done"; the CLI counts it
            # if a signal lands between)
            last = done == len(targets)
            if not last:
                progress("repositories", done, len(targets))
            if on_outcome is not None:
                on_outcome(out, out.outcomes[k])
            if last:
                progress("repositories", done, len(targets))

    if kind == "ray":
        try:
            ray = ensure_ray(cfg)
        except StratumError as e:            # nothing ran: the report says why, each repository not_run
            out.error = {"code": e.code, "type": type(e).__name__, "message": e.message}
            out.seconds, out.finished = time.perf_counter() - t0, True
            return out
        progress("repositories", 0, len(targets))
        remote = ray.remote(num_cpus=1)(_index_one)
        refs = {remote.remote(*targets[ks[0]], inner): ks for ks in runs}
        for o in out.outcomes:
            o.state = "running"
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                ks = refs[r]
                try:
                    got = ray.get(r)
                except ray.exceptions.RayError as e:   # the worker died (OOM, node lost)
                    got = RepoOutcome(*targets[ks[0]], error={"code": "internal", "type": type(e).__name__,
                                                              "message": str(e).splitlines()[0][:300]})
                finish(ks, got)
    else:
        progress("repositories", 0, len(targets))
        for ks in runs:
            for k in ks:
                out.outcomes[k].state = "running"
            finish(ks, _index_one(*targets[ks[0]], inner))
    out.seconds, out.finished = time.perf_counter() - t0, True
    return out


__all__ = ["index_many"]
