"""Store-level settings for notes (``<store>/notes_policy.json``; `stratum notes policy`), and the
file as a running server watches it: `stratum notes policy --quarantine on` reaches a server with no
new version (an up-to-date index publishes none: a probe found it read once per loaded version).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path

from stratum.errors import InvalidArgument

POLICY_FILE = "notes_policy.json"
log = logging.getLogger("stratum.overlay")


@dataclass(frozen=True)
class NotesPolicy:
    """Store-level settings for notes (``<store>/notes_policy.json``; `stratum notes policy`)."""
    quarantine: bool = False        # notes by authors new to the store wait for a confirmation

    @classmethod
    def load(cls, store_root) -> "NotesPolicy":
        p = Path(store_root) / POLICY_FILE
        try:
            raw = json.loads(p.read_text())
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as e:
            raise InvalidArgument(f"{p} is unreadable ({e}); fix or delete it") from None
        if not isinstance(raw, dict):
            raise InvalidArgument(f"{p} holds {type(raw).__name__}, not an object like "
                                  '{"quarantine": true}; fix or delete it')
        return cls(quarantine=bool(raw.get("quarantine", False)))

    def save(self, store_root) -> None:
        p = Path(store_root) / POLICY_FILE
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1, sort_keys=True))
        tmp.replace(p)


class PolicyFile:
    """A store's policy file as last read: ``changed()`` stats it (with each log poll) and reads it
    again when it moved. A bad edit keeps the policy in force and is said once, not at every poll."""

    def __init__(self, store_root) -> None:
        self.root = Path(store_root)
        self._stamp = self._stat()
        self.policy = NotesPolicy.load(self.root)

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = (self.root / POLICY_FILE).stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def changed(self) -> NotesPolicy | None:
        """The policy, read again, when the file moved since; else None."""
        stamp = self._stat()
        if stamp == self._stamp:
            return None
        self._stamp = stamp
        try:
            self.policy = NotesPolicy.load(self.root)
        except InvalidArgument as e:
            log.warning("notes policy not reloaded: %s", e.message)
            return None
        return self.policy


__all__ = ["NotesPolicy", "PolicyFile", "POLICY_FILE"]
