"""The append-only journal of a session: every event, one JSON object per line.

Every event is numbered (`seq`, one more than the line before, across runs) and forced
to disk before the session goes on; a new journal's folder is synced too, so a crash or a
power cut loses at most the event being written. A torn last line (the power went
mid-write) is skipped on reading, never an error.

A journal damaged in the middle (a line broken, deleted, duplicated or swapped, an event
without its keys, a move that does not follow) is caught by the numbering and by
replaying the moves: `replay_last_game` keeps every event before the first damaged line,
says exactly what it dropped, and the session goes on from there (it writes a `resumed`
event holding the game so far, so later resumes do not depend on the damaged part).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from damas.rules import DamasError, Game

from .events import Event, Resumed

# the keys an event must have to be used on resume, by kind
REQUIRED: dict[str, dict[str, type]] = {
    "game-start": {"variant": str, "fen": str},
    "move": {"notation": str, "fen": str, "ply": int},
    "resumed": {"start": dict, "moves": list},
}
ANCHORS = ("game-start", "resumed")  # events a game's replay starts from
MoveCheck = Callable[[dict], "str | None"]


class JournalError(DamasError):
    pass


class NoGame(JournalError):
    """The journal holds no game that can be read back."""


class Journal:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            new = not self.path.exists()
            self._file = open(self.path, "a", encoding="utf-8")
        except OSError as e:
            raise JournalError(f"cannot write the journal {self.path}: {e.strerror}") from None
        if new:  # the file's name must survive a power cut too
            from damas.calibration.store import sync_folder

            os.fsync(self._file.fileno())
            sync_folder(self.path.parent)
        self.seq = _last_seq(self.path)
        self._ensure_line_start()

    def _ensure_line_start(self) -> None:
        """After a torn write the file may end mid-line: start the next event afresh."""
        size = self.path.stat().st_size
        if size:
            with open(self.path, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    self._file.write("\n")

    def write(self, event: Event) -> dict:
        """The event on disk (numbered, fsynced); returns it as the line holds it."""
        self.seq += 1
        line = {"kind": event.name(), "seq": self.seq, "wall": round(time.time(), 3),
                **event.fields()}
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())  # about 0.5 ms; a few events a move
        return line

    def close(self) -> None:
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _parse(line: bytes | str) -> dict | None:
    """The event on a line, or None when the line is not one (torn, broken)."""
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):  # not JSON (or not UTF-8), or absurdly nested
        return None
    if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
        return None
    return event


def _seq(event: dict) -> int | None:
    seq = event.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def _last_seq(path: Path) -> int:
    """The number of the file's last readable event (0 for none), read from its end."""
    with open(path, "rb") as f:
        pos = f.seek(0, os.SEEK_END)
        partial = b""
        while pos > 0:
            start = max(0, pos - (1 << 16))
            f.seek(start)
            lines = (f.read(pos - start) + partial).split(b"\n")
            partial = lines.pop(0) if start > 0 else b""
            for line in reversed(lines):
                event = _parse(line) if line.strip() else None
                seq = _seq(event) if event is not None else None
                if seq is not None:
                    return seq
            pos = start
    return 0


def read_journal(path: str | os.PathLike) -> list[dict]:
    """Every readable event of the journal, in file order (damaged lines left out)."""
    return [e for _, e in _lines(path) if e is not None]


def _lines(path: str | os.PathLike) -> list[tuple[int, dict | None]]:
    """(line number, event or None for an unreadable line) for every non-blank line."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise JournalError(f"no journal at {path}: nothing to resume") from None
    except OSError as e:
        raise JournalError(f"cannot read the journal {path}: {e.strerror}") from None
    return [(n, _parse(line)) for n, line in enumerate(data.split(b"\n"), 1) if line.strip()]


def missing_keys(event: dict) -> list[str]:
    """What an event lacks (or has of the wrong type) to be used on resume."""
    wanted = REQUIRED.get(event["kind"], {})
    return [k for k, kind in wanted.items()
            if not isinstance(event.get(k), kind) or isinstance(event.get(k), bool)]


@dataclass
class Damage:
    line: int  # the first damaged line of the file (1-based)
    why: str


@dataclass
class Replay:
    """The journal's last game as far as it can be trusted."""

    game: Game
    events: list[dict]  # its start, every move kept, and its other events up to the damage
    damage: Damage | None = None
    dropped: list[dict] = field(default_factory=list)  # readable events after the damage

    @property
    def start(self) -> dict:
        return self.events[0]

    @property
    def moves(self) -> list[dict]:
        return [e for e in self.events if e["kind"] == "move"]

    @property
    def lost(self) -> str | None:
        """What resuming leaves out, in one line (None when nothing)."""
        if self.damage is None:
            return None
        plies = [e.get("notation", "?") for e in self.dropped if e.get("kind") == "move"]
        after = (f"{len(plies)} later plies dropped ({' '.join(map(str, plies))})" if plies
                 else "no later move was recorded")
        return (f"journal line {self.damage.line}: {self.damage.why}; the game goes on after "
                f"ply {self.game.ply} ({self.game.position.fen()}); {after}")

    def resumed_event(self) -> Resumed:
        """The `resumed` event: the whole game so far, so that a later resume replays
        from it and never needs the lines before it."""
        return Resumed(ply=self.game.ply, fen=self.game.position.fen(),
                       start={k: v for k, v in self.start.items() if k not in ("seq", "wall")},
                       moves=[{k: v for k, v in e.items() if k not in ("seq", "wall")}
                              for e in self.moves],
                       lost=self.lost)


def replay_last_game(path: str | os.PathLike, move_check: MoveCheck | None = None) -> Replay:
    """The journal's last game: its start and every move up to the first damaged line
    (see the module docstring), for `--resume` after a crash. `move_check(event)` says
    what else a move event lacks for the caller (the recorder's clock), or None."""
    lines = _lines(path)
    anchors = [i for i, (_, e) in enumerate(lines) if e is not None and e["kind"] in ANCHORS]
    problem = None
    for first in reversed(anchors):  # the last game that can be replayed from its start
        number, anchor = lines[first]
        assert anchor is not None  # anchors are readable lines
        try:
            game, events = _replay_anchor(anchor, move_check)
            break
        except JournalError as e:
            problem = f"journal line {number}: {e}"
    else:
        if problem is None:
            raise NoGame("the journal holds no game")
        raise JournalError(f"{problem}: no game in it can be resumed")
    damage = None
    prev = _seq(anchor)
    rest = lines[first + 1:]
    for k, (number, event) in enumerate(rest):
        why = _damage(event, prev, rest[k + 1:], game, move_check)
        if why is not None:
            damage = Damage(number, why)
            dropped = [e for _, e in rest[k:] if e is not None]
            break
        if event is None:  # a torn write: the events around it follow on
            continue
        prev = _seq(event) if _seq(event) is not None else prev
        if event["kind"] == "move":
            game.push(event["notation"])
        events.append(event)
    else:
        dropped = []
    if any(e["kind"] == "tracker-accepted" for e in events):
        raise JournalError("the journal's last game went on after an accepted irregularity "
                           "(000 §5.7): resuming such a game is not supported yet; its record "
                           "up to now is in the live PDN and the journal")
    return Replay(game, events, damage, dropped)


def _replay_anchor(anchor: dict, move_check: MoveCheck | None) -> tuple[Game, list[dict]]:
    """The game a `game-start` begins, or the game so far a `resumed` event holds."""
    if missing_keys(anchor):
        raise JournalError(f"a {anchor['kind']} event without {', '.join(missing_keys(anchor))}")
    start, moves = (anchor, []) if anchor["kind"] == "game-start" else \
        (anchor["start"], anchor["moves"])
    if not isinstance(start.get("kind"), str) or missing_keys(start):
        raise JournalError(f"a {anchor['kind']} event whose game start is damaged")
    try:
        game = Game(start["variant"], fen=start["fen"])
    except (DamasError, ValueError) as e:
        raise JournalError(f"the game's start is damaged ({e})") from None
    for move in moves:
        why = ("not a move" if not isinstance(move, dict) or move.get("kind") != "move"
               else _move_problem(move, game, move_check))
        if why:
            raise JournalError(f"a {anchor['kind']} event with a damaged move ({why})")
        game.push(move["notation"])
    return game, [start, *moves]


def _damage(event: dict | None, prev: int | None, later: list, game: Game,
            move_check: MoveCheck | None) -> str | None:
    """Why this line cannot be trusted, or None."""
    if event is None:
        following = next((_seq(e) for _, e in later if e is not None and _seq(e) is not None),
                         None)
        if following is None or prev is None or following == prev + 1:
            return None  # torn by a crash, and nothing was lost with it
        return f"an unreadable line (event {prev + 1} lost)"
    if event["kind"] in ANCHORS:  # a later game start that cannot be replayed
        return f"a damaged {event['kind']} event"
    if missing_keys(event):
        return f"a {event['kind']} event without {', '.join(missing_keys(event))}"
    seq = _seq(event)
    if prev is not None:
        if seq is None:
            return "an event without its number"
        if seq <= prev:
            return f"event {seq} comes again after event {prev} (a repeated or moved line)"
        if seq > prev + 1:
            gone = f"event {prev + 1}" if seq == prev + 2 else f"events {prev + 1}-{seq - 1}"
            return f"{gone} missing before event {seq} (a deleted or moved line)"
    if event["kind"] == "move":
        return _move_problem(event, game, move_check)
    return None


def _move_problem(event: dict, game: Game, move_check: MoveCheck | None) -> str | None:
    """Why a move event cannot be the game's next ply, or None."""
    missing = missing_keys(event)
    if missing:
        return f"a move event without {', '.join(missing)}"
    if move_check is not None and move_check(event):
        return f"a move event without {move_check(event)}"
    if event["ply"] != game.ply + 1:
        return f"ply {event['ply']} recorded where ply {game.ply + 1} comes"
    try:
        after = game.position.after(game.position.parse_move(event["notation"]))
    except (DamasError, ValueError):
        return f"ply {event['ply']} {event['notation']!r} is not legal there"
    if after.fen() != event["fen"]:
        return f"ply {event['ply']} {event['notation']} does not lead to the recorded position"
    return None


def last_game(events: list[dict]) -> list[dict]:
    """The events of the last game begun in the journal."""
    starts = [i for i, e in enumerate(events) if e["kind"] == "game-start"]
    if not starts:
        raise NoGame("the journal holds no game")
    return events[starts[-1]:]
