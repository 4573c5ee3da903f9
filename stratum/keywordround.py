"""One reading round of ``KeywordIndex.search``: candidates from the postings read, MaxScore pruning,
exact scores for the candidates kept. Two implementations with equal answers (rows, scores bit for
bit, counts; tested): numpy (``numpy_round``, small indexes) and compiled (``compiled_round``,
``stratum.kernels``: large indexes, ``keywordindex.COMPILED_MIN_DOCS``).

Why compiled at 1M nodes: a prose query's round reads ~2,000 postings into ~1,800 candidates over
~4 terms; in numpy that was ~30 calls (gathers, ``np.unique``, ``np.bincount``, a mask per partly
read term, pruning, a partition), ~0.3 ms of ~0.65 besides the completion itself
(docs/bench/grpc.md, session 10). The kernels do the same arithmetic in the same order: each
candidate's known score is its float32 contributions summed in float64 in reading order, rounded
to float32 (``np.bincount``'s), the pruning bound and the completion are float32 as numpy's.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

RowPredicate = Callable[[np.ndarray], np.ndarray]


def numpy_round(ix, terms: list, rest: np.ndarray, name_rows: np.ndarray, boost: float,
                predicate: RowPredicate | None, k: int, compiled_completion: bool = False
                ) -> tuple[np.ndarray, np.ndarray, int, float]:
    """(candidate rows ascending, their exact scores, rows matched before pruning, the k-th best
    score or -1.0 when fewer than k remain). ``terms``: [weight, start, end, head start, head end,
    read (-1: the whole list, else that many head postings)] each; ``rest``: what a row could
    still gain from each partly read term whose head it is not in."""
    full_rows, full_imp, head_rows, head_imp, partial = [], [], [], [], []
    for j, (w, s, e, hs, he, read) in enumerate(terms):
        if read == -1:
            full_rows.append(ix.rows[s:e])
            full_imp.append(ix.impact[s:e] if w == 1.0 else ix.impact[s:e] * np.float32(w))
        else:
            pos = s + ix.head[hs:hs + read]
            head_rows.append(ix.rows[pos])
            head_imp.append(ix.impact[pos] if w == 1.0 else ix.impact[pos] * np.float32(w))
            partial.append(j)
    n_full = sum(len(x) for x in full_rows)
    allrows = np.concatenate(full_rows + head_rows + [name_rows.astype(np.int32)])
    contrib = np.concatenate(full_imp + head_imp + [np.zeros(len(name_rows), np.float32)])
    cand, inv = np.unique(allrows, return_inverse=True)
    cand = cand.astype(np.int64)
    scores = np.bincount(inv, weights=contrib, minlength=len(cand)).astype(np.float32)
    in_head, at = [], n_full
    for hr in head_rows:
        m = np.zeros(len(cand), bool)
        m[inv[at:at + len(hr)]] = True
        in_head.append(m)
        at += len(hr)
    if len(name_rows):              # every name row is a candidate: add at its place
        scores[np.searchsorted(cand, name_rows)] += np.float32(boost)
    if predicate is not None and len(cand):
        ok = predicate(cand)
        cand, scores, in_head = cand[ok], scores[ok], [m[ok] for m in in_head]
    matched = len(cand)
    if len(cand) > k and partial:
        # MaxScore pruning: a candidate whose known score plus everything it could still
        # gain stays below the k-th known score can never reach the top k
        cap = scores.copy()
        for j, m in zip(partial, in_head):
            cap += np.where(m, np.float32(0), np.float32(rest[j]))
        theta0 = float(np.partition(scores, len(scores) - k)[len(scores) - k])
        keep = cap >= theta0
        cand, scores, in_head = cand[keep], scores[keep], [m[keep] for m in in_head]
    _complete(ix, terms, partial, in_head, cand, scores, compiled_completion)
    theta = float(np.partition(scores, len(scores) - k)[len(scores) - k]) if len(scores) >= k else -1.0
    return cand, scores, matched, theta


def compiled_round(ix, terms: list, rest: np.ndarray, name_rows: np.ndarray, boost: float,
                   predicate: RowPredicate | None, k: int) -> tuple[np.ndarray, np.ndarray, int, float]:
    """``numpy_round`` in two compiled passes (``kernels.keyword_candidates``, ``keyword_complete``)
    with the filter's predicate between them."""
    from stratum import kernels

    t = len(terms)
    start, end, hstart, read = (np.empty(t, np.int64) for _ in range(4))
    weight = np.empty(t, np.float32)
    for j, (w, s, e, hs, _he, r) in enumerate(terms):
        start[j], end[j], hstart[j], read[j], weight[j] = s, e, hs, r, w
    cand, scores, in_head = kernels.keyword_candidates(ix.rows, ix.impact, ix.head, start, end, hstart, read, weight,
                                                       np.array(name_rows, np.int64), np.float32(boost))
    if predicate is not None and len(cand):
        ok = predicate(cand)
        cand, scores, in_head = cand[ok], scores[ok], in_head[:, ok]
    matched = len(cand)
    part = read != -1
    cand, scores, theta = kernels.keyword_complete(ix.rows, ix.impact, start[part], end[part], weight[part],
                                                   rest[part].astype(np.float32), cand, scores, in_head, k,
                                                   bool(len(cand) > k and part.any()))
    return cand, scores, matched, float(theta) if len(scores) >= k else -1.0


def _complete(ix, terms: list, partial: list[int], in_head: list[np.ndarray], cand: np.ndarray,
              scores: np.ndarray, compiled: bool) -> None:
    """Add to ``scores`` (in place) each partly read term's impact for the (sorted) candidates
    its head read missed: compiled galloping merges (``compiled``), else one numpy binary search per
    candidate and term; equal scores either way."""
    if compiled:
        from stratum.kernels import add_term_impacts
    for j, m in zip(partial, in_head):
        w, s, e = terms[j][:3]
        if compiled:
            add_term_impacts(ix.rows[s:e], ix.impact[s:e], np.float32(w), cand, m, scores)
            continue
        need = np.flatnonzero(~m)
        if not len(need):
            continue
        prow = ix.rows[s:e]
        c = cand[need]
        idx = np.searchsorted(prow, c.astype(prow.dtype))   # same dtype: no copy of the list
        idx[idx >= len(prow)] = 0
        scores[need] += np.where(prow[idx] == c, ix.impact[s + idx] * np.float32(w), np.float32(0))


__all__ = ["numpy_round", "compiled_round"]
