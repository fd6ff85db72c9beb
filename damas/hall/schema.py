"""The hall's messages checked field by field before the broadcaster uses them: JSON
without NaN or infinities, every number finite and bounded, every text of bounded length
without control characters, squares on the board, a move's notation of bounded length,
and each message and collection of bounded size. A message that fails raises BadEvent
with one short line saying which field and why; the board's other messages go on.

Plain Python on purpose: the schema is small, and its errors must be our own one-liners.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .board import BadEvent

MAX_EVENT_BYTES = 256 * 1024  # an event with a record's whole PDN (after an irregularity)
MAX_STATE_BYTES = 1024 * 1024  # a whole game, its alerts and that PDN
MAX_OTHER_BYTES = 4096  # a presence message
MAX_INT = 2 ** 53  # what JSON readers (a browser) hold exactly
MAX_NUMBER = 1e15
MAX_TEXT = 1000  # any text field not named below
MAX_NAME = 200  # a player's, event's or any tag's value
MAX_NOTATION = 60
MAX_FEN = 300
MAX_PDN = 200 * 1024
MAX_ITEMS = 2000  # a list: a game's moves
MAX_KEYS = 64
MAX_DEPTH = 8
MAX_SQUARE = 50  # the largest board's dark squares
TAG_NAME = re.compile(r"[A-Za-z0-9_]{1,40}")
NOTATION = re.compile(rf"[a-jA-J0-9x:X-]{{1,{MAX_NOTATION}}}")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
SIZES = {"events": MAX_EVENT_BYTES, "state": MAX_STATE_BYTES, "online": MAX_OTHER_BYTES}


def said(text: object, limit: int = 300) -> str:
    """Text from a message as it may appear in one line we say: no control characters,
    clipped."""
    line = CONTROL.sub("?", str(text))
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def loads(payload: bytes, kind: str) -> dict:
    """The message of a topic `kind` (events, state, online): its size, JSON, every
    number, text and collection bounded, and the board's instance (which says whose it
    is); `fields` then checks what the kind needs."""
    if len(payload) > SIZES[kind]:
        raise BadEvent(f"a message of {len(payload)} bytes (at most {SIZES[kind]})")
    try:
        data = json.loads(payload, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise BadEvent("a message that is not JSON") from None
    if not isinstance(data, dict) or data.get("v") != 1:
        raise BadEvent("a message that is not a damas hall message (format 1)")
    _walk(data, "message", 0)
    if not isinstance(data.get("instance"), str) or not 0 < len(data["instance"]) <= 64:
        raise BadEvent("a message without the board's instance")
    return data


def fields(data: dict, kind: str) -> None:
    what = {"events": "an event", "state": "a state", "online": "a presence"}[kind] + \
        " message"
    if kind == "online":
        _typed(data, "online", bool, what)
        _optional(data, "since", float, what)
        return
    seq = _typed(data, "seq", int, what)
    if seq < 1:
        raise BadEvent(f"{what} numbered {seq}")
    if kind == "events":
        event(_typed(data, "event", dict, what))
    else:
        snapshot(_typed(data, "state", dict, what))


# --- the whole tree: numbers, texts, sizes ----------------------------------------------

def _walk(value: Any, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise BadEvent(f"{said(where, 80)} is nested too deep")
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if abs(value) > MAX_INT:
            raise BadEvent(f"{said(where, 80)} is a number out of range")
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise BadEvent(f"{said(where, 80)} is a number out of range")
    elif isinstance(value, str):
        limit = MAX_PDN if where.endswith(".record_pdn") else MAX_TEXT
        if len(value) > limit:
            raise BadEvent(f"{said(where, 80)} is {len(value)} characters (at most {limit})")
        if where.endswith(".record_pdn"):
            if CONTROL.search(value.replace("\n", "")):
                raise BadEvent(f"{said(where, 80)} holds control characters")
        elif CONTROL.search(value):
            raise BadEvent(f"{said(where, 80)} holds control characters")
    elif isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise BadEvent(f"{said(where, 80)} has {len(value)} items (at most {MAX_ITEMS})")
        for i, item in enumerate(value):
            _walk(item, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        if len(value) > MAX_KEYS:
            raise BadEvent(f"{said(where, 80)} has {len(value)} fields (at most {MAX_KEYS})")
        for key, item in value.items():
            if len(key) > 40 or CONTROL.search(key):
                raise BadEvent(f"{said(where, 80)} has a field named {said(key, 40)!r}")
            _walk(item, f"{where}.{key}", depth + 1)


# --- the fields the hall uses -----------------------------------------------------------

def _typed(data: dict, key: str, kind: type, what: str) -> Any:
    value = data.get(key)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise BadEvent(f"{what} without {key}")
    return value


def _optional(data: dict, key: str, kind: type, what: str) -> None:
    if data.get(key) is not None:
        _typed(data, key, kind, what)


def _text(data: dict, key: str, what: str, limit: int, optional: bool = False) -> None:
    if optional and data.get(key) is None:
        return
    value = _typed(data, key, str, what)
    if len(value) > limit:
        raise BadEvent(f"{what} whose {key} is {len(value)} characters (at most {limit})")


def _tags(tags: Any, what: str) -> None:
    if not isinstance(tags, dict):
        raise BadEvent(f"{what} without its tags")
    for name, value in tags.items():
        if not TAG_NAME.fullmatch(name):
            raise BadEvent(f"{what} with a tag named {said(name, 40)!r} (letters, digits, _)")
        if not isinstance(value, str) or len(value) > MAX_NAME:
            raise BadEvent(f"{what} whose tag {name} is not a text of at most {MAX_NAME} "
                           "characters")


def _clock(clock: Any, what: str) -> None:
    if clock is None:
        return
    if not isinstance(clock, dict):
        raise BadEvent(f"{what} with a damaged clock")
    for side in ("white", "black"):
        value = clock.get(side)
        if (not isinstance(value, int | float) or isinstance(value, bool)
                or not -1e7 <= value <= 1e7):
            raise BadEvent(f"{what} whose clock has no time for {side}")
    if clock.get("running") not in (None, "white", "black"):
        raise BadEvent(f"{what} whose clock runs for neither side")
    _text(clock, "control", what, 40, optional=True)


def _squares(data: dict, what: str) -> None:
    squares = data.get("squares")
    if squares is None:
        return
    if not isinstance(squares, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= MAX_SQUARE
            for s in squares):
        raise BadEvent(f"{what} with squares that are not on the board")


def _move(data: dict, what: str) -> None:
    notation = _typed(data, "notation", str, what)
    if not NOTATION.fullmatch(notation):
        raise BadEvent(f"{what} whose notation is not a move ({said(notation, 20)!r})")
    _text(data, "fen", what, MAX_FEN)
    ply = _typed(data, "ply", int, what)
    if not 1 <= ply <= 10 * MAX_ITEMS:
        raise BadEvent(f"{what} at ply {ply}")
    _text(data, "clock_comment", what, 100)
    if "}" in data["clock_comment"]:
        raise BadEvent(f"{what} whose clock comment holds a }}")
    _clock(data.get("clock"), what)
    _text(data, "result", what, 10, optional=True)


def _start(data: dict, what: str) -> None:
    _text(data, "variant", what, 40)
    _text(data, "fen", what, MAX_FEN)
    _tags(data.get("tags"), what)


def event(data: dict) -> None:
    """A board's journal event: the fields the hall reads, each of its type and size."""
    kind = data.get("kind")
    if not isinstance(kind, str):
        raise BadEvent("an event without its kind")
    what = f"a {said(kind, 40)} event"
    _optional(data, "wall", float, "the event")
    _squares(data, what)
    _clock(data.get("clock"), what)
    if kind == "game-start":
        _start(data, what)
    elif kind == "move":
        _move(data, what)
    elif kind == "resumed":
        start, moves = _typed(data, "start", dict, what), _typed(data, "moves", list, what)
        _start(start, what)
        for move in moves:
            if not isinstance(move, dict):
                raise BadEvent(f"{what} with a damaged move")
            _move(move, what)


def snapshot(data: dict) -> None:
    """A board's retained state (damas.hall.board.BoardState.snapshot)."""
    what = "a state message"
    _optional(data, "wall", float, what)
    if data.get("variant") is not None:
        _start(data, what)
        moves = _typed(data, "moves", list, what)
        for item in moves:
            if (not isinstance(item, list) or len(item) != 2
                    or not all(isinstance(x, str) for x in item)
                    or not NOTATION.fullmatch(item[0]) or "}" in item[1]):
                raise BadEvent(f"{what} with a damaged move")
    _clock(data.get("clock"), what)
    for key, limit in (("status", 300), ("result", 10)):
        _text(data, key, what, limit, optional=True)
    alerts = data.get("alerts")
    if alerts is None:
        return
    if not isinstance(alerts, list):
        raise BadEvent(f"{what} with damaged alerts")
    for alert in alerts:
        if not isinstance(alert, dict):
            raise BadEvent(f"{what} with a damaged alert")
        _typed(alert, "seq", int, f"{what}'s alert")
        _text(alert, "text", f"{what}'s alert", 600)
        _optional(alert, "wall", float, f"{what}'s alert")
