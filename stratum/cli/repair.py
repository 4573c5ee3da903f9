"""`stratum repair`: check a store, rebuild damaged warm files, roll back damaged Lance data (no
note lost), and prune old versions (stratum.repair)."""

from __future__ import annotations

from stratum.cli import add_common, emit, resolve_store, whole


def register(sub) -> None:
    p = sub.add_parser("repair", help="check and repair a damaged store without losing notes; prune old versions")
    add_common(p)
    p.add_argument("--check", action="store_true", help="only check every file (read in full); change nothing")
    p.add_argument("--prune", nargs="?", type=_keep, const=DEFAULT, default=None, metavar="KEEP",
                   help="also remove Lance versions and warm folders beyond the newest KEEP published "
                        "versions that no reader holds (default KEEP: 3)")
    p.set_defaults(func=run)


DEFAULT = object()      # --prune without KEEP: a sentinel no typed value can equal (-1 was taken as it)


_keep = whole(1, "KEEP")    # a whole number of versions, at least 1 (a clear error, never the default)


def run(args) -> int:
    from pipeline import gitio
    from stratum.repair import repair
    from stratum.store import DEFAULT_KEEP

    keep = None if args.prune is None else (DEFAULT_KEEP if args.prune is DEFAULT else args.prune)
    # git's facts for the core: whether the version served after the repair is behind HEAD
    rep = repair(resolve_store(args), check_only=args.check, prune_keep=None if args.check else keep,
                 freshness=gitio.freshness)
    emit(args, rep.to_dict(), rep.text())
    return 1 if args.check and rep.damaged else 0


__all__ = ["register", "run"]
