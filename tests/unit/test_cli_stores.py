"""`stratum index A B --store-root DIR`: each repository's store is found by the path its manifest
records, so a list in another order never hands one repository's store (and notes) to another."""

from __future__ import annotations

import json

from pipeline.many import stores_for


def test_a_stored_repository_keeps_its_store_whatever_the_order(tmp_path):
    one, two = tmp_path / "a" / "flask", tmp_path / "lists" / "flask"
    first = stores_for([str(one), str(two)], str(tmp_path / "S"))
    assert first == [str(tmp_path / "S" / "flask"), str(tmp_path / "S" / "flask-2")]
    for repo, store in zip((one, two), first):          # what an index run leaves behind
        (tmp_path / "S" / store).mkdir(parents=True)
        (tmp_path / "S" / store / "manifest.json").write_text(json.dumps({"repo_path": str(repo.resolve())}))
    assert stores_for([str(two), str(one)], str(tmp_path / "S")) == first[::-1]
    third = tmp_path / "c" / "flask"                     # a new one: a name no store has
    assert stores_for([str(third), str(two)], str(tmp_path / "S")) == [str(tmp_path / "S" / "flask-3"), first[1]]
