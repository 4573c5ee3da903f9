"""`stratum index [PATH ...]`: parse, mine, embed and publish a new version of each store."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from stratum.cli import add_common, emit, resolve_store, whole


def register(sub) -> None:
    p = sub.add_parser("index", help="index repositories (progress, then the run report)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="repositories to index (default: .)")
    add_common(p)
    p.add_argument("--repos-file", metavar="FILE", default=None,
                   help="also index the repositories listed in FILE (one path a line; # comments)")
    p.add_argument("--store-root", metavar="DIR", default=None,
                   help="with several repositories: store each in DIR/<name> (default: <repo>/.stratum)")
    p.add_argument("--full", action="store_true", help="ignore incremental state; re-parse and re-mine all")
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
                      help="also mine symbol-level co-change (slower; default: off)")
    kept.add_argument("--fixes", dest="mine_fixes", action=argparse.BooleanOptionalAction, default=None,
                      help="mined fix nodes: past bug-fix commits about the files they touched (default: on)")
    kept.add_argument("--changes", dest="mine_changes", action=argparse.BooleanOptionalAction, default=None,
                      help="mined change nodes: other past commits of 1-5 code files, about those files (default: on)")
    p.add_argument("--max-file-bytes", type=whole(1, "--max-file-bytes"), default=None, help="skip files larger than this (default 1 MiB)")
    p.add_argument("--max-commit-files", type=whole(1, "--max-commit-files"), default=None,
                   help="commits touching more files are skipped for co-change (default 30)")
    p.add_argument("--keep", type=int, default=None, metavar="N",
                   help="published versions kept after the publish (default 3; 0: keep every version)")
    p.add_argument("--report", metavar="FILE", default=None, help="also write the JSON run report here")
    p.set_defaults(func=run)


def config_from(args):
    from dataclasses import replace

    from stratum.config import IndexConfig

    given = {"embed": args.embed, "model": args.model, "fixes": args.mine_fixes, "changes": args.mine_changes,
             "symbols": args.symbols, "max_file_bytes": args.max_file_bytes,
             "max_commit_files": args.max_commit_files}
    cfg = IndexConfig(ray_address=args.ray_address, num_cpus=args.num_cpus, full=args.full, ray=args.ray,
                      replace=args.replace, explicit=frozenset(k for k, v in given.items() if v is not None))
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


def repositories(args) -> list[str]:
    """The paths given, then those of --repos-file (blank lines and # comments ignored)."""
    from stratum.errors import InvalidArgument

    paths = list(args.paths)
    if args.repos_file:
        try:
            text = Path(args.repos_file).read_text()
        except OSError as e:
            raise InvalidArgument(f"cannot read --repos-file {args.repos_file}: {e.strerror}") from None
        base = Path(args.repos_file).resolve().parent
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                paths.append(str(base / line) if not Path(line).is_absolute() else line)
    return [os.path.normpath(p) for p in paths] or ["."]     # reported as given, without "a/../"


def stores_for(paths: list[str], store_root: str | None) -> list[str]:
    """One store per repository: DIR/<name> (names made unique), else each repository's own. A
    repository already stored under DIR keeps its store whatever the order of the list (found by
    the ``repo_path`` its manifest records): names by order alone gave a store to another
    repository of the same name when the list changed."""
    import json

    from stratum.config import default_store_path

    if store_root is None:
        return [str(default_store_path(p)) for p in paths]
    root = Path(store_root)
    held: dict[str, str] = {}           # repository path -> its store's folder name under DIR
    for m in sorted(root.glob("*/manifest.json")) if root.is_dir() else ():
        try:
            held.setdefault(str(json.loads(m.read_text()).get("repo_path") or ""), m.parent.name)
        except (OSError, ValueError):
            continue                    # an unreadable store: its name stays taken, nothing else
    used = {m.parent.name for m in root.glob("*/manifest.json")} if root.is_dir() else set()
    out = []
    for p in paths:
        at = str(Path(p).resolve())
        name = held.get(at)
        if name is None:
            base = Path(at).name or "repo"
            name, k = base, 2
            while name in used:
                name, k = f"{base}-{k}", k + 1
            used.add(name)
            held[at] = name
        out.append(str(root / name))
    return out


def run(args) -> int:
    from stratum.errors import InvalidArgument

    cfg = config_from(args)
    paths = repositories(args)
    bar = Progress(enabled=not args.json)
    if len(paths) == 1 and not args.store_root:
        from pipeline.job import index_repository

        prepare = arrow_without_pandas if getattr(args, "console", False) else None
        try:
            rep = index_repository(paths[0], resolve_store(args, paths[0]), cfg, progress=bar, before_work=prepare)
        finally:
            bar.close()
        _write_report(args, rep.to_json())
        emit(args, rep.to_dict(), rep.summary())
        return 0
    if args.store:
        raise InvalidArgument("--store names one store; with several repositories use --store-root DIR")
    from pipeline.job import index_many

    try:
        multi = index_many(list(zip(paths, stores_for(paths, args.store_root))), cfg, progress=bar)
    finally:
        bar.close()
    _write_report(args, multi.to_json())
    emit(args, multi.to_dict(), multi.summary())
    return 0 if multi.ok else 1


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


def _write_report(args, text: str) -> None:
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)


class Progress:
    """Stage progress on stderr (quiet under --json). On a terminal: a tqdm bar per stage with rate
    and ETA; otherwise (a CI or pod log) one line when a stage starts and one when it ends."""

    def __init__(self, enabled: bool = True, stream=None):
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.stage: str | None = None
        self.bar = None
        self.started = 0.0
        self.total = 0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if stage != self.stage:
            self._end()
            self.stage, self.started, self.total = stage, time.monotonic(), total
            if self.tty:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=f"{stage:>12}", file=self.stream, leave=True, dynamic_ncols=True,
                                mininterval=0.1)
            else:
                self.stream.write(f"{stage}: started ({total} items)\n")
                self.stream.flush()
        self.total = total
        if self.bar is not None:
            self.bar.total = total
            self.bar.update(done - self.bar.n)
        if done >= total:
            self._end()

    def _end(self) -> None:
        if self.stage is None:
            return
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        else:
            took = time.monotonic() - self.started
            rate = f", {self.total / took:.0f}/s" if took > 0 and self.total else ""
            self.stream.write(f"{self.stage}: done ({self.total} items in {took:.1f}s{rate})\n")
            self.stream.flush()
        self.stage = None

    def close(self) -> None:
        if self.enabled:
            self._end()


__all__ = ["register", "run", "Progress", "config_from", "repositories", "stores_for"]
