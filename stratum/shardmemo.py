"""What ranking keeps per shard and per notes overlay, so each search does not compute it again.

Why apart from ``stratum.signals``: a published shard version is immutable, so its reads (a file's
co-change partners, import/test neighbours, file row, a code row's hit) can be kept as long as the
shard lives; this module holds only that bounded, weakly-keyed keeping, and ``ShardSignals`` the
reads themselves. Keyed weakly: a shard or overlay dropped by a reload takes its tables with it.
"""

from __future__ import annotations

import weakref
from typing import Callable, TypeVar

MEMO_ENTRIES = 65536        # per table and shard; a full table starts again (a shard has ~1 KB per entry)
_T = TypeVar("_T")


class ShardMemo:
    """What ranking reads from a shard that no query or note changes: a published version is
    immutable, so a file's co-change partners, import/test neighbours, file row and a code row's
    hit are computed once per shard, not once per search (the same strong files seed most queries;
    at 1M nodes a popular file's neighbours cost milliseconds to resolve)."""

    def __init__(self) -> None:
        self.tables: dict[str, dict] = {"cochange": {}, "co_terms": {}, "structure": {}, "locate": {}, "hit": {},
                                        "row": {}, "node": {}}

    def get(self, table: str, key, make: Callable[[], _T]) -> _T:
        t = self.tables[table]
        try:
            return t[key]
        except KeyError:
            pass
        v = make()
        self.room(table, 1)[key] = v
        return v

    def room(self, table: str, n: int) -> dict:
        """The table, emptied first if ``n`` more entries would fill it (bounded, no LRU book-keeping)."""
        t = self.tables[table]
        if len(t) + n > MEMO_ENTRIES:
            t.clear()
        return t


MEMOS: "weakref.WeakKeyDictionary[object, ShardMemo]" = weakref.WeakKeyDictionary()
# overlay -> merged note row -> (status as seen, the folded note object, its hit): ShardSignals._merged_note
NOTE_MEMOS: "weakref.WeakKeyDictionary[object, dict[int, tuple]]" = weakref.WeakKeyDictionary()


def memo_of(shard) -> ShardMemo:
    """The shard's memo, made on first use (``setdefault``: a racing caller gets the one stored)."""
    m = MEMOS.get(shard)
    if m is None:
        m = MEMOS.setdefault(shard, ShardMemo())
    return m


__all__ = ["MEMO_ENTRIES", "MEMOS", "NOTE_MEMOS", "ShardMemo", "memo_of"]
