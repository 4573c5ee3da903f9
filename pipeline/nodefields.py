"""Fields every node record shares, whichever stage makes it: the ids of file and directory
nodes and the exact token counts and content hash of each detail level.

Its own module so the parse stage (definitions) and the tree stage (repo and dir nodes) both build
on it without importing each other.
"""

from __future__ import annotations

import bisect
import functools
import os

import numpy as np

from stratum import npyio
from stratum.config import ParseConfig
from stratum.ids import content_hash, node_id
from stratum.tokens import cache_dir, encoding


def file_node_id(repo: str, path: str) -> str:
    return node_id(repo, path, "file", "")


def dir_node_id(repo: str, path: str) -> str:
    return node_id(repo, path, "dir", "") if path else node_id(repo, "", "repo", "")


def finish(nodes: list[dict], cfg: ParseConfig, spans: Spans | None = None) -> None:
    """Exact token counts of every level, and content hashes.

    ``full`` texts of definitions are slices of the file; with ``spans`` their counts come from
    the file's one tokenization (see :class:`Spans`), everything else is encoded directly.
    """
    enc = encoding(cfg.token_encoding)
    for i, n in enumerate(nodes):
        n["summary_tokens"] = len(enc.encode_ordinary(n["summary"])) if n["summary"] else 0
        n["api_tokens"] = len(enc.encode_ordinary(n["api"])) if n["api"] else 0
        full = n["full"] or ""
        if spans is not None and i in spans.by_node:
            n["full_tokens"] = spans.count(*spans.by_node[i])
        elif spans is not None and n["kind"] == "file":
            n["full_tokens"] = spans.total
        else:
            n["full_tokens"] = len(enc.encode_ordinary(full)) if full else 0
        n["content_hash"] = content_hash(full)


@functools.lru_cache(maxsize=4)
def _token_lengths(name: str) -> np.ndarray:
    """Byte length of every token id of an encoding (special tokens: 0). Computing it decodes
    every token (~0.3 s for cl100k_base, paid by every process that parses a file), so it is kept
    in ``$STRATUM_CACHE/tokens/`` keyed by encoding, vocabulary size and tiktoken version."""
    import tiktoken

    enc = encoding(name)
    path = cache_dir() / f"{name}-{enc.max_token_value + 1}-{tiktoken.__version__}.npy"
    try:
        out = npyio.load(path)
        if out.shape == (enc.max_token_value + 1,):
            return out
    except (OSError, ValueError):
        pass
    out = np.zeros(enc.max_token_value + 1, dtype=np.int64)
    for i in range(enc.max_token_value + 1):
        try:
            out[i] = len(enc.decode_single_token_bytes(i))
        except KeyError:
            pass
    try:   # best effort: a read-only home only costs the recomputation next time
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            np.save(fh, out)
        os.replace(tmp, path)
    except OSError:
        pass
    return out


class Spans:
    """Exact token counts of line-aligned slices of one file, from a single tokenization.

    cl100k_base splits text into pieces with a regex before BPE, and BPE never crosses a piece.
    A piece never continues past the start of a line holding non-blank text (whitespace runs end
    at their last newline; punctuation runs swallow only the newlines right after them), so the
    pieces, hence the tokens, of a slice that starts at such a line start are the file's own up to
    the start of the slice's last non-blank line; only that last line is encoded again. A slice
    whose boundaries do not fall on token boundaries of the file is encoded directly (a guard, not
    an expected path). Other encodings are always encoded directly.
    """

    def __init__(self, src: bytes, text: str, name: str):
        self.src = src
        self.name = name
        self.enc = encoding(name)
        self.by_node: dict[int, tuple[int, int]] = {}
        self.exact_slices = name == "cl100k_base"
        if self.exact_slices:
            toks = self.enc.encode_to_numpy(text, disallowed_special=())
            self.ends = np.cumsum(_token_lengths(name)[toks]).tolist()
            self.total = len(toks)
        else:
            self.total = len(self.enc.encode_ordinary(text)) if text else 0

    def count(self, start: int, end: int) -> int:
        src = self.src
        if not self.exact_slices:
            return len(self.enc.encode_ordinary(src[start:end].decode("utf-8", "replace")))
        trimmed = start + len(src[start:end].rstrip())
        last = src.rfind(b"\n", start, trimmed) + 1
        if last <= start:
            return len(self.enc.encode_ordinary(src[start:end].decode("utf-8", "replace")))
        i = bisect.bisect_right(self.ends, start)
        j = bisect.bisect_right(self.ends, last)
        aligned = (i == 0 and start == 0 or i > 0 and self.ends[i - 1] == start) and j > 0 \
            and self.ends[j - 1] == last
        if not aligned:
            return len(self.enc.encode_ordinary(src[start:end].decode("utf-8", "replace")))
        return (j - i) + len(self.enc.encode_ordinary(src[last:end].decode("utf-8", "replace")))


__all__ = ["file_node_id", "dir_node_id", "finish", "Spans"]
