"""What a one-identifier query names beyond the name list's exact spelling (``ShardSignals.exact_names``):
a file by its path's tail, as `get` takes it (``requests/cookies.py`` for ``src/requests/cookies.py``),
a dotted module as an import writes it (``flask.helpers``), and a name in its other case style
(``requests_cookie_jar`` for ``RequestsCookieJar``, ``prepareBody`` for ``prepare_body``: the name
list folds case, not underscores). A probe of requests found the first at rank 70 and the last at 48."""

from __future__ import annotations

import re
from typing import Any, Collection

_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")      # prepareBody -> prepare_Body


def file_by_tail(shard: Any, path: str) -> dict[str, int]:
    """{id: row} of the one file whose path ends with the whole of ``path``, or {}: none, a tie
    (``pathtails``), or only a shorter tail matches."""
    from stratum.pathtails import tails

    r = tails(shard).row_of(path)
    if r is None:
        return {}
    got = shard.col("path")[r] or ""
    if not (got == path or got.endswith("/" + path.lstrip("/"))) or shard.col("kind")[r] != "file":
        return {}
    return {shard.col("id")[r]: int(r)}


def module_file(shard: Any, parts: list[str]) -> dict[str, int]:
    """{id: row} of the file a dotted module name names, as an import writes it (``flask.helpers``
    -> ``src/flask/helpers.py``, a package -> its ``__init__.py``), by its path's tail; {} when
    none or several do. `flask.helpers` found no file, and `shop.cart` the class Cart (a probe)."""
    if "::" in ".".join(parts) or not all(p.isidentifier() for p in parts):
        return {}
    base = "/".join(parts)
    return file_by_tail(shard, base + ".py") or file_by_tail(shard, base + "/__init__.py")


def restyled(shard: Any, word: str, kw: Any, kinds: Collection[str], most: int) -> dict[str, int]:
    """{id: row} of the code (of ``kinds``) a snake_case ``word`` names in CamelCase, or a camelCase
    one in snake_case, or {}: none, or more than ``most``."""
    if "_" in word.strip("_"):
        other = word.strip("_").replace("_", "")
    elif _HUMP.search(word):
        other = _HUMP.sub("_", word).lower()
    else:
        return {}
    hits: dict[str, int] = {}
    for r in kw.name_rows(other).tolist():
        if shard.col("kind")[r] in kinds:
            hits[shard.col("id")[r]] = int(r)
            if len(hits) > most:
                return {}
    return hits


__all__ = ["file_by_tail", "module_file", "restyled"]
