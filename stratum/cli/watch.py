"""`stratum watch` and `stratum hooks`: keep the store at HEAD without anyone running `index`.

Both re-index incrementally through ``pipeline.job.index_repository`` (in this process unless the
work is big enough for Ray; its no-change path answers in milliseconds). A running server picks up
each new version itself (its reload loop).
"""

from __future__ import annotations

import json
import signal
import sys
import time

from stratum.cli import add_common, emit, one_line, resolve_store


def register(sub) -> None:
    p = sub.add_parser("watch", help="re-index incrementally whenever HEAD moves (commit, checkout, merge, reset)")
    p.add_argument("path", nargs="?", default=".", metavar="PATH", help="repository (default: .)")
    add_common(p)
    p.add_argument("--interval", type=float, default=0.5, help="seconds between looks at HEAD (default 0.5)")
    p.add_argument("--debounce", type=float, default=1.0,
                   help="index once HEAD has been still this long (default 1.0): a checkout storm is one run")
    p.add_argument("--no-initial", action="store_true", help="don't bring the store up to HEAD at start")
    _index_options(p)
    p.set_defaults(func=run_watch)

    h = sub.add_parser("hooks", help="git hooks that re-index in the background (commit, checkout, merge, am, rebase)")
    hs = h.add_subparsers(dest="hooks_command", metavar="ACTION")
    hs.required = True
    for name, text, func in (("install", "install (chaining any existing hook)", run_install),
                             ("uninstall", "remove ours, restoring a chained hook", run_uninstall),
                             ("status", "which of our hooks are installed", run_status)):
        q = hs.add_parser(name, help=text)
        q.add_argument("path", nargs="?", default=".", metavar="PATH", help="repository (default: .)")
        add_common(q)
        if name == "install":
            _index_options(q)            # baked into the hooks: each run indexes with them
        q.set_defaults(func=func)
    r = hs.add_parser("run", help="(what the hooks call) index now, coalescing with a run under way")
    r.add_argument("path", nargs="?", default=".", metavar="PATH")
    add_common(r)
    r.add_argument("--hook", default="manual", help="which hook fired (for the log)")
    r.add_argument("--settle", type=float, default=0.3, help="wait until no hook fired for this long")
    _index_options(r)
    r.set_defaults(func=run_hook)


def _index_options(p) -> None:
    p.add_argument("--no-embed", action="store_true", help="skip embeddings (keyword search only)")
    p.add_argument("--model", default=None, help="embedding model (default: EmbedConfig.model)")
    p.add_argument("--no-ray", action="store_true", help="run every stage in this process")


def _config(args):
    from dataclasses import replace

    from stratum.config import IndexConfig

    # what the flags name is meant; every other index setting follows the store (config.with_kept)
    explicit = frozenset((("embed",) if args.no_embed else ()) + (("model",) if args.model else ()))
    cfg = IndexConfig(ray=False if args.no_ray else None, explicit=explicit)
    if args.no_embed:
        cfg = replace(cfg, embed=replace(cfg.embed, enabled=False))
    if args.model:
        cfg = replace(cfg, embed=replace(cfg.embed, model=args.model))
    return cfg


def _indexer(args, repo: str, store: str, warm_model: bool = False, stop=None):
    """``stop``: a flag that ends a run under way before its publish (watch's SignalStop)."""
    from pipeline.job import index_repository

    cfg = _config(args)
    warm = [not warm_model]

    def index() -> str:
        rep = index_repository(repo, store, cfg, stop=stop)
        if not warm[0] and cfg.embed.enabled:    # load the model now, not in the first re-index
            from pipeline.job import InProcess

            InProcess().embed(["warm up"], cfg.embed, lambda *a: None)
        warm[0] = True
        if rep.up_to_date:
            return f"up to date at v{rep.version}"
        return (f"v{rep.version} published ({rep.files_parsed} files parsed, {rep.files_reused} reused, "
                f"{str(rep.engine).split(' (')[0]})")
    return index


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def run_watch(args) -> int:
    """Watch until SIGINT/SIGTERM: whenever one lands (the start-up's imports, the first index, a
    Ray start, a wait) the watch ends the same way, "stopped", exit 0. Its handlers are set first:
    a Ctrl-C while the index job's modules were still being imported ended 130 "interrupted"."""
    from pipeline.watch import SignalStop

    stop = SignalStop()         # set by the handlers: no lock the interrupted thread may hold
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return _watch(args, stop)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _watch(args, stop) -> int:
    from pipeline import gitio
    from pipeline.watch import Run, Watcher

    from stratum.cli.index import worktree_notice

    repo = str(gitio.repo_root(args.path))
    store = resolve_store(args, repo)
    worktree_notice(args, repo, store)

    def report(run: Run) -> None:
        then = "" if run.retryable else ": indexed again once HEAD moves or the store changes, as after `stratum repair`"
        what = run.summary if run.ok else f"index failed: {run.error} (still watching{then})"
        if args.json:                        # one JSON object a line, as it happens
            print(json.dumps({"at": _stamp(), "reason": run.reason, "seconds": round(run.seconds, 3),
                              "ok": run.ok, "summary": run.summary, "error": run.error}), flush=True)
        else:
            print(one_line(f"{_stamp()} {run.reason}: {what} in {run.seconds:.2f}s"), flush=True)   # a path's escapes

    # the run under way heeds the stop too: a long first index (a history mine) had outlasted a pod's grace
    w = Watcher(repo, _indexer(args, repo, store, warm_model=True, stop=stop), report, interval=args.interval,
                debounce=args.debounce, stop=stop, store=store)
    if args.json:       # a first object too: a reader knows it is watching (and its stop heeded)
        print(json.dumps({"at": _stamp(), "watching": repo, "store": store, "interval": args.interval,
                          "debounce": args.debounce}), flush=True)
    else:
        print(one_line(f"watching {repo} -> {store} (every {args.interval}s, debounce {args.debounce}s; "
                            "Ctrl-C stops)"), flush=True)
    runs = w.run(initial=not args.no_initial)
    if args.json:       # the last line says so in JSON too (it said nothing: a probe)
        print(json.dumps({"at": _stamp(), "stopped": True, "runs": len(runs), "abandoned": w.abandoned or None}),
              flush=True)
    else:
        cut = (one_line(f"; the run under way ({w.abandoned}) was stopped before its publish: the store "
                        f"is as it was") if w.abandoned else "")
        print(f"stopped after {len(runs)} index run(s){cut}", flush=True)
    return 0


def run_install(args) -> int:
    from pipeline import gitio, hooks

    repo = str(gitio.repo_root(args.path))
    said = []
    main = gitio.main_worktree(repo)
    if main is not None:        # hooks are shared by every worktree: from one, they took over the main
        said.append(f"{repo} is a linked worktree; git hooks are shared by every worktree, so they index "
                    f"the main checkout {main}")   # checkout's commits into the worktree's store (a probe)
        repo = str(main)
    store = resolve_store(args, repo)
    opts = (("--no-embed",) if args.no_embed else ()) + (("--model", args.model) if args.model else ()) + \
        (("--no-ray",) if args.no_ray else ())
    lines = said + hooks.install(repo, store, opts)
    emit(args, {"repo": repo, "store": store, "hooks": lines},
         "\n".join([f"hooks in {hooks.hooks_dir(repo)} (log: {store}/hooks.log)", *lines]))
    return 0


def run_uninstall(args) -> int:
    from pipeline import gitio, hooks

    repo = str(gitio.repo_root(args.path))
    lines = hooks.uninstall(repo)
    emit(args, {"repo": repo, "hooks": lines}, "\n".join(lines))
    return 0


def run_status(args) -> int:
    """Ours, and what needs a word: hooks written for another folder or by an older version, and a
    last run that failed (it went only to hooks.log: status said "installed" over a stale store)."""
    from pipeline import gitio, hooks

    repo = str(gitio.repo_root(args.path))
    s = hooks.survey(repo)
    last = hooks.last_run(s.store) if s.store is not None else None
    said = [f"installed: {', '.join(s.installed) or 'none'}"]
    moved = [n for n in s.installed if n.endswith(hooks.MOVED)]
    if moved:
        said.append(f"{', '.join(moved)} moved aside by another hook manager, which runs it")
    if s.elsewhere:
        said.append(f"{', '.join(s.elsewhere)} written for another folder (the repository moved?): run "
                    "`stratum hooks install` again")
    if s.chained:
        said.append(f"{', '.join(s.chained)} first run{'s' if len(s.chained) == 1 else ''} the hook that was there "
                    f"({', '.join(n + '.stratum-chained' for n in s.chained)})")
    if s.foreign:           # a shared hooks folder: another repository's hooks are not this one's
        said.append("; ".join(f"{n} is our hook for another repository ({o})" for n, o in s.foreign.items()))
    if s.older:
        said.append(f"{', '.join(s.older)} {'is an older script' if len(s.older) == 1 else 'are older scripts'}: "
                    "run `stratum hooks install` again")
    if last is not None and not last[0]:
        said.append(one_line(f"the last hook run failed: {last[1]} (log: {s.store}/hooks.log)"))
    emit(args, {"repo": repo, "installed": s.installed, "elsewhere": s.elsewhere, "older": s.older, "chained": s.chained,
                "foreign": {n: str(o) for n, o in s.foreign.items()},
                "store": None if s.store is None else str(s.store),
                "last_run": None if last is None else {"ok": last[0], "line": last[1]}}, "; ".join(said))
    return 0


def run_hook(args) -> int:
    """Never raises to git (it runs detached anyway): every outcome is a line in the log."""
    from pipeline import hooks

    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)     # the terminal that ran git may close
    hooks.clean_hook_env()
    from pipeline import gitio

    repo = str(gitio.repo_root(args.path))
    store = resolve_store(args, repo)
    follow = hooks.LogFollower(store)   # our stdout is hooks.log (the hook's >>): after a rotation, the new one

    def log(line: str) -> None:
        text = f"{_stamp()} [{args.hook}] {line}"
        follow()
        if getattr(args, "json", False):     # one JSON object a line (it printed text under --json)
            print(json.dumps({"at": _stamp(), "hook": args.hook, "line": line}), flush=True)
        else:
            print(text, flush=True)
        if args.hook == "manual":       # a hook's own output is the log already
            hooks.log_line(store, text)     # `hooks status` reads the last run's outcome there

    failed: list[str] = []
    try:
        hooks.coalesced(store, _indexer(args, repo, store), log, settle=args.settle, failures=failed, hook=args.hook)
    except Exception as e:     # noqa: BLE001 - a hook's failure is logged, never git's problem
        log(f"index failed: {type(e).__name__}: {e}")
        print(repr(e), file=sys.stderr)
        failed.append(str(e))
    # git ignores a hook's status, but a person running it (--hook manual) is told: it said 0
    return 1 if failed and args.hook == "manual" else 0


__all__ = ["register"]
