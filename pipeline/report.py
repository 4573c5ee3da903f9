"""The run report: what an index run did, skipped (with reasons) and cost, as JSON and as text."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field


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

    def to_dict(self) -> dict:
        d = asdict(self)
        d["skipped"] = dict(self.skipped)
        d["warnings"] = dict(self.warnings)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True, default=str)

    def summary(self) -> str:
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
                                                    if not isinstance(v, (dict, list))))
        if self.notes:
            lines.append("  notes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.notes.items())))
        lines.append(f"  embedded: {self.embedded} new, {self.embed_cached} from cache")
        lines.append("  time: " + ", ".join(f"{k} {v:.1f}s" for k, v in self.seconds.items()))
        lines.extend(f"  note: {m}" for m in self.messages)
        return "\n".join(lines)
