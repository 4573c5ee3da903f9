"""Settings, as typed dataclasses with documented defaults (no string-keyed dicts of runtime state)."""

from __future__ import annotations

import os
import posixpath
import re
from typing import Any, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from stratum.errors import InvalidArgument
from stratum.storehome import default_store_path

# Folders of other projects' code, skipped wherever they sit (reason ``vendored``; pipeline.files).
DEFAULT_VENDORED = ("node_modules", "vendor", "third_party", "third-party", "bower_components",
                    ".venv", "venv", "site-packages")
# Names first-party code uses too (sympy/external holds sympy's own wrappers of gmpy and mpmath; an
# app's clients of outside services): vendored only where third-party code sits, at the repository
# root or holding a copied-in project's license or manifest, and never as a Python package
# (stratum.vendored.Vendored; skipped as vendored, sympy's 16 external files lost 267 imports).
DEFAULT_MAYBE_VENDORED = ("external",)
# What `get` and the run report say of a file skipped as vendored: the rule and the way back.
VENDORED_RULE = ("vendored: in a folder of other projects' code (" + ", ".join(DEFAULT_VENDORED) + " anywhere; "
                 + ", ".join(DEFAULT_MAYBE_VENDORED) + " at the repository root or holding a license or "
                 "package manifest, never as a Python package); `stratum index --keep-dir FOLDER` indexes it")
# The memory a Ray task indexing one repository asks (bytes; pipeline.many): Ray then starts no
# more of them on a worker than its memory holds. Peak RSS measured: flask, werkzeug, requests
# 0.4-0.5 GB, redis 0.7 GB, sympy (30 MB of source, 77k nodes, 62k commits) 2.1-2.5 GB
# (docs/operations.md, "Index memory"). STRATUM_TASK_MEMORY or --task-memory sets another.
DEFAULT_TASK_MEMORY = 2 << 30
TASK_MEMORY_ENV = "STRATUM_TASK_MEMORY"
# A bug fix by its subject (first line) only; cosmetic, lint/mypy, bare typing and revert subjects
# excluded. Precision 0.881 (0.860 before those exclusions; 0.49 for the old "fix|bug|issue|...|error
# anywhere, or any #123" rule) on 102 labelled commits, 0.966 (0.933) on 30 held-out ones; of the 58
# commits of flask, requests and werkzeug the exclusions un-flag, 5 were fixes (pipeline/fixes.py).
# "release" anywhere also drops "Fix race condition in connection release": excluding release chores
# only was measured and not adopted (9 of the 10 commits it adds are fixes, 0.900 < 0.915 overall;
# benchmarks/bugfix_rule.py RELEASE_CHORE_RULE, docs/history.md).
DEFAULT_BUGFIX_RULE = (r"(?i)\A(?!\W*revert\b(?!\W*revert\b))(?!\W*merge (pull request|(remote-tracking )?branch)\b)"
                       r"(?![^\n]*\b(typos?|docs?|docstrings?|document\w*|gramma\w*|spelling|comments?"
                       r"|lint(s|ing|er)?|flake8|pep8|pyflakes|mypy|pre-commit|style(check)?|whitespace|spacing"
                       r"|changelog|readme|release)\b)"
                       r"(?!\W*fix\w*\s+(the\s+)?(typing|type\s+(hints?|annotations?)|annotations?)\W*(\n|\Z))"
                       r"[^\n]*?\b(fix(e[sd]|ing)?|hotfix(es)?|bugs?|bugfix(es)?|regressions?|crash(es|ed)?|race condition)\b")


@dataclass(frozen=True)
class ParseConfig:
    max_file_bytes: int = 1 << 20          # files over 1 MiB are skipped (reason: oversized)
    vendored_dirs: tuple[str, ...] = DEFAULT_VENDORED
    maybe_vendored_dirs: tuple[str, ...] = DEFAULT_MAYBE_VENDORED
    # repository-relative folders indexed though a vendored rule names them (`index --keep-dir`);
    # a vendored folder below one is still skipped (keep_dirs_of normalises and checks them)
    keep_dirs: tuple[str, ...] = ()
    binary_probe_bytes: int = 8000          # a NUL in the first 8,000 bytes means binary (as git does)
    token_encoding: str = "cl100k_base"


@dataclass(frozen=True)
class HistoryConfig:
    skip_merges: bool = True
    max_files_per_commit: int = 30          # larger commits are skipped for co-change (counted)
    min_support: int = 2                    # co-change pairs with fewer shared commits are dropped
    half_life_days: float = 180.0           # time decay of co-change weight
    bugfix_rule: str = DEFAULT_BUGFIX_RULE  # regex searched in the commit message (the default reads the subject)
    symbols: bool = False                   # symbol-level co-change (opt-in: it reads diffs)
    max_symbols_per_commit: int = 50        # symbol co-change skips commits changing more functions
    line_counts: bool = True                # lines added/deleted per file (off: git compares trees only, 5-8x faster)


@dataclass(frozen=True)
class EmbedConfig:
    enabled: bool = True
    model: str = "all-MiniLM-L6-v2-static"  # or "all-MiniLM-L6-v2": same hybrid MRR, ~60x cheaper (docs/bench/embed.md)
    recipe: str = ""                        # static model only: stratum.static_embed.Recipe id ("": default)
    precision: str = "int8"                 # int8 (per-channel weights) or fp32; see docs/bench/embed.md
    batch_size: int = 64
    max_tokens: int = 256                   # model input limit (word pieces)
    actors: int = 1
    threads_per_actor: int = 0              # 0: onnxruntime default for the actor's CPUs


@dataclass(frozen=True)
class IndexConfig:
    parse: ParseConfig = field(default_factory=ParseConfig)
    history: HistoryConfig = field(default_factory=HistoryConfig)
    embed: EmbedConfig = field(default_factory=EmbedConfig)
    ray_address: str | None = None          # None: RAY_ADDRESS, else in-process or a local Ray (below)
    num_cpus: int | None = None             # local Ray only
    full: bool = False                      # ignore incremental state (the content-keyed embedding cache is still read)
    replace: bool = False                   # the store may hold another repository: index this one into it
    ray: bool | None = None                 # None: Ray for a named cluster or large work; True/False: force
    # Without a named cluster, Ray is started only when this much source is to be parsed: a local
    # start costs 2.5 s on a quiet machine (10+ s on a busy one) and in-process parsing runs
    # ~3.6 MB/s on one core, so two cores win back the start at 18 MB at the very best
    # (docs/operations.md, "In-process or Ray"; docs/bench/index_speed.md).
    ray_min_parse_bytes: int = 24 << 20
    # Published versions kept after each publish (Store.prune: older Lance versions and warm folders
    # that no open reader holds are removed, so a nightly index does not grow the disk); 0: keep all.
    keep_versions: int = 3
    # Mined ``fix`` nodes (pipeline.fixes: past bug-fix commits about the files they touched): the
    # experience a fresh clone already has (ranking lifts the files past fixes touched).
    mine_fixes: bool = True
    # Mined ``change`` nodes: every other non-merge commit with 1..5 code files, about those files
    # (the same mining). Most later tasks are not bug fixes: day-one file MRR +0.14 over text alone
    # with changes, +0.03 with fixes only (docs/bench/retrieval.md); one node per such commit.
    mine_changes: bool = True
    # The memory each Ray task of a many-repository job asks, in bytes (pipeline.many): None:
    # STRATUM_TASK_MEMORY, else DEFAULT_TASK_MEMORY; 0: none (Ray packs tasks by CPU alone).
    task_memory: int | None = None
    # The KEPT_SETTINGS this config sets on purpose; the others follow what the store was last
    # indexed with (so a plain `stratum index`, a hook or watch after `--model X` or `--no-changes`
    # does not switch back). None: every setting here is meant (API callers, the default).
    explicit: frozenset[str] | None = None

    def to_dict(self) -> dict:
        return asdict(self)


# setting name -> (section or "" for IndexConfig itself, field): what a store remembers of its index.
# Every HistoryConfig field is one: a store indexed through the API with half_life_days=30 was
# recomputed at 180 by the next hook's plain `stratum index` (a data probe), and the manifest did
# not say which half-life its decayed_weight used (``Manifest.settings`` does now).
KEPT_SETTINGS = {"embed": ("embed", "enabled"), "model": ("embed", "model"), "fixes": ("", "mine_fixes"),
                 "changes": ("", "mine_changes"), "symbols": ("history", "symbols"),
                 "max_file_bytes": ("parse", "max_file_bytes"),
                 "max_commit_files": ("history", "max_files_per_commit"),
                 "keep_dirs": ("parse", "keep_dirs"),
                 "skip_merges": ("history", "skip_merges"), "min_support": ("history", "min_support"),
                 "half_life_days": ("history", "half_life_days"), "bugfix_rule": ("history", "bugfix_rule"),
                 "max_symbols_per_commit": ("history", "max_symbols_per_commit"),
                 "line_counts": ("history", "line_counts")}


# Kept settings recorded as None while at this build's default, read back as this build's default:
# the bug-fix rule is refined between releases (measured, docs/history.md), and a store indexed with
# the old default re-judges under the new one (the run report's ``history.bugfix_rule`` holds the regex).
FOLLOWS_DEFAULT = {"bugfix_rule": DEFAULT_BUGFIX_RULE}


def settings_of(cfg: IndexConfig) -> dict:
    """The KEPT_SETTINGS values of ``cfg`` (recorded in the manifest; FOLLOWS_DEFAULT ones None at
    their default)."""
    out = {name: getattr(getattr(cfg, sec) if sec else cfg, f) for name, (sec, f) in KEPT_SETTINGS.items()}
    return {k: None if k in FOLLOWS_DEFAULT and v == FOLLOWS_DEFAULT[k] else v for k, v in out.items()}


def _read_back(name: str, value: Any) -> Any:
    """A recorded setting as a config holds it: a list (JSON's tuple) as a tuple, None as the default."""
    if isinstance(value, list):
        return tuple(value)
    return FOLLOWS_DEFAULT[name] if value is None and name in FOLLOWS_DEFAULT else value


def changed_settings(cfg: IndexConfig, recorded: dict) -> dict[str, tuple[Any, Any]]:
    """The KEPT_SETTINGS ``cfg`` sets otherwise than the store recorded them: name -> (recorded,
    now), for the run report (a run that changes a setting changes it for later plain runs too). A
    setting the store did not record (indexed before it was kept) is not named: its value is unknown."""
    out = {}
    for name, old in recorded.items():
        if name not in KEPT_SETTINGS:
            continue
        sec, f = KEPT_SETTINGS[name]
        was, now = _read_back(name, old), getattr(getattr(cfg, sec) if sec else cfg, f)
        if was != now:
            out[name] = (was, now)
    return out


def settings_text(values: dict, changed: bool = False) -> str:
    """``name=value`` pairs for a message (``changed``: ``changed_settings``' pairs, as ``name old ->
    new``); a bug-fix rule by its name (the default regex is 468 characters: ``default`` or
    ``custom``; the report's JSON keeps the regex)."""
    def shown(name: str, v: Any) -> str:
        if name == "bugfix_rule" and isinstance(v, str):
            return "default" if v == DEFAULT_BUGFIX_RULE else "custom"
        return str(v)
    if changed:
        return ", ".join(f"{k} {shown(k, old)} -> {shown(k, new)}" for k, (old, new) in values.items())
    return ", ".join(f"{k}={shown(k, v)}" for k, v in values.items())


def with_kept(cfg: IndexConfig, recorded: dict) -> tuple[IndexConfig, dict]:
    """``cfg`` with every recorded setting it does not set on purpose (``cfg.explicit``) taken from
    the store; also the settings so taken that differ from ``cfg``'s (for the run report)."""
    explicit = cfg.explicit
    if explicit is None:
        return cfg, {}
    from dataclasses import replace

    taken: dict[str, Any] = {}
    for name, value in recorded.items():
        if name not in KEPT_SETTINGS or name in explicit:
            continue
        sec, f = KEPT_SETTINGS[name]
        value = _read_back(name, value)
        part: Any = getattr(cfg, sec) if sec else cfg
        if getattr(part, f) == value:
            continue
        taken[name] = value
        changes: dict[str, Any] = {sec: replace(part, **{f: value})} if sec else {f: value}
        cfg = replace(cfg, **changes)
    return cfg, taken


def keep_dirs_of(values: Iterable[str]) -> tuple[str, ...]:
    """``--keep-dir`` values as the index matches them: repository-relative folders in git's
    spelling (``./a/b/`` is ``a/b``), each once, sorted; an empty value is dropped (``--keep-dir ''``
    clears a store's list). A path that leaves the repository, an absolute one (one setting serves
    every repository of a run) or the repository itself is refused: InvalidArgument."""
    out = set()
    for raw in values:
        v = raw.strip()
        if not v:
            continue
        norm = posixpath.normpath(v)
        if "\0" in v or posixpath.isabs(norm) or norm == ".." or norm.startswith("../") or norm == ".":
            raise InvalidArgument(f"--keep-dir {v!r}: name a folder inside the repository, relative to its top "
                                  "(e.g. src/external); '' clears the list")
        out.add(norm)
    return tuple(sorted(out))


def parse_size(text: str, what: str = "a size") -> int:
    """Bytes from ``2G``, ``2.5GiB``, ``800M``, ``512MB`` or a plain count (K, M, G, T are powers of
    1024, as Kubernetes' Gi; case ignored); ``0`` is zero. Anything else is InvalidArgument."""
    m = _SIZE.fullmatch(text.strip())
    if m is None:
        raise InvalidArgument(f"{what} must be a size such as 2G, 2.5GiB, 800M or a byte count, not {text!r}")
    return int(float(m.group(1)) * 1024 ** " KMGT".index((m.group(2) or " ").upper()))


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:([kKmMgGtT])(?:i?[bB])?|[bB])?")


def task_memory(cfg: IndexConfig, environ: Mapping[str, str] = os.environ) -> int:
    """The bytes a Ray task indexing one repository asks: ``cfg.task_memory``, else
    ``$STRATUM_TASK_MEMORY``, else DEFAULT_TASK_MEMORY (0: no request)."""
    if cfg.task_memory is not None:
        if cfg.task_memory < 0:
            raise InvalidArgument(f"task_memory must be 0 (no request) or more bytes, not {cfg.task_memory}")
        return cfg.task_memory
    got = environ.get(TASK_MEMORY_ENV, "").strip()
    return parse_size(got, TASK_MEMORY_ENV) if got else DEFAULT_TASK_MEMORY


__all__ = ["ParseConfig", "HistoryConfig", "EmbedConfig", "IndexConfig", "default_store_path",
           "KEPT_SETTINGS", "FOLLOWS_DEFAULT", "settings_of", "changed_settings", "settings_text", "with_kept", "keep_dirs_of", "parse_size", "task_memory",
           "DEFAULT_VENDORED", "DEFAULT_MAYBE_VENDORED", "VENDORED_RULE", "DEFAULT_TASK_MEMORY", "TASK_MEMORY_ENV",
           "DEFAULT_BUGFIX_RULE"]
