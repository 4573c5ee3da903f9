"""`stratum index [PATH ...]`: parse, mine, embed and publish a new version of each store."""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import signal
import stat
import sys
import time
from dataclasses import replace
from pathlib import Path

from stratum.cli import (add_common, emit, folder_or_none, linked_worktree, one_line, repository_root, resolve_store,
                         whole)
from stratum.cli.stopping import SIGNALLED, Stopped, stop_on_signals
from stratum.errors import StratumError
from stratum.notetext import terminal_safe


def register(sub) -> None:
    p = sub.add_parser("index", help="index repositories (progress, then the run report)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="repositories to index (default: .)")
    add_common(p)
    p.add_argument("--repos-file", metavar="FILE", default=None,
                   help="also index the repositories listed in FILE (one path a line; # comments)")
    p.add_argument("--store-root", metavar="DIR", default=None,
                   help="with several repositories: store each in DIR/<name> (default: each one's own, <repo>/.git/stratum)")
    p.add_argument("--full", action="store_true", help="ignore incremental state; re-parse and re-mine all (the embedding cache, keyed by model and text, is kept)")
    p.add_argument("--replace", action="store_true",
                   help="index into a store that holds another repository (refused without it)")
    p.add_argument("--ray-address", default=None, help="Ray cluster address (default: RAY_ADDRESS)")
    ray = p.add_mutually_exclusive_group()
    ray.add_argument("--ray", dest="ray", action="store_true", default=None,
                     help="run the stages on Ray even for small work (a local Ray if no address)")
    ray.add_argument("--no-ray", dest="ray", action="store_false", help="run every stage in this process")
    p.add_argument("--num-cpus", type=whole(1, "--num-cpus"), default=None, help="CPUs for a local Ray (default: all)")
    kept = p.add_argument_group("index settings", "a store keeps the settings it was last indexed with: a "
                                                  "plain re-index (hooks, watch) uses them; give a flag to change one")
    kept.add_argument("--embed", dest="embed", action=argparse.BooleanOptionalAction, default=None,
                      help="embed nodes for vector search (default: on); --no-embed: keyword search only")
    kept.add_argument("--model", default=None, help="embedding model (default: EmbedConfig.model; a change re-embeds)")
    kept.add_argument("--symbols", action=argparse.BooleanOptionalAction, default=None,
                      help="also mine symbol-level co-change: reads every commit's diff once (on a long history "
                           "a long first run: sympy's 44,916 commits took 14.5 min on 2 CPUs; a re-index reads "
                           "only the new commits; default: off)")
    kept.add_argument("--fixes", dest="mine_fixes", action=argparse.BooleanOptionalAction, default=None,
                      help="mined fix nodes: past bug-fix commits about the files they touched (default: on)")
    kept.add_argument("--changes", dest="mine_changes", action=argparse.BooleanOptionalAction, default=None,
                      help="mined change nodes: other past commits of 1-5 code files, about those files (default: on)")
    kept.add_argument("--keep-dir", dest="keep_dir", action="append", default=None, metavar="FOLDER",
                      help="index this repository-relative folder though a vendored rule skips it (repeatable; "
                           "'' clears the list; docs/operations.md names the rule)")
    p.add_argument("--task-memory", type=_size("--task-memory"), default=None, metavar="SIZE",
                   help="memory each repository's Ray task asks, e.g. 3G (default: $STRATUM_TASK_MEMORY, else 2G; "
                        "0: none)")
    p.add_argument("--max-file-bytes", type=whole(1, "--max-file-bytes"), default=None, help="skip files larger than this (default 1 MiB)")
    p.add_argument("--max-commit-files", type=whole(1, "--max-commit-files"), default=None,
                   help="commits touching more files are skipped for co-change (default 30)")
    p.add_argument("--keep", type=int, default=None, metavar="N",
                   help="published versions kept after the publish (default 3; 0: keep every version)")
    p.add_argument("--report", metavar="FILE", default=None, help="also write the JSON run report here")
    p.set_defaults(func=run)


def config_from(args):
    from stratum.config import IndexConfig

    given = {"embed": args.embed, "model": args.model, "fixes": args.mine_fixes, "changes": args.mine_changes,
             "symbols": args.symbols, "max_file_bytes": args.max_file_bytes,
             "max_commit_files": args.max_commit_files, "keep_dirs": args.keep_dir}
    cfg = IndexConfig(ray_address=args.ray_address, num_cpus=args.num_cpus, full=args.full, ray=args.ray,
                      replace=args.replace, explicit=frozenset(k for k, v in given.items() if v is not None),
                      task_memory=args.task_memory)
    if args.keep_dir is not None:
        from stratum.config import keep_dirs_of

        cfg = replace(cfg, parse=replace(cfg.parse, keep_dirs=keep_dirs_of(args.keep_dir)))
    if args.mine_fixes is not None:
        cfg = replace(cfg, mine_fixes=args.mine_fixes)
    if args.mine_changes is not None:
        cfg = replace(cfg, mine_changes=args.mine_changes)
    if args.keep is not None:
        if args.keep < 0:
            from stratum.errors import InvalidArgument

            raise InvalidArgument(f"--keep must be 0 (keep all) or more, not {args.keep}")
        cfg = replace(cfg, keep_versions=args.keep)
    if args.embed is not None:
        cfg = replace(cfg, embed=replace(cfg.embed, enabled=args.embed))
    if args.model:
        cfg = replace(cfg, embed=replace(cfg.embed, model=args.model))
    if args.symbols is not None:
        cfg = replace(cfg, history=replace(cfg.history, symbols=args.symbols))
    if args.max_file_bytes:
        cfg = replace(cfg, parse=replace(cfg.parse, max_file_bytes=args.max_file_bytes))
    if args.max_commit_files:
        cfg = replace(cfg, history=replace(cfg.history, max_files_per_commit=args.max_commit_files))
    return cfg


def _size(flag: str):
    """An argparse type: a size (2G, 2.5GiB, 800M, bytes; ``config.parse_size``), refused as usage."""
    def size(text: str) -> int:
        from stratum.config import parse_size
        from stratum.errors import InvalidArgument

        try:
            return parse_size(text, flag)
        except InvalidArgument as e:
            raise argparse.ArgumentTypeError(e.message) from None
    return size


def repositories(args) -> list[str]:
    """The paths given, then those of --repos-file (blank lines and # comments ignored). The file
    is read as bytes: a line that is not UTF-8 is still a Linux path (``os.fsdecode``). A file that
    lists none is refused: an empty list had indexed the current folder instead."""
    from stratum.errors import InvalidArgument

    paths = list(args.paths)
    if args.repos_file:
        try:
            raw = Path(args.repos_file).read_bytes()
        except OSError as e:
            raise InvalidArgument(f"cannot read --repos-file {args.repos_file}: {e.strerror}") from None
        base = Path(args.repos_file).resolve().parent
        listed = len(paths)
        for n, line in enumerate(raw.splitlines(), 1):
            line = line.split(b"#", 1)[0].strip()
            if b"\0" in line:
                raise InvalidArgument(f"--repos-file {args.repos_file}: line {n} holds a NUL byte, which no "
                                      f"path can (is it a list of paths, one a line?)")
            if line:
                path = os.fsdecode(line)
                paths.append(str(base / path) if not Path(path).is_absolute() else path)
        if len(paths) == listed:        # an empty list (its generator failed) had indexed the current folder
            raise InvalidArgument(f"no repositories listed in {args.repos_file} (one path a line; # comments)")
    return [os.path.normpath(p) for p in paths] or ["."]     # reported as given, without "a/../"


# Exit codes of a multi-repository run (docs/operations.md): each repository's outcome is in the report.
SOME_FAILED = 1          # at least one repository failed; the others were indexed
NOTHING_RAN = 3          # the job could not start (no Ray cluster answered): no repository was tried
REPORT_UNWRITTEN = 4     # the run ended (its summary printed) but its --report file could not be written
def run(args) -> int:
    from stratum.errors import InvalidArgument

    cfg = config_from(args)
    paths = repositories(args)
    if args.report:                 # before any work: a folder, or a file in a missing folder, is refused
        report_target(args.report)
    bar = Progress(enabled=not args.json)
    if len(paths) == 1 and not args.store_root:
        return _run_one(args, cfg, paths[0], bar)
    if args.store:
        raise InvalidArgument("--store names one store; with several repositories use --store-root DIR")
    if args.store_root:             # every store under it would fail alike: say it once, naming this flag
        from stratum.store import refuse_non_utf8

        refuse_non_utf8(Path(args.store_root), "pass --store-root with a UTF-8 folder")
    return _run_many(args, cfg, paths, bar)


def _run_one(args, cfg, path: str, bar: "Progress") -> int:
    """One repository. The --report file says "running" from the start, then the run report, or
    "failed" with the error, or "interrupted" (exit 143/130) on SIGTERM/SIGINT: a run that failed or
    was killed had left an earlier run's report in place, which read as today's success."""
    from pipeline.job import index_repository

    prepare = arrow_without_pandas if getattr(args, "console", False) else None
    store = resolve_store(args, path, check=False)
    worktree_notice(args, path, store)
    state = {"repo": path, "store": os.path.abspath(store), "state": "running"}
    report = _ReportFile(args)
    report.meanwhile(json.dumps(state, indent=1))
    try:        # a run that fails or is stopped leaves no store folder it made (publish.one_run)
        with stop_on_signals(one=True, process=bool(getattr(args, "console", False))):
            folder_or_none(store)
            try:
                rep = index_repository(path, store, cfg, progress=bar, before_work=prepare)
            finally:
                bar.close()
            written = report.final(rep.to_json())
            emit(args, rep.to_dict(), printable(replace(rep, repo=shown(rep.repo), store=shown(rep.store)).summary()))
    except KeyboardInterrupt as stop:       # Stopped (SIGTERM/SIGINT)
        signum = Stopped.of(stop)
        name = signal.Signals(signum).name
        report.final(json.dumps({**state, "state": "interrupted", "interrupted": name}, indent=1))
        if args.json:                       # as a multi-repository run and a failed run say it
            print(json.dumps({**state, "state": "interrupted", "interrupted": name}))
        print(f"index of {shown(path)} stopped by {name}", file=sys.stderr)
        return SIGNALLED[signum]
    except Exception as e:                  # the CLI says it as ever; the report says it too
        said = e.message if isinstance(e, StratumError) else f"{type(e).__name__}: {e}"
        report.final(json.dumps({**state, "state": "failed", "error": {
            "code": getattr(e, "code", "internal"), "type": type(e).__name__, "message": said}}, indent=1))
        raise
    for signum in Stopped.deferred[:1]:
        print(f"{signal.Signals(signum).name} arrived while the new version was published: it is live; "
              "the run ended there", file=sys.stderr)
    return 0 if written else REPORT_UNWRITTEN


def _run_many(args, cfg, paths: list[str], bar: "Progress") -> int:
    """Several repositories: the report file is written at the start (all not run), as the job
    queues them and each starts (``queued``, ``running``: what a run killed with SIGKILL was doing)
    and finishes, and at the end, so a run killed at any point has said what it finished; a log gets
    one line per finished repository. A repository whose store cannot be chosen fails before the
    others run."""
    from pipeline.many import index_many, store_choices
    from pipeline.report import MultiReport

    choices = store_choices(paths, args.store_root)
    for p, c in zip(paths, choices):
        if isinstance(c, str) and not args.store_root:
            legacy_notice(p, c)
    targets = [(p, c if isinstance(c, str) else "") for p, c in zip(paths, choices)]
    multi = MultiReport.listing(targets)
    for o, c in zip(multi.outcomes, choices):
        if not isinstance(c, str):
            o.state, o.error = "failed", {"code": c.code, "type": type(c).__name__, "message": c.message}
    file = _ReportFile(args)
    file.meanwhile(multi.to_json())

    def started(report: MultiReport) -> None:
        file.meanwhile(report.to_json())

    def finished(report: MultiReport, outcome) -> None:
        done = sum(1 for o in report.outcomes if o.state in ("ok", "failed"))
        # the report first (index_many advanced the count): a reader of the line finds both (a
        # signal right after it said "stopped after 0 of 2" when the count still lagged)
        file.meanwhile(report.to_json())
        bar.line(one_line(printable(f"repositories: {done}/{len(report.outcomes)} {_named(outcome).line()}")))
        if Stopped.deferred:           # a signal held while that repository published: stop now
            raise Stopped(Stopped.deferred[-1])

    rc, t0 = 0, time.perf_counter()
    try:
        with stop_on_signals():
            index_many(targets, cfg, progress=bar, into=multi, on_start=started, on_outcome=finished)
    except KeyboardInterrupt as stop:       # Stopped, or Ray's KeyboardInterrupt raised for it
        signum = Stopped.of(stop)
        multi.interrupted, multi.seconds = signal.Signals(signum).name, time.perf_counter() - t0
        for o in multi.outcomes:        # under way: interrupted; waiting its turn: it never ran
            o.state = {"running": "interrupted", "queued": "not_run"}.get(o.state, o.state)
        rc = SIGNALLED[signum]
        if bar.stage == "repositories":     # the last line said, not yet counted (index_many counts it after)
            bar("repositories", sum(o.state in ("ok", "failed") for o in multi.outcomes), len(multi.outcomes))
    finally:
        bar.close()
    written = file.final(multi.to_json())
    emit(args, multi.to_dict(), printable(replace(multi, outcomes=[_named(o) for o in multi.outcomes]).summary()))
    if rc:
        return rc
    if not written:
        return REPORT_UNWRITTEN
    return 0 if multi.ok else NOTHING_RAN if multi.error else SOME_FAILED


def printable(text: str) -> str:
    """``text`` safe for any terminal (``notetext.terminal_safe``, lines kept): a non-UTF-8 path's bytes
    (kept as surrogates) shown as ``\\xff``, a control character in a name spelled out."""
    return terminal_safe(text, lines=True)


def worktree_notice(args, path: str, store: str) -> None:
    """Say so when an index (or watch) would give a linked worktree a store of its own: queries there
    then leave the main checkout's store, whose notes vanished from that view without a word (a probe).
    And a store in the work tree (``legacy_notice``)."""
    if getattr(args, "store", None):
        return
    legacy_notice(path, store)
    linked = linked_worktree(path)
    if linked is not None:
        print(one_line(f"{shown(linked[1])} is a linked worktree: indexing it into its own store {shown(store)}; "
                       f"queries here then use that store, not the main checkout's {shown(linked[0])} (its notes "
                       "are not seen here). Without this index, queries here answer for the worktree from the main "
                       "store. The store is in the git directory: `git worktree remove` leaves it and its notes "
                       "(read them with --store)"), file=sys.stderr)


def legacy_notice(path: str, store: str) -> None:
    """Say once per run that a store in the work tree (``<repo>/.stratum``, the older default, kept
    where it is: a server may hold it open) is deleted by `git clean -fdx`, and the command that moves
    it where a new store goes (``storehome.legacy_advice``)."""
    from stratum.storehome import in_work_tree, legacy_advice

    top = repository_root(path)
    if top is not None and in_work_tree(Path(top), Path(store)):
        print(one_line(printable(legacy_advice(Path(top)))), file=sys.stderr)


def shown(path: str) -> str:
    """A path as the index's lines print it: a backslash doubled, then a non-UTF-8 byte spelled ``\\xff``.
    A folder named ``shop\\xff`` (a backslash, x, f, f) and one named shop + the byte 0xFF printed
    alike; now the first reads ``shop\\\\xff``. Names only: a message's text already spells its bytes."""
    return printable(path.replace("\\", "\\\\"))


def _named(o):
    """A repository's outcome with its paths as :func:`shown` prints them (the report keeps them as
    they are). Whether it was a folder inside its repository is judged on the real paths."""
    inside = bool(o.root) and os.path.realpath(o.repo) != os.path.realpath(o.root)
    return replace(o, repo=shown(o.repo), store=shown(o.store), root=shown(o.root) if inside else "")


class _NoPandas:
    """Import hook that makes ``pandas`` look absent (see :func:`arrow_without_pandas`)."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"{name} skipped while pyarrow.dataset loads", name=name)
        return None


def arrow_without_pandas() -> None:
    """Import ``pyarrow.dataset`` (under lance) with pandas hidden: its init probes for pandas
    and imports it, ~0.2 s of a 1.5 s one-file re-index, though nothing here uses pandas. The
    probe's answer sticks for the process (pyarrow then treats pandas objects as plain Python
    ones), so this is for a `stratum index` process of its own only, never a caller's. Lance
    itself still finds pandas (its import is lazy), so nothing is lost."""
    if "pyarrow.dataset" in sys.modules or "pandas" in sys.modules:
        return
    hook = _NoPandas()
    sys.meta_path.insert(0, hook)
    try:
        import pyarrow.dataset  # noqa: F401
    finally:
        sys.meta_path.remove(hook)


class _ReportFile:
    """The --report file of one run, and whether its last write came through. A rewrite while the
    run goes on that fails (a full disk: the stores' volume often holds the report too) is said once
    on stderr and the run goes on: it had ended the whole job, the next repositories never tried
    and the file left saying the first was ``running``. A final write that fails is an error of its
    own (exit ``REPORT_UNWRITTEN``), and the file there is removed, so no reader takes a report
    saying ``running`` (or an earlier run's) for how this run ended."""

    def __init__(self, args):
        self.args = args
        self.warned = False

    def meanwhile(self, text: str) -> None:
        try:
            _write_report(self.args, text, final=False)
        except _REPORT_FAILS as e:
            if not self.warned:
                self.warned = True
                print(one_line(f"stratum: warning: cannot rewrite the report {self.args.report} ({_why(e)}); the "
                               "run goes on and writes it again as it goes and at the end"), file=sys.stderr)

    def final(self, text: str) -> bool:
        """Write the final report; False (said on stderr) when it cannot be written."""
        try:
            _write_report(self.args, text)
            return True
        except _REPORT_FAILS as e:
            failed, removed = _why(e), ""
        try:
            kind, where = report_target(self.args.report)
            if kind == "file" and os.path.lexists(where):
                os.unlink(where)
                removed = "; the file there was removed (it said the run was under way, or an earlier run's end)"
        except _REPORT_FAILS as e:
            removed = f"; the file there is stale: cannot remove it ({_why(e)})"
        print(one_line(f"stratum: error: cannot write the report {self.args.report} ({failed}){removed}: the "
                       "summary is this run's outcome"), file=sys.stderr)
        return False


# a report write fails with: the disk (OSError), a closed stream (ValueError), its path gone (report_target)
_REPORT_FAILS = (OSError, ValueError, StratumError)


def _why(e: BaseException) -> str:
    return e.message if isinstance(e, StratumError) else getattr(e, "strerror", None) or str(e) or type(e).__name__


def _write_report(args, text: str, final: bool = True) -> None:
    """Replace the --report file whole (a reader, or a run killed mid-write, never sees half of one),
    at its target when it is a symlink. A report that is no file (``/dev/stdout``, a FIFO a collector
    reads, a descriptor under ``/proc``) gets the final report only, once, written into it in
    place: renaming a file over ``/dev/stdout`` (as root) put a file in its place, and over
    ``/proc/self/fd/1`` (``--report /dev/stdout >> nightly.log``) replaced the log itself."""
    if not args.report:
        return
    kind, where = report_target(args.report)
    if kind == "file":
        from stratum.store import atomic_write

        atomic_write(Path(where), text)
        return
    if not final:
        return
    text = text if text.endswith("\n") else text + "\n"
    if kind == "fd":                    # one of ours: its own offset and flags (O_APPEND for `>>`)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        data = text.encode()
        while data:
            data = data[os.write(int(where), data):]
        return
    with open(where, "a") as f:         # a FIFO, a terminal, another process's descriptor: never truncated
        f.write(text)


def report_target(path: str) -> tuple[str, str]:
    """How --report PATH is written: ``("file", target)`` (a regular file or none yet: replaced
    atomically), ``("fd", N)`` (a descriptor of this process: ``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``, or a link to one), ``("stream", path)`` (a FIFO, a device, anything else
    under ``/proc``). Links are followed one at a time: ``realpath`` read ``/proc/self/fd/1`` as
    the file the shell opened, so the log was renamed over. A folder, or a file in a folder that
    does not exist, is an InvalidArgument naming it (it was an error naming a temporary file)."""
    from stratum.errors import InvalidArgument

    p = os.path.abspath(path)
    for _ in range(40):                 # link hops, as the kernel allows
        p = os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
        own = re.fullmatch(r"/proc/(\d+)(?:/task/\d+)?/fd/(\d+)", p)
        if own and int(own[1]) == os.getpid():
            try:        # a descriptor not open (or read-only) took the report into whatever got its number
                flags = fcntl.fcntl(int(own[2]), fcntl.F_GETFL)
            except OSError:
                raise InvalidArgument(f"--report {path}: descriptor {own[2]} is not open") from None
            if flags & os.O_ACCMODE == os.O_RDONLY:
                raise InvalidArgument(f"--report {path}: descriptor {own[2]} is open for reading only")
            return "fd", own[2]
        if p.startswith("/proc/"):
            return "stream", p
        if not os.path.islink(p):
            break
        p = os.path.join(os.path.dirname(p), os.readlink(p))
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        if not os.path.isdir(os.path.dirname(p)):
            raise InvalidArgument(f"--report {path}: folder {os.path.dirname(p)} does not exist") from None
        return "file", p
    except OSError as e:                # a link loop, no permission
        raise InvalidArgument(f"--report {path}: {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise InvalidArgument(f"--report {path} is a folder; give a file path")
    return ("file" if stat.S_ISREG(mode) else "stream"), p


class Progress:
    """Stage progress on stderr (quiet under --json). On a terminal: a tqdm bar per stage with rate
    and ETA; otherwise (a CI or pod log) one line when a stage starts and one when it ends, and on a
    long stage a line between (``STEP_LINES``: every tenth of its items, or every minute, never twice
    in ``STEP_GAP`` seconds: ``--symbols`` on a long history read 14.5 minutes with no line). A
    stage cut short (an error, a signal) ends "stopped after X of N", never "done". A stage of one
    step (discover, link, notes, write) says no count. ``line`` may be called from another thread
    (the history mine's, ``pipeline.stagelines.MineWatch``)."""

    STEP_LINES = 10             # a line per tenth of a stage's items, on a log
    STEP_GAP = 10.0             # seconds at least between two lines of one stage
    STEP_EVERY = 60.0           # a line at least this often while a stage moves

    def __init__(self, enabled: bool = True, stream=None):
        import threading

        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.stage: str | None = None
        self.bar = None
        self.started = 0.0
        self.total = 0
        self.done = 0
        self.said_at, self.said_done = 0.0, 0        # the last line of the stage: when, at how many
        self.lock = threading.RLock()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        with self.lock:
            if stage != self.stage:
                self._end()
                self.stage, self.started, self.total = stage, time.monotonic(), total
                self.said_at, self.said_done = self.started, 0
                if self.tty:
                    from tqdm import tqdm

                    self.bar = tqdm(total=total, desc=f"{stage:>12}", file=self.stream, leave=True,
                                    dynamic_ncols=True, mininterval=0.1)
                else:
                    self._write(f"{stage}: started" + (f" ({total} items)" if total > 1 else ""))
            self.total, self.done = total, done
            if self.bar is not None:
                self.bar.total = total
                self.bar.update(done - self.bar.n)
            elif done < total:
                self._step()
            if done >= total:
                self._end()

    def _step(self) -> None:
        """A line between a long stage's start and end, on a log (``STEP_LINES``)."""
        now = time.monotonic()
        since = now - self.said_at
        if self.done <= self.said_done or since < self.STEP_GAP or \
                (self.done - self.said_done < self.total / self.STEP_LINES and since < self.STEP_EVERY):
            return
        took = now - self.started
        rate = self.done / took if took > 0 else 0.0
        left = f", ~{_span((self.total - self.done) / rate)} left" if rate else ""
        self._write(f"{self.stage}: {self.done:,} of {self.total:,} items ({100 * self.done / self.total:.0f}%, "
                    f"{took:.0f}s{left})")
        self.said_at, self.said_done = now, self.done

    def line(self, text: str) -> None:
        """One line of its own (a repository finished, the history mine), above the bar on a terminal."""
        if not self.enabled:
            return
        with self.lock:
            if self.bar is not None:
                self.bar.write(text, file=self.stream)
            else:
                self._write(text)

    def _write(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def _end(self) -> None:
        if self.stage is None:
            return
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        else:
            took = time.monotonic() - self.started
            if self.done < self.total:
                self._write(f"{self.stage}: stopped after {self.done} of {self.total} items ({took:.1f}s)")
            elif self.total <= 1:
                self._write(f"{self.stage}: done ({took:.1f}s)")
            else:
                per = self.total / took if took > 0 else 0.0      # 3 repositories in 13.9 s: 0.22/s, not 0/s
                rate = "" if not per else f", {per:.0f}/s" if per >= 10 else f", {per:.2g}/s"
                self._write(f"{self.stage}: done ({self.total} items in {took:.1f}s{rate})")
        self.stage = None

    def close(self) -> None:
        if self.enabled:
            with self.lock:
                self._end()


def _span(seconds: float) -> str:
    """``42s``, ``14m``, ``2h05m``: an estimate's size, not its digits."""
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    return f"{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


__all__ = ["register", "run", "Progress", "config_from", "repositories", "printable",
           "SOME_FAILED", "NOTHING_RAN", "REPORT_UNWRITTEN", "SIGNALLED"]
