"""A board's outbox on disk: every event it publishes, numbered and fsync'd (the journal's
format, damas.journal), and how far the broker has acknowledged them.

The number (`seq`) goes with the message: the broadcaster keeps, per board, the last
number it applied and drops anything at or below it, so a message sent twice (a resend
after a reconnect, a replay after a restart) is never applied twice. The acknowledged
mark is saved at most once a second (and on close): a crash may replay a few messages
the broker already had, which the numbering makes harmless, but never loses one.
"""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path

from damas.events import HallEntry
from damas.journal import Journal, read_journal

SAVE_EVERY = 1.0  # seconds between saves of the acknowledged mark


class Spool:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._journal = Journal(self.path)  # fsync'd, numbered across runs
        self._acked_path = self.path.with_name(self.path.name + ".acked")
        self.acked = self._read_acked()
        self._saved, self._saved_at = self.acked, 0.0
        self._lock = threading.Lock()
        self.instance = self._instance()

    def _read_acked(self) -> int:
        try:
            text = self._acked_path.read_text().strip()
        except FileNotFoundError:
            return 0
        return int(text) if text.isdigit() else 0  # unreadable: replay it all (harmless)

    def _instance(self) -> str:
        """This board's identity, kept beside the spool: the same board after a restart
        is the same instance; another machine claiming its id is not."""
        from damas.calibration.store import atomic_write_text

        path = self.path.with_name(self.path.name + ".id")
        try:
            text = path.read_text().strip()
            if text:
                return text
        except FileNotFoundError:
            pass
        text = secrets.token_hex(6)
        atomic_write_text(path, text + "\n")
        return text

    def entries(self) -> list[dict]:
        """Everything in the spool, in order: `{"seq", "wall", "event"}`."""
        return [e for e in read_journal(self.path)
                if e.get("kind") == "hall" and isinstance(e.get("event"), dict)]

    def unacked(self) -> list[dict]:
        return [e for e in self.entries() if e["seq"] > self.acked]

    def append(self, event: dict) -> dict:
        """The event on disk before anything is sent: returns its spool entry."""
        with self._lock:
            return self._journal.write(HallEntry(event))

    def ack(self, seq: int) -> None:
        """The broker has every message up to `seq`."""
        from damas.calibration.store import atomic_write_text

        with self._lock:
            self.acked = max(self.acked, seq)
            now = time.monotonic()
            if self.acked != self._saved and now - self._saved_at >= SAVE_EVERY:
                atomic_write_text(self._acked_path, f"{self.acked}\n")
                self._saved, self._saved_at = self.acked, now

    def close(self) -> None:
        from damas.calibration.store import atomic_write_text

        with self._lock:
            if self.acked != self._saved:
                atomic_write_text(self._acked_path, f"{self.acked}\n")
                self._saved = self.acked
            self._journal.close()
