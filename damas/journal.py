"""The append-only journal of a session: every event, one JSON object per line.

Each line is flushed and, for moves and game boundaries, forced to disk before the
session goes on, so a crash or power cut loses at most the event being written. A torn
last line (the power went mid-write) is skipped on reading, never an error.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from damas.rules import DamasError, Game

DURABLE = {"game-start", "move", "accepted", "game-end", "setup"}


class JournalError(DamasError):
    pass


class Journal:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._file = open(self.path, "a", encoding="utf-8")
        except OSError as e:
            raise JournalError(f"cannot write the journal {self.path}: {e.strerror}") from None
        self._ensure_line_start()

    def _ensure_line_start(self) -> None:
        """After a torn write the file may end mid-line: start the next event afresh."""
        size = self.path.stat().st_size
        if size:
            with open(self.path, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    self._file.write("\n")

    def write(self, kind: str, **data) -> dict:
        event = {"kind": kind, "wall": round(time.time(), 3), **data}
        self._file.write(json.dumps(event, separators=(",", ":")) + "\n")
        self._file.flush()
        if kind in DURABLE:
            os.fsync(self._file.fileno())
        return event

    def close(self) -> None:
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_journal(path: str | os.PathLike) -> list[dict]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise JournalError(f"no journal at {path}: nothing to resume") from None
    events = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn line: the event never completed
        if isinstance(event, dict) and "kind" in event:
            events.append(event)
    return events


def replay_last_game(path: str | os.PathLike) -> tuple[Game, list[dict]]:
    """The journal's last game exactly as recorded (its start and every move), and its
    events, for `--resume` after a crash."""
    events = last_game(read_journal(path))
    if any(e["kind"] == "tracker-accepted" for e in events):
        raise JournalError("the journal's last game went on after an accepted irregularity "
                           "(000 §5.7): resuming such a game is not supported yet; its record "
                           "up to now is in the live PDN and the journal")
    start = events[0]
    game = Game(start["variant"], fen=start["fen"])
    for e in events:
        if e["kind"] == "move":
            game.push(e["notation"])
    return game, events


def last_game(events: list[dict]) -> list[dict]:
    """The events of the last game begun in the journal."""
    starts = [i for i, e in enumerate(events) if e["kind"] == "game-start"]
    if not starts:
        raise JournalError("the journal holds no game")
    return events[starts[-1]:]
