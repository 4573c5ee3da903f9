"""Our BM25 (stratum/keywordindex.py) vs tantivy on the same code-aware tokens (issue 13 item 4).

Definitions (printed with the results):
- Documents: --docs synthetic code nodes (benchmarks/warm_update.py's generator: identifiers,
  signatures, docstrings, bodies from a 4,000-word vocabulary); each node's text is
  ``codetokens.node_text``. Both engines index exactly ``codetokens.tokenize(text)``: ours
  directly, tantivy as the tokens joined by spaces under its whitespace tokenizer (no lowercasing,
  stemming or stop words: the tokens already are what we index). No exact-name map on our side
  (pure BM25 on both).
- Queries: --queries of 2-4 vocabulary words (the words and identifier parts agents type);
  tantivy gets one SHOULD term query per distinct token (boosted by its count), which is BM25's
  sum over query terms, as ours.
- Latency: wall time of one top-10 search including row ids for the hits (tantivy: a stored
  ``row`` field per hit), p50 / p99 after one untimed pass, single thread.
- Agreement: mean |top-10 ours ∩ top-10 tantivy| / 10. Tantivy (like Lucene) stores document
  lengths quantized to one byte, so near-ties can order differently; ours uses exact lengths.
- Build: seconds from texts to a searchable index (tokenizing included for both). Update: the
  --change fraction of documents replaced by new text (delete + add + commit + reopen for tantivy;
  ``KeywordIndex.updated`` for ours, which recomputes every statistic: cost grows with the index).

    python benchmarks/keyword_tantivy.py --docs 100000 [--queries 300] [--change 0.01]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def pct(xs, p):
    return float(np.percentile(np.asarray(xs), p))


def write(tantivy, index, docs, heap: int, *, delete: bool):
    """Add (row, text) documents (replacing the row's old one when ``delete``), commit, reopen."""
    from stratum.codetokens import tokenize

    w = index.writer(heap_size=heap, num_threads=1)
    for i, text in docs:
        if delete:
            w.delete_documents("row", i)
        w.add_document(tantivy.Document(row=i, body=" ".join(tokenize(text))))
    w.commit()
    w.wait_merging_threads()
    index.reload()
    return index.searcher()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--change", type=float, default=0.01)
    args = ap.parse_args()
    try:
        import tantivy
    except ImportError:
        sys.exit("this comparison needs tantivy (not a project dependency): pip install tantivy==0.27.0")

    from stratum.keywordindex import KeywordIndex
    from stratum.codetokens import node_text, tokenize
    from warm_update import nodes_for, vocabulary

    rng = np.random.default_rng(0)
    vocab = vocabulary(rng)
    centres = rng.standard_normal((16, 384)).astype(np.float32)
    nodes = nodes_for(args.docs, 1, vocab, centres)
    texts = [node_text(n) for n in nodes]
    res = {"docs": args.docs, "load_avg": os.getloadavg()[0]}

    t = time.perf_counter()
    ours = KeywordIndex.build(texts)
    res["ours_build_s"] = time.perf_counter() - t
    tmp = Path(tempfile.mkdtemp(prefix="kwbench."))
    ours.save(tmp / "ours")
    ours = KeywordIndex.load(tmp / "ours")

    def analyzer():
        return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()

    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("row", stored=True, indexed=True, fast=True)
    sb.add_text_field("body", tokenizer_name="ws")
    schema = sb.build()
    t = time.perf_counter()
    (tmp / "tantivy").mkdir()
    index = tantivy.Index(schema, path=str(tmp / "tantivy"))
    index.register_tokenizer("ws", analyzer())
    searcher = write(tantivy, index, enumerate(texts), 512 << 20, delete=False)
    res["tantivy_build_s"] = time.perf_counter() - t

    queries = [" ".join(vocab[j] for j in rng.integers(0, len(vocab), rng.integers(2, 5))) for _ in range(args.queries)]

    def tq(q):
        counts: dict[str, int] = {}
        for tok in tokenize(q):
            counts[tok] = counts.get(tok, 0) + 1
        clauses = []
        for tok, c in counts.items():
            term = tantivy.Query.term_query(schema, "body", tok)
            clauses.append((tantivy.Occur.Should, term if c == 1 else tantivy.Query.boost_query(term, float(c))))
        return tantivy.Query.boolean_query(clauses)

    def t_search(q):
        hits = searcher.search(tq(q), 10).hits
        return [searcher.doc(addr)["row"][0] for _, addr in hits], [s for s, _ in hits]

    def o_search(q):
        h = ours.search(q, 10)
        return h.rows.tolist(), h.scores.tolist()

    agree, score_gap = [], []
    for q in queries:
        (ro, so), (rt, st) = o_search(q), t_search(q)
        agree.append(len(set(ro) & set(rt)) / 10 if ro else 1.0)
        if so and st:
            score_gap.append(abs(so[0] - st[0]) / max(so[0], 1e-9))
    res["agreement_top10"] = statistics.mean(agree)
    res["top1_score_rel_gap_median"] = statistics.median(score_gap) if score_gap else None
    for name, fn in (("ours", o_search), ("tantivy", t_search)):
        for q in queries:
            fn(q)
        ts = []
        for q in queries:
            s = time.perf_counter()
            fn(q)
            ts.append((time.perf_counter() - s) * 1000)
        res[f"{name}_p50_ms"], res[f"{name}_p99_ms"] = pct(ts, 50), pct(ts, 99)

    # ---- update: --change of the documents get new text
    k = max(1, int(args.docs * args.change))
    pick = rng.choice(args.docs, k, replace=False)
    new_texts = {int(i): texts[i] + " retry timeout refund" for i in pick}
    old_row = np.arange(args.docs)
    old_row[pick] = -1
    t = time.perf_counter()
    ours.updated(tmp / "ours", old_row, new_texts, None)
    res["ours_update_s"] = time.perf_counter() - t
    t = time.perf_counter()
    searcher = write(tantivy, index, new_texts.items(), 128 << 20, delete=True)
    res["tantivy_update_s"] = time.perf_counter() - t
    res["tantivy_num_docs_after"] = searcher.num_docs
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in res.items()}, indent=1))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
