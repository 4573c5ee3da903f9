"""The run report: what an index run did, skipped (with reasons) and cost, as JSON and as text.

The report owns its bookkeeping: stages hand it what they found (``skip``, ``absorb_discovery``,
``absorb_parsed``) instead of each keeping counters of their own. ``MultiReport`` is the one summary
of a job over several repositories.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field

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
    engine: str = ""                                       # "in-process" or "ray" (and why)
    up_to_date: bool = False                               # nothing changed: no new version published
    worktree: str = ""                                     # "clean" (as HEAD) or "dirty" when indexed
    config_key: str = ""                                   # fingerprint of the settings that shape the index
    parse_format: int = 0                                  # storestate.PARSE_FORMAT of the parse output kept

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
            h = self.history
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


@dataclass
class RepoOutcome:
    """One repository of a multi-repository job: its report, or why it failed."""

    repo: str
    store: str
    seconds: float = 0.0
    report: dict | None = None       # RunReport.to_dict() when it succeeded
    error: dict | None = None        # {"code", "type", "message"} when it failed

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class MultiReport:
    """The summary of one job over several repositories (one store each)."""

    outcomes: list = field(default_factory=list)    # RepoOutcome, in the order given
    seconds: float = 0.0
    engine: str = ""

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "seconds": self.seconds, "engine": self.engine,
                "repositories": [asdict(o) for o in self.outcomes]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True, default=str)

    def summary(self) -> str:
        good = sum(1 for o in self.outcomes if o.ok)
        lines = [f"indexed {good} of {len(self.outcomes)} repositories in {self.seconds:.1f}s ({self.engine})"]
        for o in self.outcomes:
            if o.ok:
                r = o.report or {}
                nodes = sum((r.get("nodes") or {}).values())
                skips = sum((r.get("skipped") or {}).values())
                errs = sum(1 for m in r.get("messages") or [] if str(m).startswith("parse_error:"))
                lines.append(f"  ok     {o.repo}: {o.seconds:.1f}s, {nodes} nodes, {skips} skipped, "
                             f"{errs} errors -> {o.store}")
            else:
                lines.append(f"  FAILED {o.repo}: {o.error.get('message') if o.error else ''}")
        return "\n".join(lines)


__all__ = ["RunReport", "RepoOutcome", "MultiReport", "SAMPLES_PER_REASON"]
