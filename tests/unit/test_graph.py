"""CSR adjacency for walk: both directions, kinds, weights, dangling edges, save/load."""

import numpy as np
import pyarrow as pa
import pytest

from stratum import schema as S
from stratum.errors import InvalidArgument, StoreError
from stratum.graph import Graph

IDS = ["repo", "dir", "a.py", "b.py", "a.f", "b.g"]


def edges():
    recs = [
        {"src": "repo", "dst": "dir", "kind": "contains"},
        {"src": "dir", "dst": "a.py", "kind": "contains"},
        {"src": "dir", "dst": "b.py", "kind": "contains"},
        {"src": "a.py", "dst": "a.f", "kind": "contains"},
        {"src": "b.py", "dst": "b.g", "kind": "contains"},
        {"src": "a.py", "dst": "b.py", "kind": "imports"},
        {"src": "a.py", "dst": "b.py", "kind": "cochange", "weight": 0.4},
        {"src": "b.py", "dst": "a.py", "kind": "cochange", "weight": 0.9},
        {"src": "a.f", "dst": "b.g", "kind": "calls"},
        {"src": "a.py", "dst": "gone.py", "kind": "imports"},       # dangling: dropped, counted
    ]
    return S.to_table(recs, S.EDGES)


@pytest.fixture(scope="module")
def graph():
    return Graph.from_edges(edges(), IDS)


def names(nb):
    return [IDS[r] for r in nb.rows]


def test_out_and_in_neighbours(graph):
    a = IDS.index("a.py")
    out = graph.neighbors(a)
    assert sorted(zip(names(out), [graph.kind_names[k] for k in out.kinds])) == \
        [("a.f", "contains"), ("b.py", "cochange"), ("b.py", "imports")]
    assert out.outgoing.all()
    inn = graph.neighbors(a, direction="in")
    assert sorted(zip(names(inn), [graph.kind_names[k] for k in inn.kinds])) == \
        [("b.py", "cochange"), ("dir", "contains")]
    assert not inn.outgoing.any()
    both = graph.neighbors(a, direction="both")
    assert len(both) == len(out) + len(inn)
    assert graph.dropped == 1 and graph.n_edges == 9


def test_kind_filter_and_weights(graph):
    b = IDS.index("b.py")
    nb = graph.neighbors(b, kinds=["cochange"], direction="both")
    got = sorted(zip(names(nb), [round(float(w), 3) for w in nb.weights], nb.outgoing.tolist()))
    assert got == [("a.py", 0.4, False), ("a.py", 0.9, True)]
    assert len(graph.neighbors(b, kinds=["tests"])) == 0
    assert graph.neighbors(IDS.index("a.f"), kinds=["calls"]).rows.tolist() == [IDS.index("b.g")]
    assert graph.neighbors(IDS.index("a.py"), kinds=["contains"]).weights.tolist() == [1.0]  # null -> 1


def test_edges_within_a_node_are_ordered_by_kind_then_weight():
    recs = [{"src": "a", "dst": d, "kind": "cochange", "weight": w} for d, w in (("b", 0.2), ("c", 0.8), ("d", 0.5))]
    recs.append({"src": "a", "dst": "d", "kind": "contains"})
    g = Graph.from_edges(S.to_table(recs, S.EDGES), ["a", "b", "c", "d"])
    nb = g.neighbors(0)
    assert [g.kind_names[k] for k in nb.kinds] == ["contains", "cochange", "cochange", "cochange"]
    assert nb.rows.tolist() == [3, 2, 3, 1]


def test_bad_arguments(graph):
    with pytest.raises(InvalidArgument):
        graph.neighbors(0, kinds=["friends"])
    with pytest.raises(InvalidArgument):
        graph.neighbors(0, direction="sideways")
    with pytest.raises(InvalidArgument):
        graph.neighbors(len(IDS))


def test_save_load_round_trip(graph, tmp_path):
    graph.save(tmp_path)
    for mmap in (True, False):
        g = Graph.load(tmp_path, mmap=mmap)
        assert g.kind_names == graph.kind_names and g.n_edges == graph.n_edges and g.dropped == 1
        for r in range(len(IDS)):
            for d in ("out", "in"):
                a, b = graph.neighbors(r, direction=d), g.neighbors(r, direction=d)
                assert a.rows.tolist() == b.rows.tolist() and a.kinds.tolist() == b.kinds.tolist()
    with pytest.raises(StoreError):
        Graph.load(tmp_path / "missing")


def test_large_random_graph_matches_edge_list():
    rng = np.random.default_rng(0)
    n, m = 2000, 20000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    kinds = rng.integers(0, len(S.EDGE_KINDS), m)
    g = Graph.build(src, dst, kinds, None, n)
    for r in rng.integers(0, n, 50):
        assert sorted(g.neighbors(int(r)).rows.tolist()) == sorted(dst[src == r].tolist())
        assert sorted(g.neighbors(int(r), direction="in").rows.tolist()) == sorted(src[dst == r].tolist())
        k = int(kinds[0])
        assert sorted(g.neighbors(int(r), kinds=[k]).rows.tolist()) == sorted(dst[(src == r) & (kinds == k)].tolist())
