"""The per-shard memo moved from ``stratum.signals`` to ``stratum.shardmemo``: its old names there
are the same objects (tests and callers that pop a shard's memo from ``signals._MEMOS`` still reach
the one ``ShardSignals`` fills), and a full table starts again rather than growing without bound."""

from __future__ import annotations

from stratum import shardmemo, signals


class _Shard:
    """Any weakly referable object keys a memo; the memo never reads it."""


def test_old_names_in_signals_are_the_memo_modules_objects():
    assert signals._MEMOS is shardmemo.MEMOS
    assert signals._NOTE_MEMOS is shardmemo.NOTE_MEMOS
    assert signals._ShardMemo is shardmemo.ShardMemo
    assert signals.MEMO_ENTRIES == shardmemo.MEMO_ENTRIES
    sh = _Shard()
    m = signals._memo(sh)
    assert shardmemo.memo_of(sh) is m and shardmemo.MEMOS[sh] is m


def test_a_shards_memo_computes_once_and_a_full_table_starts_again():
    m = shardmemo.memo_of(_Shard())
    calls = []
    assert m.get("row", "a.py", lambda: calls.append(1) or 7) == 7
    assert m.get("row", "a.py", lambda: calls.append(1) or 8) == 7
    assert calls == [1]
    t = m.room("row", shardmemo.MEMO_ENTRIES)          # one more than room for: emptied first
    assert t == {} and t is m.tables["row"]
