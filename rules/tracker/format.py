"""The observation file `damas track` reads: one snapshot per line.

    # comment
    t=0.0 bbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww
    t=2.5 bbbbb bbbbb bbbbb bbbbb eeeee eeeee wwwww wwwww wwwww wwwww light=b1:w
    t=3.0 commit

An optional `t=SECONDS` first; then one reading per dark square in Manoury order (`e`
empty, `w`/`b` man, `W`/`B` king seen, `?` unknown), spaces between groups allowed;
then optionally `light=SQ:R,SQ:R` for pieces seen on light squares (`b1:w`). A line
holding only `commit` (after an optional time) is a clock press. Blank lines and lines
starting with `#` are skipped. Without a time stamp a snapshot is taken one settle time
after the previous one, i.e. as settled. A letter is taken as right with probability
0.99 (`board.LETTER_SURE`): the game may outvote it.

A line may instead be one JSON object, which carries the camera's probabilities:

    {"t": 2.5, "squares": ["b", {"e": 0.7, "b": 0.3}, "?", ...], "light": {"b1": "w"}}
    {"t": 3.0, "commit": true}

`squares` holds one item per dark square: a letter (right with probability 0.99, or with
`confidence`, a list of one number per square as `damas read --json` gives them), `?`,
or an object of class probabilities over `e w b W B` (missing classes are 0; the sum is
scaled to 1). `squares` may also be an object {"1": "b", ...} keyed by square, as
`damas read --json` prints it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

from ..geometry import clip
from ..variant import Variant
from .board import (
    CLASSES,
    LETTER_SURE,
    PIECE_READINGS,
    READINGS,
    Observation,
    ObservationError,
    light_square,
)


@dataclass(frozen=True)
class Commit:
    time: float | None = None


Line = Observation | Commit


def parse_line(text: str, variant: Variant) -> Line | None:
    """One line of an observation file; None for a blank or comment line."""
    words = text.split()
    if not words or words[0].startswith("#"):
        return None
    if words[0].startswith("{"):
        return _json_line(text, variant)
    time = None
    if words[0].startswith("t="):
        time = _seconds(words[0])
        words = words[1:]
    if words == ["commit"]:
        return Commit(time)
    light: list[tuple[str, str]] = []
    readings = []
    for word in words:
        if word.startswith("light="):
            light += _light(word[len("light="):], variant)
        else:
            readings.append(word)
    squares = "".join(readings)
    if len(squares) != variant.squares:
        raise ObservationError(f"expected {variant.squares} square readings for "
                               f"{variant.name} ({' '.join(READINGS)}), found {len(squares)}")
    bad = next((c for c in squares if c not in READINGS), None)
    if bad is not None:
        raise ObservationError(f"unknown square reading {bad!r} (use {' '.join(READINGS)})")
    return Observation(squares, time, tuple(light))


_NUMBER = re.compile(r"[-+]?(?:[0-9]{1,12}(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?")
MAX_TIME = 1e9  # seconds, as the tracker takes them


def _seconds(word: str) -> float:
    """A time stamp: a finite decimal number in ASCII (float() would also take nan, inf,
    1_000 and other scripts' digits)."""
    text = word[2:]
    value = float(text) if _NUMBER.fullmatch(text) else math.nan
    if not (math.isfinite(value) and abs(value) <= MAX_TIME):
        raise ObservationError(f"time stamp {clip(word)!r} is not a number of seconds "
                               f"(e.g. t=12.5, at most {MAX_TIME:g})")
    return value


def _light(text: str, variant: Variant) -> list[tuple[str, str]]:
    out = []
    for item in text.split(","):
        name, _, reading = item.partition(":")
        if not name or len(reading) != 1 or reading not in PIECE_READINGS:
            raise ObservationError(f"light square report {clip(item)!r} must look like b1:w "
                                   f"(a light square, then one of {' '.join(PIECE_READINGS)})")
        light_square(variant.size, name)
        out.append((name, reading))
    return out


def _json_line(text: str, variant: Variant) -> Line:
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except ValueError as e:
        raise ObservationError(f"not a JSON object: {clip(str(e))}") from None
    if not isinstance(data, dict):
        raise ObservationError("a JSON observation is an object such as "
                               '{"t": 1.5, "squares": ["b", ...]}')
    unknown = set(data) - {"t", "commit", "squares", "confidence", "light"}
    if unknown:
        raise ObservationError(f"unknown key {clip(sorted(unknown)[0])!r} (use t, squares, "
                               "confidence, light, commit)")
    time = None
    if "t" in data:
        time = _seconds(f"t={data['t']}") if _is_number(data["t"]) else math.nan
        if math.isnan(time):
            raise ObservationError(f"t must be a number of seconds, not {clip(repr(data['t']))}")
    if data.get("commit") is True:
        return Commit(time)
    items = data.get("squares")
    if isinstance(items, dict):
        items = [items.get(str(s), "?") for s in range(1, variant.squares + 1)]
    if not isinstance(items, list) or len(items) != variant.squares:
        raise ObservationError(f"squares must list {variant.squares} readings for "
                               f"{variant.name}, one per dark square")
    sure = _confidence(data.get("confidence"), variant)
    letters, probabilities = [], []
    for i, item in enumerate(items):
        letter, p = _square(item, sure[i] if sure else LETTER_SURE, i + 1)
        letters.append(letter)
        probabilities.append(p)
    light = data.get("light") or {}
    if not isinstance(light, dict):
        raise ObservationError('light must be an object such as {"b1": "w"}')
    pairs = _light(",".join(f"{k}:{v}" for k, v in light.items()), variant) if light else []
    return Observation("".join(letters), time, tuple(pairs), tuple(probabilities))


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number")


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _confidence(value, variant: Variant) -> list[float] | None:
    if value is None:
        return None
    if isinstance(value, dict):
        value = [value.get(str(s), 0.0) for s in range(1, variant.squares + 1)]
    if not (isinstance(value, list) and len(value) == variant.squares
            and all(_is_number(v) and 0 <= v <= 1 for v in value)):
        raise ObservationError(f"confidence must give {variant.squares} numbers from 0 to 1")
    return [float(v) for v in value]


def _square(item, sure: float, square: int) -> tuple[str, tuple[float, ...] | None]:
    """(the letter shown, the class probabilities) of one square's reading."""
    if isinstance(item, str) and len(item) == 1 and item in READINGS:
        if item == "?":
            return "?", None
        sure = min(max(sure, 1.0 / len(CLASSES)), 1.0)
        rest = (1.0 - sure) / (len(CLASSES) - 1)
        return item, tuple(sure if c == item else rest for c in CLASSES)
    if isinstance(item, dict) and item and set(item) <= set(CLASSES) and all(
            _is_number(v) and 0 <= v <= 1 for v in item.values()):
        total = float(sum(item.values()))
        if total > 0:
            p = tuple(float(item.get(c, 0.0)) / total for c in CLASSES)
            return CLASSES[max(range(len(CLASSES)), key=p.__getitem__)], p
    raise ObservationError(f"square {square}: a reading is one of {' '.join(READINGS)} or "
                           'class probabilities such as {"e": 0.9, "b": 0.1}')


def read_lines(lines, variant: Variant):
    """(line number, Observation or Commit) for every line that holds one; errors say
    which line is wrong."""
    for number, text in enumerate(lines, start=1):
        try:
            parsed = parse_line(text, variant)
        except ObservationError as e:
            raise ObservationError(f"line {number}: {e}") from None
        if parsed is not None:
            yield number, parsed


def format_observation(obs: Observation) -> str:
    """The line for an observation (the inverse of `parse_line`)."""
    parts = [] if obs.time is None else [f"t={obs.time:g}"]
    parts.append(obs.squares)
    if obs.light:
        parts.append("light=" + ",".join(f"{name}:{r}" for name, r in obs.light))
    return " ".join(parts)
