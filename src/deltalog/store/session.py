"""What a Reasoner knows of the store it was opened from or saved to (deltalog/store).

The store keeps this beside the reasoner (``Reasoner.store_session``) instead of setting loose
attributes on it: the version its state matches, how much of its state that version holds, the
writer lock it may hold, and the update history the next save extends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deltalog.storage import persist
from deltalog.store.locks import WriterLock


@dataclass
class StoreLink:
    """The store version a reasoner's state matches, and how much of its state that version holds."""

    path: Path
    snapshot: str
    version: int
    saved: persist.Saved
    program: str
    manifest: dict
    lock: WriterLock | None = None


@dataclass
class StoreSession:
    """A reasoner's tie to a store: ``link`` (None until a save) and the ``history`` of its updates
    (the manifest's, most recent last)."""

    link: StoreLink | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    def release(self) -> None:
        """Release the writer lock, if the reasoner holds one."""
        if self.link is not None and self.link.lock is not None:
            self.link.lock.release()
            self.link.lock = None
