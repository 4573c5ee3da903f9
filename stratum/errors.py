"""Typed errors for the whole project, in one tree.

    StratumError                  base: carries a stable ``code`` and whether a retry can help
    ├── UserError                 bad input; a short message, never a stack trace
    │   ├── NotARepository        the path is not a git work tree
    │   ├── NotFound              unknown node id, path or target
    │   ├── InvalidArgument       malformed argument (bad level, zero budget, oversized query, ...)
    │   ├── InvalidPageToken      tampered, foreign or stale next-page token
    │   ├── BudgetExceeded        pinned + mandatory content + the request exceed the session budget
    │   ├── ResourceExhausted     a server-wide cap (sessions per identity or in total) is reached
    │   ├── Unauthenticated       the server requires credentials and none (or bad ones) came
    │   ├── PermissionDenied      the caller's identity may not do this (another's session or note)
    │   ├── NoteRejected          a note that cannot be written (empty, too large, unknown target)
    │   └── Abandoned             the caller stopped waiting (deadline, cancel): nothing was charged
    └── SystemError_              an internal failure; the full trace is worth keeping
        ├── StoreError            the Lance store or its manifest is missing or unreadable
        │   └── StoreDamaged      a store file fails its checksum or structure check (says what to do)
        ├── SchemaMismatch        a dataset written by another schema version
        ├── ModelMismatch         vectors in the store come from another embedding model
        ├── ModelUnavailable      the packaged embedding weights are not installed
        ├── LogCorruption         the delta log has damage that cannot be skipped safely
        └── Unavailable           a remote server could not be reached or did not answer in time

Adapters (CLI, gRPC, MCP) translate these in one place each. Errors pickle cleanly so they
survive crossing Ray workers.
"""

from __future__ import annotations


class StratumError(Exception):
    code = "internal"
    retryable = False

    def __init__(self, message: str, *, retryable: bool | None = None):
        super().__init__(message)
        self.message = message
        if retryable is not None:
            self.retryable = retryable

    def __reduce__(self):  # keep the message and retry flag across pickling (Ray)
        return (_rebuild, (type(self), self.message, self.retryable))

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "retryable": self.retryable}


def _rebuild(cls, message, retryable):
    return cls(message, retryable=retryable)


class UserError(StratumError):
    code = "invalid_argument"


class NotARepository(UserError):
    code = "not_a_repository"


class NotFound(UserError):
    code = "not_found"


class InvalidArgument(UserError):
    code = "invalid_argument"


class InvalidPageToken(UserError):
    code = "invalid_page_token"


class BudgetExceeded(UserError):
    code = "budget_exceeded"


class ResourceExhausted(UserError):
    code = "resource_exhausted"
    retryable = True           # after other sessions expire or close


class Unauthenticated(UserError):
    code = "unauthenticated"


class PermissionDenied(UserError):
    code = "permission_denied"


class NoteRejected(UserError):
    code = "note_rejected"


class Abandoned(UserError):
    """The caller stopped waiting (a deadline passed, a cancel) before the answer was admitted to
    its session: nothing was charged or evicted (``stratum.delivery``)."""
    code = "cancelled"


class SystemError_(StratumError):
    code = "internal"


class StoreError(SystemError_):
    code = "store_error"

    @classmethod
    def from_os(cls, err: OSError, then: str = "") -> StoreError:
        """An OSError on the files (a store path that is a file, a manifest that is a folder, a
        permission) in one line, what failed and the path: ``Not a directory (/s/manifest.json)``,
        then ``then``: one wording for the store's manifest read and the CLI's last resort."""
        where = f" ({err.filename})" if err.filename else ""
        return cls(f"{err.strerror or str(err) or type(err).__name__}{where}{then}")


class StoreReadOnly(StoreError):
    """The store cannot be written where a write was asked (a read-only mount, no permission): an
    operator's setting, not a fault, and not retryable; the message says what needs write access."""
    code = "store_read_only"


class StoreDamaged(StoreError):
    """Found damage, never served; the message names the file and the way out (``stratum repair``),
    so adapters print it without a trace."""
    code = "store_damaged"


class SchemaMismatch(SystemError_):
    code = "schema_mismatch"


class ModelMismatch(SystemError_):
    code = "model_mismatch"


class ModelUnavailable(SystemError_):
    code = "model_unavailable"


class LogCorruption(SystemError_):
    code = "log_corruption"


class Unavailable(SystemError_):
    code = "unavailable"
    retryable = True


__all__ = [
    "StratumError", "UserError", "NotARepository", "NotFound", "InvalidArgument",
    "InvalidPageToken", "BudgetExceeded", "ResourceExhausted", "Unauthenticated", "PermissionDenied", "NoteRejected", "Abandoned", "SystemError_", "StoreError", "StoreReadOnly", "StoreDamaged", "SchemaMismatch",
    "ModelMismatch", "ModelUnavailable", "LogCorruption", "Unavailable",
]
