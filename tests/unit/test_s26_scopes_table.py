"""``callindex.Scopes.at`` reads the innermost scope off a table of the file's lines (made once a
file) instead of scanning every span for every line asked: the same answers as the rule it
replaces (of the spans holding the line, the one starting last, the shortest of those), for
nested, sibling, equal-start and overlapping spans, lines outside them and lambdas left out;
and ``Index.files_defining`` finds what scanning a file's imports found."""

from __future__ import annotations

import random

from pipeline.callindex import Index, Scopes


def _rule(spans, line):
    got = None
    for s, e in spans:
        if s <= line <= e and (got is None or (s, -e) > (got[0], -got[1])):
            got = (s, e)
    return got


def _node(path, first, last, subkind=None, kind="function", qual="f"):
    return {"id": f"{path}:{qual}:{first}", "path": path, "kind": kind, "qualname": qual, "language": "python",
            "start_line": first, "end_line": last, "subkind": subkind}


def test_the_table_gives_the_scanning_rule_answers():
    rnd = random.Random(26)
    for trial in range(200):
        sc = Scopes()
        spans = []
        for _ in range(rnd.randint(0, 12)):
            s = rnd.randint(1, 60)
            e = s + rnd.randint(0, 25)
            lam = rnd.random() < 0.15
            sc.add(_node("m.py", s, e, "lambda" if lam else None))
            if not lam:
                spans.append((s, e))
        for line in [0, 1, 2, 30, 59, 85, 86, 200, 1 << 62] + [rnd.randint(0, 90) for _ in range(30)]:
            assert sc.at("m.py", line) == _rule(spans, line), (trial, spans, line)
        assert sc.at("other.py", 3) is None


def test_a_span_added_after_a_question_counts():
    sc = Scopes()
    sc.add(_node("m.py", 1, 20))
    assert sc.at("m.py", 5) == (1, 20)
    sc.add(_node("m.py", 4, 8))
    assert sc.at("m.py", 5) == (4, 8)


def test_files_defining_is_one_definition_a_file():
    ix = Index([_node("a.py", 1, 2, qual="run"), _node("b.py", 1, 2, qual="run"), _node("a.py", 5, 6, qual="run"),
                _node("a.py", 8, 9, qual="Box", kind="class"), _node("a.py", 9, 9, qual="Box.run", kind="method")])
    assert sorted(ix.files_defining("run")) == [("a.py", "a.py:run:1"), ("b.py", "b.py:run:1")]
    assert ix.files_defining("Box.run") == [("a.py", "a.py:Box.run:9")]
    assert ix.files_defining("nothing") == []
