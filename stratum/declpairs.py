"""A C/C++ function's declaration and its definition as one pair, for the notes an answer carries.

The pairing is the calls linker's (``pipeline.callindex.defined``: a call that lands on a header's
prototype links to "..., its definition"): a C/C++ function or method whose node ``meta`` says it is
a declaration (``DECL``, the parse's word: ``void Write();`` in ``class DBImpl``) pairs with the one
definition with a body of the same qualified name in the repository (``Status DBImpl::Write() {...}``
in ``db/db_impl.cc``); with none, or several (two .cc files defining it: which one is not known),
it pairs with nothing. Overloads never pair: a name the parse numbers (``Put#2``) counts its
declarations and definitions in each file's own order, so ``Put#2`` of the header and ``Put#2`` of
the .cc may be two overloads (a re-probe: a note on ``Put(int)`` showed on ``Put(std::string)``'s
declaration); only a name with one declaration and one definition, overloads counted under the
name without its number, pairs. Gtest's tests (``TEST_MARK``) and classes never pair.

A note written about ``db/db_impl.cc::leveldb.DBImpl.Write`` did not show on ``get
db/db_impl.h::leveldb.DBImpl.Write``: an agent reading the header missed the failure note (a probe).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import pyarrow as pa
import pyarrow.compute as pc


if TYPE_CHECKING:
    from stratum.shard import Shard

DECL = '"decl":1'           # a declaration's ``meta`` (``pipeline.callrefs.DECL``; a substring test)
TEST_MARK = '"test":1'      # a test's ``meta`` (``pipeline.testlinks.TEST_MARK``)
LANGUAGES = ("c", "cpp")
KINDS = ("function", "method")
DEFINITION, DECLARATION = "definition", "declaration"     # what the counterpart is, as a note's line says it


class Pairs:
    """One shard's C/C++ declarations and definitions by qualified name, built once per shard on
    the first answer that asks: one filter of the warm columns; then, for a shard with C/C++
    functions only, one read of the ids whose ``meta`` (left out of the warm table for code nodes)
    says declaration or test, as the overlay's link reads them (not every meta: a code node's holds
    its calls as written)."""

    def __init__(self, sh: "Shard"):
        t = sh.meta
        mask = pc.and_(pc.is_in(t.column("language"), pa.array(LANGUAGES)), pc.is_in(t.column("kind"), pa.array(KINDS)))
        rows = pc.indices_nonzero(pc.fill_null(mask, False)).to_pylist()
        said: dict[str, bool] = {}      # id -> a declaration (True) or a test (False)
        if rows:
            for r in sh.snapshot.read("nodes", columns=["id", "meta"], where=(
                    f"language IN ('c', 'cpp') AND kind IN ('function', 'method') "
                    f"AND (meta LIKE '%{DECL}%' OR meta LIKE '%{TEST_MARK}%')")).to_pylist():
                said[r["id"]] = TEST_MARK not in (r["meta"] or "")
        quals = t.column("qualname").take(pa.array(rows, pa.int64())).to_pylist() if rows else []
        ids = t.column("id").take(pa.array(rows, pa.int64())).to_pylist() if rows else []
        self.decls: dict[str, list[int]] = defaultdict(list)       # by the name without its #N
        self.bodies: dict[str, list[int]] = defaultdict(list)
        self.qual: dict[int, str] = {}
        for r, q, nid in zip(rows, quals, ids):
            decl = said.get(nid)
            if not q or decl is False:
                continue
            q = q.split("#", 1)[0]
            self.qual[r] = q
            (self.decls if decl else self.bodies)[q].append(r)

    def of(self, row: int) -> list[tuple[int, str]]:
        """The row paired with ROW, with what it is (``DEFINITION``, ``DECLARATION``); [] for a node
        that is no C/C++ function, an overload, or has no counterpart."""
        q = self.qual.get(row)
        if q is None:
            return []
        bodies, decls = self.bodies.get(q, ()), self.decls.get(q, ())
        if len(bodies) != 1 or len(decls) != 1:
            return []
        return [(decls[0], DECLARATION)] if bodies[0] == row else [(bodies[0], DEFINITION)]


_PAIRS: "WeakKeyDictionary[Shard, Pairs]" = WeakKeyDictionary()
_LOCK = threading.Lock()


def counterparts(sh: "Shard", row: int) -> list[tuple[int, str]]:
    """``Pairs.of`` of ``sh``'s pairs (made once per shard, by one thread while the others wait: a
    server's first answers on a C/C++ store each ran the nodes scan; a shard with no C/C++ function
    costs one filter)."""
    got = _PAIRS.get(sh)
    if got is None:
        with _LOCK:
            got = _PAIRS.get(sh)
            if got is None:
                got = _PAIRS[sh] = Pairs(sh)
    return got.of(row)


__all__ = ["Pairs", "counterparts", "DECL", "TEST_MARK", "DEFINITION", "DECLARATION"]
