"""Many repositories in one job: one isolated outcome each, concurrently on a Ray cluster (one task
per repository, its stages in-process on its worker) or one after another here, into one report
a stopped caller still holds (org-wide nightly indexing, `stratum index A B C`).

Why apart from ``pipeline.job``: that module runs one repository's stages; this one decides where
each repository runs and keeps the run's account (what finished, what failed, what never ran).
"""

from __future__ import annotations

import time
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
    returns with ``error`` set and every repository ``not_run``; it never raises for that."""
    from dataclasses import replace

    cfg = config or IndexConfig()
    progress = progress or _noop
    t0 = time.perf_counter()
    out = into if into is not None else MultiReport.listing(targets)
    kind, why = choose_engine(cfg, 0)
    if kind != "ray" and cfg.ray is None:     # not a size decision here: say what decides it
        why = "one after another: no cluster named (--ray-address, RAY_ADDRESS) and no --ray"
    out.engine = f"{kind} ({why})"
    inner = replace(cfg, ray=False) if kind == "ray" else cfg   # on Ray: each task runs its stages in-process

    def finish(i: int, outcome: RepoOutcome) -> None:
        out.outcomes[i] = outcome
        out.seconds = time.perf_counter() - t0
        if on_outcome is not None:
            on_outcome(out, outcome)

    if kind == "ray":
        try:
            ray = ensure_ray(cfg)
        except StratumError as e:            # nothing ran: the report says why, each repository not_run
            out.error = {"code": e.code, "type": type(e).__name__, "message": e.message}
            out.seconds, out.finished = time.perf_counter() - t0, True
            return out
        progress("repositories", 0, len(targets))
        remote = ray.remote(num_cpus=1)(_index_one)
        refs = {remote.remote(repo, store, inner): i for i, (repo, store) in enumerate(targets)}
        for o in out.outcomes:
            o.state = "running"
        pending, n = list(refs), 0
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                i = refs[r]
                try:
                    got = ray.get(r)
                except ray.exceptions.RayError as e:   # the worker died (OOM, node lost)
                    got = RepoOutcome(*targets[i], error={"code": "internal", "type": type(e).__name__,
                                                          "message": str(e).splitlines()[0][:300]})
                n += 1
                finish(i, got)
            progress("repositories", n, len(targets))
    else:
        progress("repositories", 0, len(targets))
        for i, (repo, store) in enumerate(targets):
            out.outcomes[i].state = "running"
            finish(i, _index_one(repo, store, inner))
            progress("repositories", i + 1, len(targets))
    out.seconds, out.finished = time.perf_counter() - t0, True
    return out


__all__ = ["index_many"]
