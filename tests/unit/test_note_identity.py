"""The notes model's identity rules on a real delta log: a note written again is the first one only
for the same identity (the name proven the same way, and for a name nobody proved the same role),
and a short id names one note among those given, or says which ones."""

from __future__ import annotations

import pytest

from stratum import notes as N
from stratum.codelookup import CodeLookup
from stratum.deltalog import DeltaLog
from stratum.errors import InvalidArgument
from tests.unit.test_notes import code_nodes

TEXT = "the total ignores discounts"


def test_identical_is_the_same_identitys_note_only(tmp_path):
    code = CodeLookup.from_records(code_nodes())
    log = DeltaLog(tmp_path / "deltalog")
    targets = N.validate("rca", TEXT, ["shop/cart.py::total"], "erin", resolve=code.resolve)
    proven = N.write_note(log, "rca", TEXT, ["shop/cart.py::total"], "erin", resolve=code.resolve,
                          authenticated=True)
    owner = N.write_note(log, "rca", TEXT, ["shop/cart.py::total"], "os:ada", resolve=code.resolve,
                         maintainer=True)
    known = {proven.id: proven, owner.id: owner}

    def same(author: str, **who) -> N.Note | None:
        return N.identical(known, "rca", TEXT, targets, author, **who)

    assert same("erin", authenticated=True) is proven            # a retry of the token's erin
    assert same("erin") is None                                   # a claimed erin is not her
    assert same("os:ada", maintainer=True) is owner               # the OS user again
    assert same("os:ada") is None                                 # a claimed "os:ada" is not the owner
    assert same("os:ada", authenticated=True, maintainer=True) is None


def test_a_short_id_names_one_note_or_says_which():
    ids = ["n1a2b3c4d5e6f7a8b9c0", "n1a2b3c4ffffffffffff", "n9999999999999999999"]
    assert N.by_prefix(ids, "n1a2b3c4d5") == ids[0]
    assert N.by_prefix(ids, "n99999999") == ids[2]
    with pytest.raises(InvalidArgument, match=r"names 2 notes \(n1a2b3c4d5e6f7a8b9c0, n1a2b3c4ffffffffffff\)"):
        N.by_prefix(ids, "n1a2b3c4")
    assert N.by_prefix(ids, "n12345") is None                     # a short id of no note
    for not_short in ("n1a2b", "1a2b3c4d5e", "n1a2b3c4d5e6f7a8b9c0f", "shop/cart.py", ""):
        assert N.by_prefix(ids, not_short) is None                # not a short id: never a prefix match
