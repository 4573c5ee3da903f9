"""What an agent called each node it pinned, and which pins the served version no longer has.

A re-index that deletes pinned code leaves a pin no name resolves: ``unpin`` by the name the agent
pinned it with was NotFound ("no node"), and the pin held its tokens with nothing said (a fleet
probe). The controller keeps these names beside its pins (``Controller.pin``'s ``names``) and marks
the pins whose node is gone (``Controller.mark_gone``): they stay pinned, the agent's choice whose
text is still in its context, and the answer and ``status`` say so, naming how to release them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Any, Callable, Iterable, Mapping

from stratum.schema import RANGE_MARK

if TYPE_CHECKING:
    from stratum.memory import Target


class PinNames:
    """Names per pinned node and the gone marks. Not thread-safe: the controller's lock guards it."""

    def __init__(self) -> None:
        self._names: dict[str, tuple[str, ...]] = {}
        self.gone: frozenset[str] = frozenset()

    def add(self, node_id: str, names: Iterable[str]) -> None:
        self._names[node_id] = tuple(dict.fromkeys((*self._names.get(node_id, ()), *names)))

    def drop(self, node_id: str) -> None:
        self._names.pop(node_id, None)
        self.gone -= {node_id}

    def find(self, name: str, pins: AbstractSet[str]) -> str | None:
        """The pinned node called ``name`` when it was pinned (its id counts as a name too)."""
        if name in pins and name in self._names:
            return name
        return next((n for n, names in self._names.items() if name in names and n in pins), None)

    def name(self, node_id: str) -> str:
        """The first name it was pinned with (its id if none)."""
        return next(iter(self._names.get(node_id, ())), node_id)

    def info(self, node_id: str, entries: Mapping[str, Any]) -> dict:
        """How status and an answer name a gone pin: its id, the name pinned, and the tokens it holds
        with its lines (``entries``: the controller's, each with ``tokens``)."""
        held = sum(e.tokens for n, e in entries.items() if n.partition(RANGE_MARK)[0] == node_id)
        return {"node_id": node_id, "name": self.name(node_id), "tokens": held}

    def gone_note(self, entries: Mapping[str, Any]) -> str:
        """What a budget refusal adds when gone pins hold tokens: it is where an agent meets them."""
        gone = [self.info(n, entries) for n in sorted(self.gone)]
        return (f" ({sum(g['tokens'] for g in gone)} of them by pins no longer in the index: unpin "
                + ", ".join(repr(g["name"]) for g in gone) + ")") if gone else ""

    def mark(self, pins: AbstractSet[str], present: Callable[[str], bool]) -> list[str]:
        """Mark the pinned nodes not ``present`` in the served version; returns the newly gone ones
        (a node that comes back is unmarked, and told again should it go again)."""
        gone = frozenset(n for n in self._names if n in pins and not present(n))
        new, self.gone = gone - self.gone, gone
        return sorted(new)


def spellings(target: str, t: "Target") -> tuple[str, ...]:
    """The names a pin of ``t`` answers to: a code node's ``path::qualname`` (a file's path; how a
    gone pin is named) and the target as the agent gave it, so either one unpins it once it is gone."""
    if t.row is None:
        return (target,)
    path, qual = t.shard.col("path")[t.row] or "", t.shard.col("qualname")[t.row] or ""
    return tuple(dict.fromkeys(n for n in (f"{path}::{qual}" if qual else path, target) if n))


def said(gone: list[dict]) -> list[str]:
    """An answer's words for pins newly gone from the version served (``PinNames.info`` each)."""
    return [f"pinned {g['name']!r} is no longer in the index (a re-index deleted it): its {g['tokens']} tokens "
            f"stay pinned until you unpin it (unpin {g['name']!r} or its id {g['node_id']})" for g in gone]


def unpin_hint(gone: list[dict]) -> str:
    """What a refused unpin adds when the session holds pins on code that is gone."""
    return ("; this session's pins no longer in the index: "
            + ", ".join(f"{g['name']!r} (id {g['node_id']})" for g in gone)) if gone else ""


__all__ = ["PinNames", "spellings", "said", "unpin_hint"]
