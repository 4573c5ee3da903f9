"""`stratum repair`: make a damaged store servable again without losing a note.

What can be damaged and what repair does (under the writer lock, so no index runs meanwhile):

- **The warm tier** (HNSW, keyword postings, CSR files) of the published version: rebuilt from
  that version's Lance rows (``stratum.warm.rebuild_warm``) and swapped in place.
- **A Lance dataset** of the published version (a data file fails its checksum, or Lance cannot
  read it): the store rolls back to the newest older published version whose files are intact
  (Lance keeps old versions until ``prune``), republished as a new version number so servers
  reload. Notes merged after that version live only in delta-log segments that the index job
  moved to ``deltalog/retired/``: every retired segment holding a record the rollback target does
  not reflect is moved back into the live log, so the overlay serves those notes at once and the
  next index merges them again (merging is idempotent). The log's format is untouched: segments
  are read with ``deltalog.parse_segment`` and moved whole.
- **The embedding cache** (``store.CACHES``: read by `stratum index` alone, never by a query, so a
  Snapshot serves a version whose cache is damaged, saying so): dropped from the version published
  and its folder set aside (``embeddings.lance.damaged-<time>``); the next index embeds the text
  again and starts a new cache. It was taken for damaged data: repair rolled back, or said "no
  older published version is intact; re-index --full" (a probe deleted the cache's folder).
- **manifest.json** unreadable (not JSON, not a manifest's shape, dataset versions its own
  checksums were not recorded for: ``Manifest.from_json``): the newest readable
  ``manifests/NNNNNN.json`` is republished. When that copy is older than the version last
  published (its copy is damaged too), the retired delta-log segments holding notes it lacks are
  moved back, as for a rollback.
- **A copy under manifests/** unreadable: `--check` reads every one. The current version's copy is
  written again from manifest.json; an older one, which nothing can restore, is moved to
  ``manifests/damaged/`` (an old version can no longer be pinned or rolled back to; prune and
  rollback skip it).
- **Delta-log segments** with damaged bytes (a torn last record after a crash, a bad checksum):
  every reader already skips them, and an index reported them on every run. Each sealed segment,
  live or retired, is rewritten with its valid records only (``logdamage.set_aside_damage``), its
  original bytes kept in ``deltalog/damaged/``; a segment a live writer holds is left and named.

A version repair publishes is numbered after every version ever published (the copies, damaged
ones included): readers' holds and page tokens key on the number, and falling back to version 1's
copy had published "version 2" over a damaged version 2.

After a repair, the version served may be at an older commit than the repository's HEAD (a
rollback, an older copy): the report says so and that `stratum index` brings it up to date. Git's
facts come from the caller (``freshness``: the CLI hands ``pipeline.gitio.freshness``).

The core stays free of pipeline imports: the warm tier is rebuilt with ``stratum.warm``.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from stratum import ids
from stratum import schema as S
from stratum.errors import StoreDamaged, StoreError
from stratum import logdamage
from stratum.store import CACHES, FORMAT_DIR, Manifest, Snapshot, Store


@dataclass
class RepairReport:
    store: str
    version_before: int | None
    version_after: int | None = None
    lance_damage: list[str] = field(default_factory=list)
    warm_damage: list[str] = field(default_factory=list)
    cache_damage: list[str] = field(default_factory=list)   # in a cache dataset (store.CACHES): served anyway
    caches_dropped: list[str] = field(default_factory=list)  # cache datasets left out of the version published
    set_aside: list[str] = field(default_factory=list)       # their folders, renamed (relative to the store)
    manifest_damage: str = ""
    copy_damage: list[str] = field(default_factory=list)    # unreadable manifests/NNNNNN.json copies
    copies_rewritten: list[str] = field(default_factory=list)   # the current version's, from manifest.json
    copies_set_aside: list[str] = field(default_factory=list)   # older ones, moved to manifests/damaged/
    newest_published: int | None = None     # the highest version number published before the repair
    rolled_back_to: int | None = None       # the published version whose data is served again
    warm_rebuilt: bool = False
    segments_restored: list[str] = field(default_factory=list)
    log_damage: list[str] = field(default_factory=list)    # delta-log damage found (repair: set aside)
    log_held: list[str] = field(default_factory=list)      # damaged segments a live writer holds (left)
    notes: int = 0                          # agent notes kept after repair, any status (merged + in the live log)
    behind_head: dict | None = None         # the version served is not at HEAD: repo, indexed_commit, head, new_commits
    pruned: dict | None = None
    checked_only: bool = False

    @property
    def damaged(self) -> bool:
        return bool(self.lance_damage or self.warm_damage or self.cache_damage or self.manifest_damage
                    or self.copy_damage or self.log_damage or self.log_held)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def text(self) -> str:
        lines = [f"store {self.store}: version {self.version_before}"]
        for d in ([self.manifest_damage] if self.manifest_damage else []) + self.lance_damage + self.warm_damage:
            lines.append(f"  damaged: {d}")
        for d in self.cache_damage:
            lines.append(f"  damaged: {d} (a cache only `stratum index` reads: queries are served meanwhile)")
        for d in self.copy_damage:
            lines.append(f"  damaged: {d} (a published version's copy)")
        for d in self.log_damage:
            lines.append(f"  damaged: delta log {d} (no note in those bytes was readable)")
        for name in self.log_held:
            lines.append(f"  damaged: delta log {name}, held by a live writer (a running server or remember): "
                         "repair it once that process has ended")
        if not self.damaged:
            lines.append("  every file checked intact")
        if self.checked_only:
            if self.damaged:
                lines.append(f"  run `stratum repair --store {self.store}` to repair it")
        else:
            if self.rolled_back_to is not None:
                lines.append(f"  rolled back to the data of version {self.rolled_back_to}, published as "
                             f"version {self.version_after}")
            elif self.manifest_damage and self.version_after is not None:
                older = (f", the newest readable (version {self.newest_published}'s is damaged too: the "
                         f"store is back at version {self.version_before}'s data)"
                         if (self.newest_published or 0) > (self.version_before or 0) else "")
                lines.append(f"  manifest restored from version {self.version_before}'s copy{older}, published as "
                             f"version {self.version_after}")
            for name in self.copies_rewritten:
                lines.append(f"  {name} written again from manifest.json")
            for name in self.copies_set_aside:
                lines.append(f"  {name} moved to manifests/damaged/: that version can no longer be pinned or "
                             "rolled back to")
            for name in self.caches_dropped:
                aside = [p for p in self.set_aside if p.startswith(f"{FORMAT_DIR}/{name}.lance.")]
                moved = f" (its folder set aside as {aside[0]})" if aside else ""
                lines.append(f"  the {name} cache dropped from version {self.version_after}{moved}: queries never "
                             "read it; the next `stratum index` embeds the text again and starts a new cache")
            if self.segments_restored:
                lines.append(f"  {len(self.segments_restored)} retired delta-log segment(s) moved back: their "
                             "notes are served now and merged by the next `stratum index`")
            if self.warm_rebuilt:
                lines.append("  warm indexes rebuilt from the Lance data")
            if self.log_damage:
                lines.append(f"  {len(self.log_damage)} damaged delta-log span(s) set aside: their segments now hold "
                             "their valid records only; the original bytes are kept in deltalog/damaged/")
            lines.append(f"  agent notes kept (any status): {self.notes}")
            if self.behind_head:
                b = self.behind_head
                n = b["new_commits"]
                where = f"{n} commit(s) behind HEAD" if n > 0 else "not at HEAD"
                lines.append(f"  the store is at commit {b['indexed_commit'][:12]}, {where} ({b['head'][:12]}): "
                             f"`stratum index {b['repo']} --store {self.store}` brings it up to date")
        if self.pruned is not None:
            gone = sum(len(v) for v in self.pruned.get("lance", {}).values())
            lines.append(f"  pruned {gone} Lance version(s) and {len(self.pruned.get('warm', []))} warm folder(s); "
                         f"kept versions {self.pruned.get('versions')}")
        return "\n".join(lines)


def check(store: Store, manifest: Manifest) -> tuple[list[str], list[str]]:
    """(Lance damage, warm damage) of one published version, every block of every file read."""
    lance = _lance_damage(store, manifest)
    return lance, [] if lance else _warm_check(store, manifest)


Freshness = Callable[[str, "str | None"], dict]    # (repo path, indexed commit) -> pipeline.gitio's status dict


def repair(root: str | os.PathLike, *, check_only: bool = False, prune_keep: int | None = None,
           freshness: Freshness | None = None) -> RepairReport:
    """Check the published version; repair what is damaged (see the module docstring); prune old
    versions when ``prune_keep`` is given. Raises StoreDamaged when nothing intact is left.
    ``freshness``: how far the repository's HEAD is from the version served after the repair."""
    store = Store(root)
    if not (store.root / "manifest.json").exists() and not store.published_versions():
        from stratum.errors import NotFound

        raise NotFound(f"no index at {store.root}: run `stratum index` first")
    if check_only:
        current, rep = _current(store)
        rep.checked_only = True
        if current is not None:
            rep.lance_damage, rep.warm_damage = check(store, current)
            rep.cache_damage = [d for ds in _cache_damage(store, current).values() for d in ds]
        rep.copy_damage = list(_copy_damage(store).values())
        rep.log_damage = [str(d) for d in logdamage.damage(_log(store))]
        return rep
    with store.writer_lock():
        current, rep = _current(store)
        if current is None:
            raise StoreDamaged(f"no published manifest of {store.root} is readable; re-index with "
                               "`stratum index --full` (notes in the delta log are kept)")
        rep.lance_damage, rep.warm_damage = check(store, current)
        caches = _cache_damage(store, current)
        rep.cache_damage = [d for ds in caches.values() for d in ds]
        copies = _copy_damage(store)
        rep.copy_damage = list(copies.values())
        done, rep.log_held = logdamage.set_aside_damage(_log(store))
        rep.log_damage = [str(d) for d in done]
        target = current
        if rep.lance_damage:
            target = _rollback_target(store, current)
            rep.rolled_back_to = target.version
            caches = _cache_damage(store, target)
        if rep.lance_damage or rep.manifest_damage:
            # the state served is an older version's when the newest copy was unreadable too: the
            # notes merged after it are only in retired segments (none move when it is the newest)
            rep.segments_restored = _restore_segments(store, target)
        if rep.lance_damage or rep.manifest_damage or caches:
            # the report of the data served stays (the next index reads its parse format, settings,
            # shallow boundary and skip reasons: without them it parsed every file again and mined a
            # shallow clone in full: a review), with what the repair did
            number = (rep.newest_published or current.version) + 1      # never one published before
            new = dataclasses.replace(target, version=number, published_at=time.time(),
                                      report={**(target.report or {}),
                                              "repair": {"from": current.version, "data_of": target.version,
                                                         "caches_dropped": sorted(caches)}})
            if caches:
                new.datasets = {n: v for n, v in new.datasets.items() if n not in caches}
                new.integrity = {n: e for n, e in (new.integrity or {}).items() if n not in caches}
                rep.caches_dropped = sorted(caches)
            # rolled back: the target's warm folder, not read yet; else the folder ``check`` just read
            damage = _warm_check(store, new) if rep.lance_damage else rep.warm_damage
            warm_bad = not (new.indexes or {}).get("dir") or bool(damage)
            if warm_bad:
                new.indexes = _rebuild(store, new, store.index_dir(new.version))
                rep.warm_rebuilt = True
            store.publish(new)
            rep.version_after = new.version
            for name in rep.caches_dropped:         # after the publish: the version served never names it
                rep.set_aside += _set_aside(store, store.data_dir / f"{name}.lance")
        elif rep.warm_damage:
            _rebuild(store, current, None)
            rep.warm_rebuilt = True
            rep.version_after = current.version
        else:
            rep.version_after = current.version
        rep.copies_rewritten, rep.copies_set_aside = _mend_copies(store, copies)
        served = store.manifest()
        rep.notes = _visible_notes(store, served)
        if prune_keep is not None:
            rep.pruned = store.prune(prune_keep, locked=True)
    if freshness is not None:
        rep.behind_head = _behind_head(served, freshness)
    return rep


# ---- steps ----------------------------------------------------------------------------------
def _current(store: Store) -> tuple[Manifest | None, RepairReport]:
    newest = store.newest_number()
    try:
        m = store.manifest()
        return m, RepairReport(str(store.root), m.version, newest_published=max(newest, m.version))
    except StoreError as e:
        for v in reversed(store.published_versions()):
            try:
                m = store.manifest(v)
            except StoreError:
                continue
            return m, RepairReport(str(store.root), m.version, manifest_damage=f"manifest.json: {e.message}",
                                   newest_published=newest)
        return None, RepairReport(str(store.root), None, manifest_damage=f"manifest.json: {e.message}",
                                  newest_published=newest or None)


def _copy_damage(store: Store) -> dict[str, str]:
    """Each unreadable ``manifests/NNNNNN.json`` ("manifests/NNNNNN.json: why"), by name. Parsed,
    not loaded: an old copy of another schema version is intact, only not servable."""
    out = {}
    for v in store.published_versions():
        name = f"manifests/{v:06d}.json"
        try:
            m = Manifest.from_json((store.root / name).read_text())
            if m.version != v:
                raise ValueError(f"it records version {m.version}")
        except (OSError, ValueError, TypeError) as e:
            out[name] = f"{name}: {e}"
    return out


def _mend_copies(store: Store, copies: dict[str, str]) -> tuple[list[str], list[str]]:
    """The published version's damaged copy written again from manifest.json; every other
    damaged copy moved to manifests/damaged/ (what it held is lost; its number stays taken)."""
    from stratum.store import atomic_write

    live = store.manifest()
    rewritten, aside = [], []
    for name in sorted(copies):
        path = store.root / name
        if path.name == f"{live.version:06d}.json":     # publish wrote the two from one text
            atomic_write(path, (store.root / "manifest.json").read_text())
            rewritten.append(name)
        elif path.exists():
            (path.parent / "damaged").mkdir(exist_ok=True)
            os.replace(path, path.parent / "damaged" / path.name)
            aside.append(name)
    return rewritten, aside


def _lance_damage(store: Store, m: Manifest) -> list[str]:
    """Damage in the datasets the version serves (every one but the caches)."""
    return _damage(store, m, set(m.datasets) - CACHES)


def _cache_damage(store: Store, m: Manifest) -> dict[str, list[str]]:
    """Damage in each cache dataset (``store.CACHES``) the version names, checked as its data is."""
    found = {name: _damage(store, m, {name}) for name in sorted(CACHES & set(m.datasets))}
    return {name: damage for name, damage in found.items() if damage}


def _damage(store: Store, m: Manifest, names: set[str]) -> list[str]:
    """Damage in the datasets ``names`` of version ``m`` ("name: what"): checksums first (every block),
    then a full read of each, which also catches what a store published before checksums cannot be
    checked by, and a dataset's folder gone (the first failing read said)."""
    damage = store.verify(m, full=True, names=names)
    if damage:
        return damage
    snap = Snapshot(store, m, verify=False)
    for name in sorted(names):
        try:
            snap.read(name)
        except StoreError as e:         # StoreDamaged, or its folder gone
            return [f"{name}: {e.message}"]
    return []


def _set_aside(store: Store, folder: Path) -> list[str]:
    """Rename a dropped cache's folder out of the store's datasets (``*.lance``): a later index
    writes a new cache instead of a new version over damaged Lance files, and prune never opens it.
    Returns the new name, relative to the store (none when the folder is gone)."""
    if not folder.exists():
        return []
    aside = folder.with_name(f"{folder.name}.damaged-{int(time.time())}")
    os.rename(folder, aside)
    return [str(aside.relative_to(store.root))]


def _warm_check(store: Store, m: Manifest) -> list[str]:
    """Damage in a version's warm folder (none named: nothing to check): every block read once,
    then, when intact, the indexes' structure checks (a file can be intact and still unusable)."""
    from stratum.warm import _open, verify_warm

    info = m.indexes or {}
    if not info.get("dir"):
        return []
    damage = [f"warm {d}" for d in verify_warm(store.root / info["dir"], full=True)]
    if damage:
        return damage
    try:
        _open(store.root / info["dir"], bool(info.get("vector")), verified=True)
    except StoreDamaged as e:
        return [e.message]
    return []


def _rollback_target(store: Store, current: Manifest) -> Manifest:
    for v in sorted((v for v in store.published_versions() if v < current.version), reverse=True):
        try:
            m = store.manifest(v)
        except StoreError:
            continue
        if not _lance_damage(store, m):
            return m
    raise StoreDamaged(f"the Lance data of {store.root} version {current.version} is damaged and no older "
                       "published version is intact; re-index with `stratum index --full` (notes in the "
                       "delta log are kept)")


def _rebuild(store: Store, m: Manifest, directory: Path | None) -> dict:
    from stratum.warm import rebuild_warm

    return rebuild_warm(Snapshot(store, m, verify=False), directory)


def _restore_segments(store: Store, target: Manifest) -> list[str]:
    """Move back every retired segment holding a record ``target`` does not reflect."""
    from stratum.deltalog import parse_segment

    retired = store.root / "deltalog" / "retired"
    if not retired.is_dir():
        return []
    merged = set(target.deltalog_merged)
    have = _note_ids(store, target)
    moved = []
    for path in sorted(retired.glob("*.seg")):
        recs, _damage, _ = parse_segment(path.read_bytes(), path.name)
        if all(r.uid in merged or (r.type == "note" and ids.note_id(r.uid) in have) for r in recs):
            continue
        os.rename(path, store.root / "deltalog" / path.name)
        moved.append(path.name)
    if moved:
        for d in (retired, store.root / "deltalog"):
            fd = os.open(d, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    return moved


def _log(store: Store):
    from stratum.deltalog import DeltaLog

    return DeltaLog(store.root / "deltalog")


def _note_ids(store: Store, m: Manifest, kinds_of: tuple[str, ...] = S.NOTE_KINDS) -> set[str]:
    kinds = ", ".join(f"'{k}'" for k in kinds_of)
    t = Snapshot(store, m, verify=False).read("nodes", columns=["id"], where=f"kind IN ({kinds})")
    return set(t.column("id").to_pylist())


def _behind_head(m: Manifest, freshness: Freshness) -> dict | None:
    """Where HEAD is when the version served is not at it (None: at HEAD, or no repository to ask)."""
    if not m.repo_path or not m.indexed_commit:
        return None
    status = freshness(m.repo_path, m.indexed_commit)
    if not status.get("repo_available") or not status.get("moved_on") or not status.get("head"):
        return None
    return {"repo": m.repo_path, "indexed_commit": m.indexed_commit, "head": status["head"],
            "new_commits": int(status.get("new_commits", 0))}


def _visible_notes(store: Store, m: Manifest) -> int:
    """Agent notes kept, whatever their status (merged + in the live log): the mined history's fix
    and change nodes are not notes anyone wrote (counted, 5,109 stood beside `notes list`'s 3,276)."""
    notes = _note_ids(store, m, S.AGENT_NOTE_KINDS)
    for r in _log(store).scan().records:
        if r.type == "note":
            notes.add(ids.note_id(r.uid))
    return len(notes)


__all__ = ["RepairReport", "repair", "check"]
