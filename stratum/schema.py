"""The Arrow schemas of every dataset: the single source of truth.

Everything that writes or reads a dataset imports its schema from here. Each dataset carries
``stratum.schema_version`` in its schema metadata so a reader can refuse data written by another
version instead of misreading it.

Records flowing between pipeline stages are plain dicts whose keys are these field names;
``to_table`` turns a list of them into an Arrow table with the right types (missing keys -> null).
"""

from __future__ import annotations

import pyarrow as pa

SCHEMA_VERSION = 1
META_SCHEMA_VERSION = b"stratum.schema_version"

CODE_KINDS = ("repo", "dir", "file", "class", "function", "method")
AGENT_NOTE_KINDS = ("rca", "failure", "insight")   # written by agents through remember
MINED_NOTE_KINDS = ("fix", "change")                 # derived from history at index time (pipeline/fixes.py): a past
                                                     # bug fix, or any other small commit, and the files it touched
NOTE_KINDS = AGENT_NOTE_KINDS + MINED_NOTE_KINDS
# the order notes are listed in wherever an agent reads them beside code: what failed and why first,
# then insights, then mined fixes and changes (get's attached notes, walk --edge notes)
NOTE_ORDER = {"failure": 0, "rca": 1, "insight": 2, "fix": 3, "change": 4}
DIRECTIONS = ("out", "in", "both")         # a walk's edge directions (graph, tools, the MCP schema)
NOTE_KIND_DESCRIPTIONS = {
    "rca": "root-cause analysis: the cause of a symptom is in this code",
    "failure": "an approach that did not work here, and why",
    "insight": "anything else worth knowing next time",
    "fix": "a past bug fix mined from history: what was fixed, where, when",
    "change": "a past change (not a bug fix) mined from history: what was changed, where, when",
}
NOTE_KINDS_NEED_ABOUT = ("rca", "failure")            # must name the code they concern
NOTE_KIND_WORDS = {"rca": "root cause analysis", "failure": "failed attempt", "insight": "insight",
                   "fix": "fix", "change": "change"}  # how a kind is spelled in the text a note is embedded by
# Kinds attached to the code items that get/walk/prefetch return (stratum.memory.notes_about). A
# ``change`` is pulled by search but not pushed: a core file has hundreds, and five "past change"
# lines on every get would cost ~100 tokens an item for what `git log` says.
ATTACHED_NOTE_KINDS = AGENT_NOTE_KINDS + ("fix",)
NODE_KINDS = CODE_KINDS + NOTE_KINDS
SEARCH_KINDS = tuple(k for k in NODE_KINDS if k != "repo")  # what search's kinds filter takes: the repo node
                                                             # never ranks (stratum.warm), `tree` lists it
EDGE_KINDS = ("contains", "imports", "tests", "cochange", "about", "calls", "inherits")
WALK_EDGE_KINDS = EDGE_KINDS + ("notes",)   # what walk's edges filter takes: "notes" = the incoming about edges
LEVELS = ("summary", "api", "full")
RANGE_MARK = "#L"          # a line range's context entry: <node id>#L<start>-<end> (linerange.context_key)

EMBED_DIM = 384


def _schema(fields: list[pa.Field], name: str) -> pa.Schema:
    return pa.schema(fields, metadata={META_SCHEMA_VERSION: str(SCHEMA_VERSION).encode(),
                                       b"stratum.dataset": name.encode()})


# Nodes: code (repo/dir/file/class/function/method) and notes (rca/failure/insight).
NODES = _schema([
    pa.field("id", pa.string(), nullable=False),        # stable: ids.node_id(repo, path, kind, qualname)
    pa.field("repo", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),      # one of NODE_KINDS
    pa.field("subkind", pa.string()),                   # class: class/struct/interface/trait/enum/...
    pa.field("path", pa.string(), nullable=False),      # repo-relative posix path; "" for the repo node
    pa.field("name", pa.string(), nullable=False),
    pa.field("qualname", pa.string(), nullable=False),  # e.g. "Flask.route"; "" for repo/dir/file
    pa.field("language", pa.string()),
    pa.field("parent_id", pa.string()),
    pa.field("start_line", pa.int32()),                 # 1-based, inclusive
    pa.field("end_line", pa.int32()),
    pa.field("signature", pa.string()),
    pa.field("doc", pa.string()),                       # full docstring / leading comment
    pa.field("summary", pa.string()),                   # detail level: one line
    pa.field("api", pa.string()),                       # detail level: signatures + docstrings
    pa.field("full", pa.string()),                      # detail level: source text
    pa.field("summary_tokens", pa.int32()),
    pa.field("api_tokens", pa.int32()),
    pa.field("full_tokens", pa.int32()),
    pa.field("content_hash", pa.string()),              # sha1 of `full`
    pa.field("file_hash", pa.string()),                 # sha1 of the containing file's bytes
    pa.field("size_bytes", pa.int64()),
    # notes only (null for code nodes)
    pa.field("author", pa.string()),
    pa.field("session", pa.string()),
    pa.field("created_at", pa.timestamp("us", tz="UTC")),
    pa.field("tags", pa.list_(pa.string())),
    pa.field("status", pa.string()),                    # active / superseded / retracted / orphaned
    pa.field("meta", pa.string()),                      # JSON for kind-specific extras
    pa.field("vector", pa.list_(pa.float32(), EMBED_DIM)),  # null until embedded
], "nodes")

EDGES = _schema([
    pa.field("src", pa.string(), nullable=False),
    pa.field("dst", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),      # one of EDGE_KINDS
    pa.field("weight", pa.float64()),
    # co-change attributes (null for other kinds)
    pa.field("support", pa.int32()),
    pa.field("confidence_fwd", pa.float64()),           # P(dst changes | src changes)
    pa.field("confidence_bwd", pa.float64()),           # P(src changes | dst changes)
    pa.field("lift", pa.float64()),
    pa.field("last_time", pa.timestamp("us", tz="UTC")),
    pa.field("meta", pa.string()),                      # JSON: e.g. the import text, how a test link was found
], "edges")

# Imports that resolve outside the repository: kept and counted, not dropped.
EXTERNAL_IMPORTS = _schema([
    pa.field("src", pa.string(), nullable=False),       # file node id
    pa.field("path", pa.string(), nullable=False),
    pa.field("language", pa.string(), nullable=False),
    pa.field("target", pa.string(), nullable=False),    # the import text, e.g. "numpy" or "<stdio.h>"
], "external_imports")

COMMITS = _schema([
    pa.field("sha", pa.string(), nullable=False),
    pa.field("parents", pa.list_(pa.string())),
    pa.field("author_name", pa.string()),
    pa.field("author_email", pa.string()),
    pa.field("authored_at", pa.timestamp("us", tz="UTC")),
    pa.field("committed_at", pa.timestamp("us", tz="UTC")),
    pa.field("message", pa.string()),
    pa.field("is_merge", pa.bool_()),
    pa.field("is_bugfix", pa.bool_()),
    pa.field("n_files", pa.int32()),
], "commits")

FILE_CHANGES = _schema([
    pa.field("sha", pa.string(), nullable=False),
    pa.field("path", pa.string(), nullable=False),      # path in that commit
    pa.field("old_path", pa.string()),                  # set for renames/copies
    pa.field("current_path", pa.string()),              # path at HEAD after following renames (null if gone)
    pa.field("change_type", pa.string()),               # A/M/D/R/C/T
    pa.field("added", pa.int32()),                      # null for binary
    pa.field("deleted", pa.int32()),
    pa.field("binary", pa.bool_()),
    pa.field("committed_at", pa.timestamp("us", tz="UTC")),
], "file_changes")

COCHANGE = _schema([
    pa.field("a", pa.string(), nullable=False),         # current path, a < b
    pa.field("b", pa.string(), nullable=False),
    pa.field("support", pa.int32()),
    pa.field("revs_a", pa.int32()),
    pa.field("revs_b", pa.int32()),
    pa.field("confidence_ab", pa.float64()),            # support / revs_a
    pa.field("confidence_ba", pa.float64()),            # support / revs_b
    pa.field("lift", pa.float64()),                     # support * n_commits / (revs_a * revs_b)
    pa.field("degree", pa.float64()),                   # 100 * support / mean(revs_a, revs_b)
    pa.field("first_time", pa.timestamp("us", tz="UTC")),
    pa.field("last_time", pa.timestamp("us", tz="UTC")),
    pa.field("decayed_weight", pa.float64()),           # sum of 0.5 ** (age / half_life) over shared commits
], "cochange")

SYMBOL_COCHANGE = _schema([
    pa.field("a", pa.string(), nullable=False),         # "path::qualname", a < b
    pa.field("b", pa.string(), nullable=False),
    pa.field("support", pa.int32()),
    pa.field("revs_a", pa.int32()),
    pa.field("revs_b", pa.int32()),
    pa.field("confidence_ab", pa.float64()),
    pa.field("confidence_ba", pa.float64()),
    pa.field("last_time", pa.timestamp("us", tz="UTC")),
], "symbol_cochange")

# The functions and methods each commit changed (pipeline.symbols, opt-in with symbol co-change): kept
# so that a re-index reads only the new commits' diffs and recomputes SYMBOL_COCHANGE over all of them.
SYMBOL_CHANGES = _schema([
    pa.field("sha", pa.string(), nullable=False),
    pa.field("path", pa.string(), nullable=False),        # the file's path in that commit
    pa.field("qualname", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),        # function / method
    pa.field("committed_at", pa.timestamp("us", tz="UTC")),
], "symbol_changes")

# Embedding cache: a re-index embeds only text whose hash it has not seen with this model.
EMBEDDINGS = _schema([
    pa.field("model", pa.string(), nullable=False),
    pa.field("text_hash", pa.string(), nullable=False),
    pa.field("vector", pa.list_(pa.float32(), EMBED_DIM), nullable=False),
], "embeddings")

DATASETS: dict[str, pa.Schema] = {
    "nodes": NODES, "edges": EDGES, "external_imports": EXTERNAL_IMPORTS, "commits": COMMITS,
    "file_changes": FILE_CHANGES, "cochange": COCHANGE, "symbol_cochange": SYMBOL_COCHANGE,
    "symbol_changes": SYMBOL_CHANGES, "embeddings": EMBEDDINGS,
}


def to_table(records: list[dict], schema: pa.Schema) -> pa.Table:
    """Build a typed table from plain dict records; missing keys become nulls. Dicts that hold their
    items (plain ones, a subclass that only marks them: ``pipeline.stages.StoredRow``) convert as
    one struct array (a re-index's 78,000 nodes: 0.3-0.6 s instead of 0.7-0.9 s, sympy); a subclass
    that makes items on a read (a note node counting its tokens on first read, ``LazyTokens``) goes
    through ``get``, which Arrow's struct conversion would not call."""
    if all(map(_holds_items, {type(r) for r in records})):
        return pa.Table.from_arrays(pa.array(records, type=pa.struct(list(schema))).flatten(), schema=schema)
    cols = {f.name: [r.get(f.name) for r in records] for f in schema}
    return pa.Table.from_pydict(cols, schema=schema)


def _holds_items(t: type) -> bool:
    """Instances of ``t`` are dicts whose items are all stored (none made by ``get`` or ``__missing__``)."""
    return t is dict or (issubclass(t, dict) and t.get is dict.get and t.__getitem__ is dict.__getitem__
                         and not hasattr(t, "__missing__"))


def check_schema(schema: pa.Schema, expected: pa.Schema, where: str) -> None:
    """Refuse a dataset written under another schema version."""
    from stratum.errors import SchemaMismatch

    got = (schema.metadata or {}).get(META_SCHEMA_VERSION)
    want = str(SCHEMA_VERSION).encode()
    if got != want:
        raise SchemaMismatch(
            f"{where}: written with schema version {got.decode() if got else 'unknown'}, "
            f"this build reads version {SCHEMA_VERSION}; re-index with `stratum index --full`")


__all__ = [
    "SCHEMA_VERSION", "CODE_KINDS", "NOTE_KINDS", "AGENT_NOTE_KINDS", "MINED_NOTE_KINDS", "ATTACHED_NOTE_KINDS",
    "NOTE_KIND_DESCRIPTIONS", "NOTE_KINDS_NEED_ABOUT", "NOTE_KIND_WORDS", "NODE_KINDS", "SEARCH_KINDS", "EDGE_KINDS",
    "LEVELS", "RANGE_MARK", "WALK_EDGE_KINDS", "EMBED_DIM",
    "NODES", "EDGES", "EXTERNAL_IMPORTS", "COMMITS", "FILE_CHANGES", "COCHANGE", "SYMBOL_COCHANGE",
    "SYMBOL_CHANGES", "EMBEDDINGS", "DATASETS", "to_table", "check_schema",
]
