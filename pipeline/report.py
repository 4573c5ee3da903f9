"""The run report: what an index run did, skipped (with reasons) and cost, as JSON and as text.

The report owns its bookkeeping: stages hand it what they found (``skip``, ``absorb_discovery``,
``absorb_parsed``, ``absorb_reused``) instead of each keeping counters of their own. Its per-file
warnings describe the version it publishes: a file reused unchanged counts the warnings its node
kept when it was parsed (an incremental report said none where a ``--full`` one of the same commit
said some). ``MultiReport`` is the one summary of a job over several repositories.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import asdict, dataclass, field

from stratum.config import DEFAULT_BUGFIX_RULE

SAMPLES_PER_REASON = 5


@dataclass
class RunReport:
    repo: str
    store: str
    version: int = 0
    incremental: bool = False
    files_seen: int = 0
    files_parsed: int = 0
    files_reused: int = 0                     # unchanged content hash: nodes and vectors kept
    skipped: Counter = field(default_factory=Counter)      # reason -> count
    skipped_samples: dict = field(default_factory=dict)    # reason -> a few paths
    not_parsed: dict = field(default_factory=dict)         # kept as plain file nodes, e.g. unsupported_language
    warnings: Counter = field(default_factory=Counter)     # e.g. invalid_utf8, syntax_error
    nodes: dict = field(default_factory=dict)              # kind -> count
    edges: dict = field(default_factory=dict)              # kind -> count
    external_imports: int = 0
    history: dict = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    embedded: int = 0
    embed_cached: int = 0
    seconds: dict = field(default_factory=dict)            # stage -> wall seconds
    messages: list = field(default_factory=list)           # clear one-line notices (shallow clone, ...)
    engine: str = ""                                       # "in-process" or "ray" (and why); seconds["ray_start"]
    up_to_date: bool = False                               # nothing changed: no new version published
    worktree: str = ""                                     # "clean" (as HEAD) or "dirty" when indexed
    # the branch the checkout had out when HEAD was read ("" detached; None: not recorded, as in a
    # version indexed before): whose work tree the run read (branchnotes.IndexedHistory.unindexed)
    branch: str | None = None
    # the repository's default branch then, read when ``branch`` is one (gitio.default_branch; "" when git
    # names none; None: not recorded): a note written at this version on another records ``branch``
    default_branch: str | None = None
    # the branches the notes' merge asked of (``branchheld.BranchHeld.asked``: name -> its commit
    # then, None when there was none): a branch deleted or moved since makes a run at the same HEAD
    # no "up to date" (``storestate.up_to_date``), as its notes' pending marks may go
    branch_tips: dict = field(default_factory=dict)
    # the uncommitted paths read then (DIRTY_PATHS_KEPT), each with the state of the bytes parsed
    # (storestate.dirty_states, then as_parsed); a list of the paths alone in a version indexed before
    dirty_paths: dict = field(default_factory=dict)
    worktree_key: str = ""                                 # of every uncommitted path's state then (storestate.worktree_key)
    config_key: str = ""                                   # fingerprint of the settings that shape the index
    parse_format: int = 0                                  # storestate.PARSE_FORMAT of the parse output kept
    # the linker's key (callkeep.link_key), the calls edges kept from the previous version, the
    # files whose callers were linked (all of them when none were kept)
    link: dict = field(default_factory=dict)

    def skip(self, reason: str, path: str) -> None:
        """Count one skipped file under ``reason`` and keep a few sample paths."""
        self.skipped[reason] += 1
        s = self.skipped_samples.setdefault(reason, [])
        if len(s) < SAMPLES_PER_REASON:
            s.append(path)

    def absorb_discovery(self, disc) -> None:
        """What ``pipeline.files.discover`` skipped or keeps unparsed."""
        self.files_seen = len(disc.files) + sum(disc.skipped.values())
        self.skipped.update(disc.skipped)
        for reason, paths in disc.samples.items():
            self.skipped_samples[reason] = list(paths)[:SAMPLES_PER_REASON]
        self.not_parsed = dict(disc.not_parsed)
        if disc.vendored:                   # which folders, why, and the way back (--keep-dir)
            from stratum.config import VENDORED_RULE

            where = ", ".join(f"{f}/ ({n})" for f, n in sorted(disc.vendored.items())[:5])
            more = f" and {len(disc.vendored) - 5} more folders" if len(disc.vendored) > 5 else ""
            n = sum(disc.vendored.values())
            self.messages.append(f"{n} file{'s' if n != 1 else ''} skipped as vendored in {where}{more}: "
                                 + VENDORED_RULE.removeprefix("vendored: "))

    def absorb_parsed(self, pf) -> bool:
        """A ``ParsedFile``'s warnings and skip; True when its nodes are kept."""
        for w in pf.warnings:
            if w.startswith("parse_error:"):
                self.messages.append(w)
            else:
                self.warnings[w] += 1
        if pf.skip_reason and not pf.nodes:
            self.skip(pf.skip_reason, pf.path)
            return False
        return True

    def absorb_reused(self, rows: list[dict]) -> None:
        """The warnings of files reused from the previous version (``stages.reuse``'s rows), as their
        file nodes' ``meta`` keeps them (``pipeline.parse``): one substring test a row, most have none."""
        for r in rows:
            if r["kind"] == "file" and '"warnings"' in (meta := r.get("meta") or ""):
                self.warnings.update(json.loads(meta).get("warnings") or [])

    def timed(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def to_dict(self) -> dict:
        d = asdict(self)
        d["skipped"] = dict(self.skipped)
        d["warnings"] = dict(self.warnings)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True, default=str)

    def summary(self) -> str:
        if self.up_to_date:
            return f"{self.repo} is up to date in {self.store} (version {self.version}): " + \
                "; ".join(self.messages) + f" ({self.seconds.get('total', 0.0):.2f}s)"
        lines = [f"indexed {self.repo} -> {self.store} (version {self.version}"
                 f"{', incremental' if self.incremental else ''})",
                 f"  files: {self.files_seen} seen, {self.files_parsed} parsed, {self.files_reused} unchanged"]
        if self.skipped:
            lines.append("  skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items())))
        if self.warnings:
            lines.append("  warnings: " + ", ".join(f"{k} {v}" for k, v in sorted(self.warnings.items())))
        lines.append("  nodes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.nodes.items())))
        lines.append("  edges: " + ", ".join(f"{k} {v}" for k, v in sorted(self.edges.items()))
                     + f"; external imports {self.external_imports}")
        if self.history:
            h = {**self.history, **({"bugfix_rule": _rule_name(self.history["bugfix_rule"])}
                                    if "bugfix_rule" in self.history else {})}
            lines.append("  history: " + ", ".join(f"{k} {v}" for k, v in sorted(h.items())
                                                    if not isinstance(v, (dict, list)) and v != ""))
        if self.notes:
            lines.append("  notes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.notes.items())))
        lines.append(f"  embedded: {self.embedded} new, {self.embed_cached} from cache")
        if self.engine:
            lines.append(f"  engine: {self.engine}")
        lines.append("  time: " + ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items()))
        lines.extend(f"  note: {m}" for m in self.messages)
        return "\n".join(lines)


def _rule_name(rule: str) -> str:
    """The bug-fix rule as the report's text names it (the regex is ~600 characters of lookaheads, and
    filled the history line; ``--json`` keeps it whole): the default, or a custom one and where it is set."""
    if rule == DEFAULT_BUGFIX_RULE:
        return "default (stratum.config.DEFAULT_BUGFIX_RULE)"
    return "custom (HistoryConfig.bugfix_rule; --json shows the regex)"


# What a repository of a multi-repository job came to. A report written while the job runs (or left
# by a killed one) says "not_run" before the job started (Ray up), then "queued" for one waiting its
# turn (on Ray: for a free worker) and "running" for one under way; a job stopped by a signal turns its
# "running" ones into "interrupted" and its "queued" ones back into "not_run" (they never ran).
STATES = ("not_run", "queued", "running", "ok", "failed", "interrupted")


@dataclass
class RepoOutcome:
    """One repository of a multi-repository job: its report, or why it failed, or that it never ran."""

    repo: str                        # as listed
    store: str
    seconds: float = 0.0
    report: dict | None = None       # RunReport.to_dict() when it succeeded
    error: dict | None = None        # {"code", "type", "message"} when it failed
    state: str = ""                  # one of STATES; default: "failed" with an error, else "ok"
    root: str = ""                   # the repository top level indexed (the listed path may be inside it)

    def __post_init__(self) -> None:
        if not self.state:
            self.state = "failed" if self.error else "ok"

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    def line(self) -> str:
        """One line: what came of this repository (the summary's, and a log's as each finishes)."""
        if self.state == "failed":
            return f"FAILED {self.repo}: {self.error.get('message') if self.error else ''}"
        if self.state != "ok":
            return f"{self.state.upper().replace('_', ' ')} {self.repo} -> {self.store}"
        r = self.report or {}
        nodes = sum((r.get("nodes") or {}).values())
        inside = f" (inside {self.root}: indexed that repository)" if self.root and _inside(self.repo, self.root) else ""
        if r.get("up_to_date"):
            return f"ok {self.repo}{inside}: up to date (version {r.get('version')}, {nodes} nodes) -> {self.store}"
        skips = sum((r.get("skipped") or {}).values())
        errs = sum(1 for m in r.get("messages") or [] if str(m).startswith("parse_error:"))
        return (f"ok {self.repo}{inside}: {self.seconds:.1f}s, version {r.get('version')}, {nodes} nodes, "
                f"{skips} skipped, {errs} errors -> {self.store}")


def _inside(listed: str, root: str) -> bool:
    """The listed path is a folder below the repository's top level (not the top itself)."""
    return os.path.realpath(listed) != os.path.realpath(root)


@dataclass
class MultiReport:
    """The summary of one job over several repositories (one store each). ``error``: why the job
    could not run at all (no cluster answered): then no repository ran. ``interrupted``: the signal
    that stopped it (the outcomes say which finished)."""

    outcomes: list = field(default_factory=list)    # RepoOutcome, in the order given
    seconds: float = 0.0
    engine: str = ""
    error: dict | None = None
    interrupted: str = ""
    finished: bool = False                          # False in a report written while the job runs
    ray_start: float = 0.0                          # seconds to start or join Ray (0: none)

    @classmethod
    def listing(cls, targets: list[tuple[str, str]]) -> "MultiReport":
        """A report with every ``(repo, store)`` not run yet."""
        return cls(outcomes=[RepoOutcome(repo, store, state="not_run") for repo, store in targets])

    @property
    def ok(self) -> bool:
        return self.finished and self.error is None and not self.interrupted and all(o.ok for o in self.outcomes)

    def counts(self) -> dict:
        c = Counter(o.state for o in self.outcomes)
        return {s: c.get(s, 0) for s in STATES}

    def to_dict(self) -> dict:
        return {"ok": self.ok, "finished": self.finished, "error": self.error, "interrupted": self.interrupted,
                "seconds": self.seconds, "ray_start": self.ray_start, "engine": self.engine, "counts": self.counts(),
                "repositories": [asdict(o) for o in self.outcomes]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True, default=str)

    def summary(self) -> str:
        c = self.counts()
        head = f"indexed {c['ok']} of {len(self.outcomes)} repositories in {self.seconds:.1f}s"
        if self.error:
            head = f"indexed none of {len(self.outcomes)} repositories: {self.error.get('message')}"
        elif self.interrupted:
            head += f", stopped by {self.interrupted}"
        elif not self.finished:
            head += ", still running"
        ray = f", Ray start {self.ray_start:.1f}s" if self.ray_start else ""
        lines = [head + (f" ({self.engine}{ray})" if self.engine else "")]
        lines.extend(f"  {o.line()}" for o in self.outcomes)
        return "\n".join(lines)


__all__ = ["RunReport", "RepoOutcome", "MultiReport", "STATES", "SAMPLES_PER_REASON"]
