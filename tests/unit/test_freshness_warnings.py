"""The freshness warnings' words, from a view (the git side is tests/integration/test_freshness.py)."""

from stratum.freshness import RepoView, warnings_for

A, B = "a" * 40, "b" * 40


def _view(**kw) -> RepoView:
    return RepoView(**{"indexed": A, "head": A, "ahead": 0, "changed": frozenset(), "dirty": frozenset(),
                       "taken_ns": 0, **kw})


def test_an_up_to_date_clean_view_says_nothing():
    assert warnings_for(_view(), [("src/x.py", "file")]) == ([], False)


def test_a_returned_directory_counts_the_files_under_it_and_long_lists_are_cut():
    changed = frozenset(f"src/m{i:02d}.py" for i in range(14)) | {"docs/a.md"}
    w, stale = warnings_for(_view(head=B, ahead=3, changed=changed), [("src", "dir")])
    assert stale and w == ["stale: the index is at aaaaaaa and HEAD is bbbbbbb (3 commits ahead); "
                           "files changed since below the returned folders: src/ (14)"]
    w, _ = warnings_for(_view(head=B, ahead=3, changed=changed), [(p, "file") for p in sorted(changed)])
    assert w[0].startswith("stale: the index is at aaaaaaa and HEAD is bbbbbbb (3 commits ahead); "
                           "these returned files changed since: docs/a.md, src/m00.py, ")
    assert w[0].endswith("src/m08.py and 5 more")


def test_history_rewritten_and_dirty_files_are_named():
    w, stale = warnings_for(_view(head=B, ahead=-1, changed=None, dirty=frozenset({"src/y.py", "other.py"})),
                            [("src/y.py", "function")], label="shop")
    assert stale and w == ["stale: shop: the index is at aaaaaaa and HEAD is bbbbbbb (HEAD does not descend from "
                           "the indexed commit); which files changed is unknown (the indexed commit is gone)",
                           "uncommitted changes in shop: src/y.py (returned here)"]


def test_status_lists_everything():
    w, _ = warnings_for(_view(head=B, ahead=1, changed=frozenset({"x.py"}), dirty=frozenset({"y.py", "z.py"})), [],
                        everything=True)
    assert w == ["stale: the index is at aaaaaaa and HEAD is bbbbbbb (1 commit ahead); 1 file changed since: x.py",
                 "uncommitted changes: 2 files: y.py, z.py"]
