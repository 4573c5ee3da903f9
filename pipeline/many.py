"""Many repositories in one job: one isolated outcome each, concurrently on a Ray cluster (one task
per repository, its stages in-process on its worker) or one after another here, into one report
a stopped caller still holds (org-wide nightly indexing, `stratum index A B C`).

Why apart from ``pipeline.job``: that module runs one repository's stages; this one decides which
store each repository gets (``--store-root``) and where it runs, and keeps the run's account (what
finished, what failed, what never ran).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, NamedTuple

from pipeline import gitio
from pipeline.job import (Progress, _noop, choose_engine, cluster_address, cpus_text, ensure_ray, index_repository,
                          local_cpus)
from pipeline.report import MultiReport, RepoOutcome
from pipeline.storestate import display_name
from stratum.config import IndexConfig, default_store_path, task_memory
from stratum.errors import InvalidArgument, StratumError


def _index_one(repo: str, store: str, cfg: IndexConfig, engine: str = "") -> RepoOutcome:
    """One repository of a multi-repository job. Its failure is its outcome, never the job's:
    this is the job's isolation boundary per repository (a failed run removes what it wrote,
    ``publish.one_run``: a disk it filled is free again for the next ones). ``engine``: what runs
    it, when not its own choice (a Ray task runs its stages in-process: its report said
    "in-process (--no-ray)")."""
    t = time.perf_counter()
    try:
        rep = index_repository(repo, store, cfg, engine=engine)
        return RepoOutcome(repo, store, time.perf_counter() - t, report=rep.to_dict(), root=rep.repo)
    except StratumError as e:
        err = {"code": e.code, "type": type(e).__name__, "message": e.message}
    except Exception as e:  # noqa: BLE001 - recorded as this repository's error, with its type
        err = {"code": "internal", "type": type(e).__name__, "message": f"{type(e).__name__}: {e}"}
    return RepoOutcome(repo, store, time.perf_counter() - t, error=err)


def _index_one_told(repo: str, store: str, cfg: IndexConfig, engine: str = ""):
    """:func:`_index_one` as a Ray task that says when it begins: a streaming generator whose first
    item (``None``) comes as its run starts on a worker, its second is the outcome. The report then
    says ``running`` from that moment and ``queued`` before: every submitted repository had said
    ``running`` at once, the ones waiting for a free CPU too."""
    yield None
    yield _index_one(repo, store, cfg, engine)


def task_request(ray, cfg: IndexConfig, address: str | None) -> tuple[int, str]:
    """The memory (bytes; 0: none) each repository's Ray task asks, so Ray starts no more of them on
    a worker than its memory holds (a sympy-sized repository peaks at ~2.5 GB: four on one 4-CPU
    8 GiB worker, packed by CPUs alone, need ~10 GB), and what the report says of it ("": nothing
    to say). A local Ray has no node to add: a request over its memory is cut to what it has (one
    task at a time; asked as is, no task would ever start). A cluster's autoscaler may add a larger
    worker, so there the request stands."""
    want = task_memory(cfg)
    if not want or address:
        return want, ""
    has = max((float(n.get("Resources", {}).get("memory", 0)) for n in ray.nodes() if n.get("Alive")), default=0.0)
    if has <= 0 or want <= has:
        return want, ""
    return int(has), (f"each task asked {want / 2**30:.1f} GiB of memory, more than the local Ray has "
                      f"({has / 2**30:.1f} GiB): one repository at a time")


def top_level(path: str) -> str:
    """The repository top level ``path`` stands for (a folder the repository holds is that
    repository); the path itself, absolute, when it is none (its run then says why)."""
    try:
        return str(gitio.repo_root(path))
    except StratumError:
        return str(Path(path).resolve())


def stores_for(paths: list[str], store_root: str | None) -> list[str]:
    """One store (an absolute path) per repository (see :func:`store_choices`); a repository whose
    store cannot be chosen raises its error."""
    out = []
    for choice in store_choices(paths, store_root):
        if not isinstance(choice, str):
            raise choice
        out.append(choice)
    return out


def store_choices(paths: list[str], store_root: str | None) -> list[str | StratumError]:
    """One store (an absolute path) per repository, keyed on its top level, so listing a folder of
    it is listing the repository: its default store (``config.default_store_path``: ``<top>/.git/stratum``),
    or ``DIR/<name>`` with --store-root (names made
    unique). A repository already stored under DIR keeps its store whatever the order of the list:
    found by the top level its manifest records (``repo_path``), else, for a clone moved since (the
    folder its store records holds no repository any more), by :func:`_moved_stores`. Names by order
    alone gave a store to another repository of the same name when the list changed; the path as
    typed gave a listed subfolder a new full store on every run. A repository with no store yet
    whose name a store with an unreadable manifest has gets that store (its index then fails with
    the way out, `stratum repair`): it was given a new ``<name>-2`` store, its notes left behind
    (the store is found by the newest readable copy of its manifest first, by name only without one).
    An entry is a ``StratumError`` instead of a path when the store cannot be chosen (that
    repository then fails, the others run)."""
    tops = [top_level(p) for p in paths]
    if store_root is None:
        return [str(default_store_path(t)) for t in tops]
    root = Path(store_root).absolute()
    stores = _stores_under(root)
    held: dict[str, str] = {}           # repository top level -> its store's folder name under DIR
    for st in stores:
        if st.repo_path:
            held.setdefault(st.repo_path, st.name)
    used = {st.name for st in stores}
    damaged = [st.name for st in stores if not st.readable and not st.repo_path]
    chosen: dict[str, str | StratumError] = dict(held)
    claimed = {held[t] for t in tops if t in held}
    chosen.update(_moved_stores([t for t in dict.fromkeys(tops) if t not in held], stores, claimed, root))
    out: list[str | StratumError] = []
    for top in tops:
        name = chosen.get(top)
        if name is None:
            # the folder's name as the index spells it: a non-UTF-8 one made a store path Lance refuses
            base = display_name(Path(top)) or "repo"
            name = next((d for d in damaged if d == base or d.startswith(base + "-") and
                         d[len(base) + 1:].isdigit()), None)
            if name is not None:
                damaged.remove(name)
            else:
                name = _new_name(base, used)
            chosen[top] = name
        out.append(name if isinstance(name, StratumError) else str(root / name))
    return out


def _new_name(base: str, used: set[str]) -> str:
    """``base``, else ``base-2``, ``base-3``...: the first no store under DIR has (now taken)."""
    name, k = base, 2
    while name in used:
        name, k = f"{base}-{k}", k + 1
    used.add(name)
    return name


class _Stored(NamedTuple):
    """What a store under --store-root says of itself (``readable``: False when its manifest is not)."""

    name: str
    repo_path: str
    roots: list[str]
    commit: str
    readable: bool


def _stores_under(root: Path) -> list[_Stored]:
    """Each store under ``root``: its folder name and what its manifest records; for one whose
    manifest is unreadable, what the newest readable copy under ``manifests/`` records (so its
    repository still finds it, and fails with the way out)."""
    out = []
    for m in sorted(root.glob("*/manifest.json")) if root.is_dir() else ():
        man = _json_dict(m)
        readable = man is not None
        for copy in [] if readable else sorted((m.parent / "manifests").glob("*.json"), reverse=True):
            man = _json_dict(copy)
            if man is not None:
                break
        man = man or {}
        out.append(_Stored(m.parent.name, str(man.get("repo_path") or ""), list(man.get("root_commits") or []),
                           str(man.get("indexed_commit") or ""), readable))
    return out


def _json_dict(path: Path) -> dict | None:
    try:
        got = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) else None


def _moved_stores(tops: list[str], stores: list[_Stored], claimed: set[str], root: Path
                  ) -> dict[str, str | StratumError]:
    """The stores of clones moved here: top level -> store name, or -> the error saying why none can
    be chosen. A store is a moved clone's when the folder it records holds no repository any more,
    it shares a root commit with the repository, and the commit it was indexed at is in the
    repository. Forks of one project share their root commits: taking the first such store had
    swapped two forks' stores (and notes) when their folder moved. A pair is taken when each is the
    other's only candidate, else when that holds among the pairs whose folder name is the same;
    a repository still left with several is refused, never guessed."""
    moved = [st for st in stores if st.roots and st.commit and st.name not in claimed
             and not (Path(st.repo_path) / ".git").exists()]
    if not moved or not tops:
        return {}
    cands: dict[str, list[_Stored]] = {}
    for top in tops:
        roots = set(gitio.root_commits(top)) if (Path(top) / ".git").exists() else set()
        shared = [st for st in moved if roots & set(st.roots)]
        cands[top] = [st for st in shared if gitio.has_any_commit(top, [st.commit])]
    out: dict[str, str | StratumError] = {}
    progress = True
    while progress:
        progress = False
        for same_name in (False, True):
            for top, mine in cands.items():
                if top in out:
                    continue
                mine = [st for st in mine if Path(st.repo_path).name == Path(top).name] if same_name else mine
                if len(mine) != 1:
                    continue
                st = mine[0]
                rivals = [t for t, c in cands.items() if t not in out and st in c
                          and (not same_name or Path(st.repo_path).name == Path(t).name)]
                if rivals == [top]:
                    out[top] = st.name
                    for t in cands:
                        cands[t] = [c for c in cands[t] if c is not st]
                    progress = True
            if progress:
                break
    for top, mine in cands.items():
        if top not in out and mine:
            said = ", ".join(f"{st.name} (was {st.repo_path})" for st in mine)
            out[top] = InvalidArgument(
                f"{top}: more than one store under {root} could be this repository's (clones of one "
                f"project, their folders moved): {said}; index it once with --store {root}/NAME to say "
                f"which (--store-root then finds it)")
    return out


def index_many(targets: list[tuple[str, str]], config: IndexConfig | None = None,
               progress: Progress | None = None, *, into: MultiReport | None = None,
               on_start: Callable[[MultiReport], None] | None = None,
               on_outcome: Callable[[MultiReport, RepoOutcome], None] | None = None) -> MultiReport:
    """Index several repositories, each ``(repo path, store path)``, concurrently on Ray (one task
    per repository, each running its stages in-process on its worker) when a cluster is named or
    ``--ray`` is given; else one after another in this process. One summary report.

    ``into``: the report to fill (``MultiReport.listing(targets)``): a caller stopped half-way (a
    signal) still holds what finished; a listing it already holds as ``failed`` (its store could not
    be chosen) is not run, and counts as finished first. Once the job has started (Ray up), the
    repositories to run are ``queued``, each ``running`` when its run begins (in turn here, as a
    worker takes it on Ray). ``on_start(report)`` is called at each of those changes,
    ``on_outcome(report, outcome)`` as each finishes (a log line, the report file rewritten: a run
    killed with SIGKILL leaves a file that says which it was indexing and which waited). A job that
    cannot start (no cluster answers) returns with ``error`` set and every repository ``not_run``;
    it never raises for that.

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

    decided = [i for i, o in enumerate(out.outcomes) if o.state == "failed"]
    group: dict[str, list[int]] = {}       # a store -> its listings, the first of them indexes it
    for i, (_, store) in enumerate(targets):
        if i not in decided:
            group.setdefault(os.path.realpath(store), []).append(i)
    runs = list(group.values())
    done = 0

    def finish(ks: list[int], outcome: RepoOutcome) -> None:
        nonlocal done
        for k in ks:
            named = (targets[k][0], targets[ks[0]][1])     # as listed (a Ray task got them absolute)
            out.outcomes[k] = outcome if (outcome.repo, outcome.store) == named else \
                replace(outcome, repo=named[0], store=named[1])
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

    def mark(which: list[list[int]], state: str) -> None:
        for ks in which:
            for k in ks:
                out.outcomes[k].state = state
        if on_start is not None and which:
            on_start(out)

    if kind == "ray":
        task_memory(cfg)                    # a bad --task-memory / STRATUM_TASK_MEMORY: refused before Ray starts
        t = time.perf_counter()
        try:
            ray = ensure_ray(cfg, getattr(progress, "line", None))
        except StratumError as e:            # nothing ran: the report says why, each repository not_run
            out.error = {"code": e.code, "type": type(e).__name__, "message": e.message}
            out.seconds, out.finished = time.perf_counter() - t0, True
            return out
        out.ray_start = time.perf_counter() - t
        address = cluster_address(cfg)
        task = (f"a Ray task on {address}" if address else f"a Ray task on a local Ray ({cpus_text(local_cpus(cfg))})") + \
            ", its stages in-process"
        progress("repositories", 0, len(targets))
        for k in decided:
            finish([k], out.outcomes[k])
        memory, said = task_request(ray, cfg, address)
        if said:
            out.engine += f"; {said}"
        remote = ray.remote(num_cpus=1, memory=memory or None)(_index_one_told)
        # absolute: a worker runs in its own working directory (a relative path failed every
        # repository there: "flask does not exist"); the outcomes name them as listed (``finish``)
        told = {remote.remote(*map(os.path.abspath, targets[ks[0]]), inner, task): ks for ks in runs}
        mark(runs, "queued")
        pending = list(told)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for gen in ready:
                ks = told[gen]
                try:
                    got = ray.get(next(gen))
                except ray.exceptions.RayError as e:   # the worker died (OOM, node lost)
                    got = RepoOutcome(*targets[ks[0]], error={"code": "internal", "type": type(e).__name__,
                                                              "message": str(e).splitlines()[0][:300]})
                if got is None:                         # its run began on a worker: the outcome follows
                    mark([ks], "running")
                    pending.append(gen)
                else:
                    finish(ks, got)
    else:
        progress("repositories", 0, len(targets))
        for k in decided:
            finish([k], out.outcomes[k])
        for ks in runs:
            for k in ks:
                out.outcomes[k].state = "queued"
        for ks in runs:
            mark([ks], "running")
            finish(ks, _index_one(*targets[ks[0]], inner))
    out.seconds, out.finished = time.perf_counter() - t0, True
    return out


__all__ = ["index_many", "store_choices", "stores_for", "top_level"]
