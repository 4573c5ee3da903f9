from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Budget(_message.Message):
    __slots__ = ("limit", "used", "remaining")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    limit: int
    used: int
    remaining: int
    def __init__(self, limit: _Optional[int] = ..., used: _Optional[int] = ..., remaining: _Optional[int] = ...) -> None: ...

class Eviction(_message.Message):
    __slots__ = ("node_id", "from_level", "to_level", "tokens_freed", "reason", "label")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TO_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FREED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    from_level: str
    to_level: str
    tokens_freed: int
    reason: str
    label: str
    def __init__(self, node_id: _Optional[str] = ..., from_level: _Optional[str] = ..., to_level: _Optional[str] = ..., tokens_freed: _Optional[int] = ..., reason: _Optional[str] = ..., label: _Optional[str] = ...) -> None: ...

class Envelope(_message.Message):
    __slots__ = ("returned", "total", "total_is_lower_bound", "page", "pages", "has_more", "next_page_token", "tokens_returned", "budget", "evictions", "next_hint", "version", "warnings", "commit", "commits", "stale")
    class CommitsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RETURNED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    TOTAL_IS_LOWER_BOUND_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGES_FIELD_NUMBER: _ClassVar[int]
    HAS_MORE_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKENS_RETURNED_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    EVICTIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_HINT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    returned: int
    total: int
    total_is_lower_bound: bool
    page: int
    pages: int
    has_more: bool
    next_page_token: str
    tokens_returned: int
    budget: Budget
    evictions: _containers.RepeatedCompositeFieldContainer[Eviction]
    next_hint: str
    version: int
    warnings: _containers.RepeatedScalarFieldContainer[str]
    commit: str
    commits: _containers.ScalarMap[str, str]
    stale: bool
    def __init__(self, returned: _Optional[int] = ..., total: _Optional[int] = ..., total_is_lower_bound: _Optional[bool] = ..., page: _Optional[int] = ..., pages: _Optional[int] = ..., has_more: _Optional[bool] = ..., next_page_token: _Optional[str] = ..., tokens_returned: _Optional[int] = ..., budget: _Optional[_Union[Budget, _Mapping]] = ..., evictions: _Optional[_Iterable[_Union[Eviction, _Mapping]]] = ..., next_hint: _Optional[str] = ..., version: _Optional[int] = ..., warnings: _Optional[_Iterable[str]] = ..., commit: _Optional[str] = ..., commits: _Optional[_Mapping[str, str]] = ..., stale: _Optional[bool] = ...) -> None: ...

class Item(_message.Message):
    __slots__ = ("id", "kind", "path", "name", "qualname", "level", "text", "tokens", "score", "language", "start_line", "end_line", "edge", "direction", "warnings", "meta_json", "provenance", "trust", "why", "notes", "repo")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUALNAME_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    EDGE_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    META_JSON_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    TRUST_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    path: str
    name: str
    qualname: str
    level: str
    text: str
    tokens: int
    score: float
    language: str
    start_line: int
    end_line: int
    edge: str
    direction: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    meta_json: str
    provenance: _struct_pb2.Struct
    trust: str
    why: str
    notes: _containers.RepeatedCompositeFieldContainer[NoteRef]
    repo: str
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., path: _Optional[str] = ..., name: _Optional[str] = ..., qualname: _Optional[str] = ..., level: _Optional[str] = ..., text: _Optional[str] = ..., tokens: _Optional[int] = ..., score: _Optional[float] = ..., language: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., edge: _Optional[str] = ..., direction: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ..., meta_json: _Optional[str] = ..., provenance: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., trust: _Optional[str] = ..., why: _Optional[str] = ..., notes: _Optional[_Iterable[_Union[NoteRef, _Mapping]]] = ..., repo: _Optional[str] = ...) -> None: ...

class NoteRef(_message.Message):
    __slots__ = ("id", "kind", "age_days", "author", "trust", "stale", "line", "extra")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AGE_DAYS_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    TRUST_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    EXTRA_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    age_days: float
    author: str
    trust: str
    stale: bool
    line: str
    extra: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., age_days: _Optional[float] = ..., author: _Optional[str] = ..., trust: _Optional[str] = ..., stale: _Optional[bool] = ..., line: _Optional[str] = ..., extra: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class OpenSessionRequest(_message.Message):
    __slots__ = ("author", "model", "budget", "policy", "branch", "commit", "worktree")
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    WORKTREE_FIELD_NUMBER: _ClassVar[int]
    author: str
    model: str
    budget: int
    policy: str
    branch: str
    commit: str
    worktree: str
    def __init__(self, author: _Optional[str] = ..., model: _Optional[str] = ..., budget: _Optional[int] = ..., policy: _Optional[str] = ..., branch: _Optional[str] = ..., commit: _Optional[str] = ..., worktree: _Optional[str] = ...) -> None: ...

class CloseSessionRequest(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: str
    def __init__(self, session: _Optional[str] = ...) -> None: ...

class TreeRequest(_message.Message):
    __slots__ = ("session", "path", "depth", "page_size", "page_token")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session: str
    path: str
    depth: int
    page_size: int
    page_token: str
    def __init__(self, session: _Optional[str] = ..., path: _Optional[str] = ..., depth: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("session", "query", "kinds", "path_prefix", "language", "page_size", "page_token")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    PATH_PREFIX_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session: str
    query: str
    kinds: _containers.RepeatedScalarFieldContainer[str]
    path_prefix: str
    language: str
    page_size: int
    page_token: str
    def __init__(self, session: _Optional[str] = ..., query: _Optional[str] = ..., kinds: _Optional[_Iterable[str]] = ..., path_prefix: _Optional[str] = ..., language: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetRequest(_message.Message):
    __slots__ = ("session", "target", "level", "lines")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    session: str
    target: str
    level: str
    lines: str
    def __init__(self, session: _Optional[str] = ..., target: _Optional[str] = ..., level: _Optional[str] = ..., lines: _Optional[str] = ...) -> None: ...

class WalkRequest(_message.Message):
    __slots__ = ("session", "target", "edges", "direction", "page_size", "page_token")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session: str
    target: str
    edges: _containers.RepeatedScalarFieldContainer[str]
    direction: str
    page_size: int
    page_token: str
    def __init__(self, session: _Optional[str] = ..., target: _Optional[str] = ..., edges: _Optional[_Iterable[str]] = ..., direction: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class RememberRequest(_message.Message):
    __slots__ = ("session", "kind", "text", "about", "tags", "supersedes")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ABOUT_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_FIELD_NUMBER: _ClassVar[int]
    session: str
    kind: str
    text: str
    about: _containers.RepeatedScalarFieldContainer[str]
    tags: _containers.RepeatedScalarFieldContainer[str]
    supersedes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, session: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., about: _Optional[_Iterable[str]] = ..., tags: _Optional[_Iterable[str]] = ..., supersedes: _Optional[_Iterable[str]] = ...) -> None: ...

class PinRequest(_message.Message):
    __slots__ = ("session", "target")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    session: str
    target: str
    def __init__(self, session: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class RetractRequest(_message.Message):
    __slots__ = ("session", "note_id", "reason")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    NOTE_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    session: str
    note_id: str
    reason: str
    def __init__(self, session: _Optional[str] = ..., note_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ConfirmRequest(_message.Message):
    __slots__ = ("session", "note_id")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    NOTE_ID_FIELD_NUMBER: _ClassVar[int]
    session: str
    note_id: str
    def __init__(self, session: _Optional[str] = ..., note_id: _Optional[str] = ...) -> None: ...

class UnpinRequest(_message.Message):
    __slots__ = ("session", "target")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    session: str
    target: str
    def __init__(self, session: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class PrefetchRequest(_message.Message):
    __slots__ = ("session", "focus", "budget")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    FOCUS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    session: str
    focus: _containers.RepeatedScalarFieldContainer[str]
    budget: int
    def __init__(self, session: _Optional[str] = ..., focus: _Optional[_Iterable[str]] = ..., budget: _Optional[int] = ...) -> None: ...

class StatusRequest(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: str
    def __init__(self, session: _Optional[str] = ...) -> None: ...

class OpenSessionResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json", "session")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    session: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ..., session: _Optional[str] = ...) -> None: ...

class CloseSessionResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class TreeResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class GetResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class WalkResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class RememberResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json", "note_id")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    NOTE_ID_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    note_id: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ..., note_id: _Optional[str] = ...) -> None: ...

class PinResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class RetractResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class ConfirmResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class UnpinResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class PrefetchResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ...) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ("envelope", "items", "data_json", "shards")
    ENVELOPE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    SHARDS_FIELD_NUMBER: _ClassVar[int]
    envelope: Envelope
    items: _containers.RepeatedCompositeFieldContainer[Item]
    data_json: str
    shards: _containers.RepeatedCompositeFieldContainer[ShardStatus]
    def __init__(self, envelope: _Optional[_Union[Envelope, _Mapping]] = ..., items: _Optional[_Iterable[_Union[Item, _Mapping]]] = ..., data_json: _Optional[str] = ..., shards: _Optional[_Iterable[_Union[ShardStatus, _Mapping]]] = ...) -> None: ...

class ShardStatus(_message.Message):
    __slots__ = ("store", "repo", "version", "indexed_commit", "nodes", "published_at", "unmerged_notes", "repo_available", "head", "new_commits", "moved_on", "uncommitted_changes")
    STORE_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    INDEXED_COMMIT_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    PUBLISHED_AT_FIELD_NUMBER: _ClassVar[int]
    UNMERGED_NOTES_FIELD_NUMBER: _ClassVar[int]
    REPO_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    HEAD_FIELD_NUMBER: _ClassVar[int]
    NEW_COMMITS_FIELD_NUMBER: _ClassVar[int]
    MOVED_ON_FIELD_NUMBER: _ClassVar[int]
    UNCOMMITTED_CHANGES_FIELD_NUMBER: _ClassVar[int]
    store: str
    repo: str
    version: int
    indexed_commit: str
    nodes: int
    published_at: float
    unmerged_notes: int
    repo_available: bool
    head: str
    new_commits: int
    moved_on: bool
    uncommitted_changes: bool
    def __init__(self, store: _Optional[str] = ..., repo: _Optional[str] = ..., version: _Optional[int] = ..., indexed_commit: _Optional[str] = ..., nodes: _Optional[int] = ..., published_at: _Optional[float] = ..., unmerged_notes: _Optional[int] = ..., repo_available: _Optional[bool] = ..., head: _Optional[str] = ..., new_commits: _Optional[int] = ..., moved_on: _Optional[bool] = ..., uncommitted_changes: _Optional[bool] = ...) -> None: ...
