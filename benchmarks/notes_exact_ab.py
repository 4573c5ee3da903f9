"""``searcher_ab.py`` with the notes' graph forced off in both versions (issue 12, ANN_MIN).

    python benchmarks/notes_exact_ab.py (--store PATH | --from-e4 DIR) [--ref REV] [--graph-in-reference]
                                        [--signed] [searcher_ab's options]

Why: from ANN_MIN 4,096 to 16,384 the notes' vector list changed from the HNSW graph to exact
scoring, so ``searcher_ab`` against a reference below that change differs in the vector list's
notes by design. Here the reference's ``ANN_MIN`` (noteindex's, or noteview's) is raised past any
note count, so both versions score every note exactly and must agree in everything else (rows,
ids, score bits, sources, order, totals): what remains is the change of exact kernels (numpy's
einsum in the reference, ``notekernels.top_dots`` here: cosines equal to ~1e-7).

``--graph-in-reference``: the opposite, to count the pages the change moves: the notes' graph is
built (as the reference would, from 4,096 notes) and the reference answers from it, this version
exactly (below its ANN_MIN): the pages that differ are the graph's misses (and what they push).

From ``noteview.SIGN_MIN`` notes this version's list scores only the notes whose 1-bit codes
estimate best (approximate): it is raised past any note count here too, so both score every note,
unless ``--signed``: then this version answers from its 1-bit list and the pages that differ are
that list's misses (the reference exact, or its graph with ``--graph-in-reference``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import searcher_ab  # noqa: E402

NO_GRAPH = 1 << 40


def main() -> None:
    import stratum.notethreads as TH
    import stratum.noteview as NV

    TH.prepare_kernels()                    # the server's exact list (stratum serve prepares it)
    TH.compiled(wait=True)

    load, view_of = searcher_ab.load_reference, searcher_ab.reference_view
    graph_ref, signed = "--graph-in-reference" in sys.argv, "--signed" in sys.argv
    for flag in ("--graph-in-reference", "--signed"):
        if flag in sys.argv:
            sys.argv.remove(flag)
    if not signed:
        NV.SIGN_MIN = NO_GRAPH              # this version exact too
    ours = NV.ANN_MIN

    def load_reference(ref):
        mods = load(ref)
        if not graph_ref:
            mods.get("noteview", mods["noteindex"]).ANN_MIN = NO_GRAPH     # where the reference keeps it
        if hasattr(mods["noteindex"], "prepare_kernels"):    # its exact list compiled too, not numpy's
            mods["noteindex"].prepare_kernels()
            mods["noteindex"].compiled(wait=True)
        return mods

    def reference_view(mods, view):
        if searcher_ab.reference_view is reference_view:   # the first call: after the setup
            searcher_ab.reference_view = view_of
            NV.ANN_MIN = ours if graph_ref else NO_GRAPH     # the setup built (or not) the graph
            print(f"reference ANN_MIN {mods.get('noteview', mods['noteindex']).ANN_MIN}, this version's "
                  f"{NV.ANN_MIN} (SIGN_MIN {NV.SIGN_MIN}); the view's graph {view.graph_size:,} slots", flush=True)
        return view_of(mods, view)

    searcher_ab.load_reference, searcher_ab.reference_view = load_reference, reference_view
    NV.ANN_MIN = 4096 if graph_ref else NO_GRAPH        # the setup's ensure_graph builds it or not
    searcher_ab.main()


if __name__ == "__main__":
    main()
