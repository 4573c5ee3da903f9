"""The whole-file keyword list (F in ``stratum.rank``): one BM25 document per file.

Symbol rows are searched by their first lines only; this list sees module-level code and whole
bodies, a different vote on which file a symptom is about. No shard index holds one yet: the
retrieval benchmarks build it per tree and pass its hits to ``rank.rank_files(file_hits=...)``.
"""

from __future__ import annotations

from typing import Sequence

from stratum.errors import InvalidArgument


class FileText:
    """The whole-file keyword list (F): BM25 (``KeywordIndex``, the product's) over one document per
    file, its path and its entire source. Symbol rows are searched by their first lines only; this
    list sees module-level code and whole bodies. Build once per tree; ``hits`` per query."""

    def __init__(self, paths: Sequence[str], texts: Sequence[str]):
        from stratum.keywordindex import KeywordIndex

        if len(paths) != len(texts):
            raise InvalidArgument(f"FileText: {len(paths)} paths for {len(texts)} texts")
        self.paths = list(paths)
        self.index = KeywordIndex.build(f"{p}\n{t}" for p, t in zip(paths, texts))

    def hits(self, query: str, k: int = 50) -> list[str]:
        """Paths best first (only files holding a query term)."""
        h = self.index.search(query, k)
        return [self.paths[int(r)] for r, sc in zip(h.rows, h.scores) if sc > 0]


__all__ = ["FileText"]
