"""The published manifest: what one version of a store names, and the check of its shape when read.

``manifest.json`` (and every copy under ``manifests/``) is this dataclass as JSON. A manifest is
checked for its shape when parsed (``Manifest.from_json``): a damaged one is unreadable, never
half-used; ``Store.manifest`` says so and that `stratum repair` republishes the intact copy.
"""

from __future__ import annotations

import functools
import json
import types
import typing
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from stratum import integrity
from stratum import schema as S


@dataclass
class Manifest:
    """One published version of a store: each dataset's Lance version and checksums, the commit it
    was indexed at, the delta-log records merged into it, and what the run that made it knew."""

    version: int                            # published version of the store (1, 2, ...)
    published_at: float
    repo_name: str
    repo_path: str
    indexed_commit: str | None              # HEAD when indexed (None: not a git repo / no commits)
    history_watermark: str | None           # last mined commit (incremental history)
    datasets: dict[str, int]                # dataset name -> Lance version
    schema_version: int = S.SCHEMA_VERSION
    token_encoding: str = "cl100k_base"
    embedding: dict | None = None           # {"model", "dim", "weights_hash"}
    indexes: dict = field(default_factory=dict)   # warm index files relative to the root
    deltalog_merged: list[str] = field(default_factory=list)  # log record ids merged into this version
    report: dict = field(default_factory=dict)    # the run report summary
    integrity: dict = field(default_factory=dict)  # dataset -> {"version", "files": checksums}; see Store.publish
    root_commits: list[str] = field(default_factory=list)  # the repository's parentless commits (its identity)
    settings: dict = field(default_factory=dict)  # config.settings_of the run: what a plain re-index keeps

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Manifest":
        """Parse a published manifest. ValueError when the text is no manifest: not a JSON object, a
        field missing or of another type, dataset versions its own checksums were not recorded for
        (``Store.manifest`` says it is unreadable and that repair republishes the intact copy). An
        edited manifest.json read as ``[]`` ended every command, repair too, in a traceback; with
        ``datasets`` a string queries said a dataset was not in the version and repair crashed; with
        another Lance version named it was taken for damaged data and repair gave up, the copy
        under manifests/ intact (a probe)."""
        d = json.loads(text)
        if not isinstance(d, dict):
            raise ValueError(f"it holds a JSON {_JSON_KINDS.get(type(d), type(d).__name__)}, not an object")
        missing = [f.name for f in fields(cls) if f.name not in d and f.default is MISSING
                   and f.default_factory is MISSING]
        if missing:
            raise ValueError(f"it has no {', '.join(map(repr, missing))}")
        known = {f for f in cls.__dataclass_fields__}
        m = cls(**{k: v for k, v in d.items() if k in known})
        m._check_shape()
        return m

    def _check_shape(self) -> None:
        for name, tp in _manifest_fields().items():
            value = getattr(self, name)
            if not _fits(value, tp):
                shown = json.dumps(value)
                shown = shown if len(shown) <= 40 else shown[:37] + "..."
                raise ValueError(f"its {name!r} is {shown}, not {_spelled(tp)}")
        if self.version < 1 or any(v < 1 for v in self.datasets.values()):
            raise ValueError(f"its version numbers are not versions (version {self.version}, datasets "
                             f"{json.dumps(self.datasets, sort_keys=True)[:80]})")
        if not self.integrity:          # published before checksums were recorded
            return
        for name in sorted(set(self.datasets) | set(self.integrity)):
            entry = self.integrity.get(name)
            if name not in self.datasets:
                raise ValueError(f"it records checksums of dataset {name!r}, which its 'datasets' lacks")
            if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
                raise ValueError(f"it records no checksums of dataset {name!r}")
            if entry.get("version") != self.datasets[name]:
                raise ValueError(f"its 'datasets' names {name} version {self.datasets[name]}, its checksums "
                                 f"version {entry.get('version')}")
            if integrity.seal(entry["files"]) != entry.get("seal"):
                raise ValueError(f"its checksums of dataset {name!r} are damaged")


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


@functools.lru_cache(maxsize=None)
def _manifest_fields() -> dict[str, Any]:
    return typing.get_type_hints(Manifest)


def _fits(value: Any, tp: Any) -> bool:
    """Whether a JSON value is of an annotated field type (``int``, ``str | None``, ``dict[str, int]``, ...)."""
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return any(_fits(value, a) for a in args)
    if tp is type(None):
        return value is None
    if tp in (int, float):              # JSON has one kind of number; true is no number here
        return isinstance(value, (int, float) if tp is float else int) and not isinstance(value, bool)
    if origin is dict:
        return isinstance(value, dict) and all(_fits(k, args[0]) and _fits(v, args[1]) for k, v in value.items())
    if origin is list:
        if not isinstance(value, list):
            return False
        if args[0] is str:      # a plain element type checked directly: deltalog_merged lists every merged
            return all(type(v) is str for v in value)   # note (10,069 ids: 8 ms a manifest read, each reload tick)
        return all(_fits(v, args[0]) for v in value)
    return isinstance(value, tp)


def _spelled(tp: Any) -> str:
    return str(tp) if typing.get_args(tp) else getattr(tp, "__name__", str(tp))


__all__ = ["Manifest"]
