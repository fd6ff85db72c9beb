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
after the previous one, i.e. as settled.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..geometry import clip
from ..variant import Variant
from .board import PIECE_READINGS, READINGS, Observation, ObservationError, light_square


@dataclass(frozen=True)
class Commit:
    time: float | None = None


Line = Observation | Commit


def parse_line(text: str, variant: Variant) -> Line | None:
    """One line of an observation file; None for a blank or comment line."""
    words = text.split()
    if not words or words[0].startswith("#"):
        return None
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
