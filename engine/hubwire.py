"""The Hub protocol's text lines (the engine protocol of Scan): parsing, writing, and the
position string.

A line is a command followed by `key=value`, `key="value with spaces"` or bare words:

>>> parse_line('pos pos=Wbbe moves="32-28 19-23"')
HubLine(command='pos', args={'pos': 'Wbbe', 'moves': '32-28 19-23'}, words=())
>>> parse_line('go think').words
('think',)
>>> format_line("info", depth=3, pv="32-28 19-23")
'info depth=3 pv="32-28 19-23"'

Positions are `W` or `B` (side to move) then one character per square, 1 to the last:
`w`/`b` man, `W`/`B` king, `e` empty (10x10 has 50, 8x8 boards 32: our extension).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from damas.rules import Color, DamasError, Position, Variant
from damas.rules.geometry import clip

from .errors import EngineProtocolError
from .limits import Info


@dataclass(frozen=True)
class HubLine:
    command: str
    args: dict[str, str]
    words: tuple[str, ...]


def parse_line(line: str) -> HubLine:
    """Split a Hub line; unbalanced quotes or a key given twice raise
    EngineProtocolError."""
    tokens: list[str] = []
    current: list[str] = []
    quoted, in_quotes = False, False
    for ch in line.strip():
        if ch == '"':
            in_quotes = not in_quotes
            quoted = True
        elif ch.isspace() and not in_quotes:
            if current or quoted:
                tokens.append("".join(current))
            current, quoted = [], False
        else:
            current.append(ch)
    if in_quotes:
        raise EngineProtocolError(f"unbalanced quotes in Hub line {line!r}")
    if current or quoted:
        tokens.append("".join(current))
    if not tokens:
        return HubLine("", {}, ())
    args, words = {}, []
    for tok in tokens[1:]:
        key, eq, value = tok.partition("=")
        if eq:
            if key in args:  # which one would be meant?
                raise EngineProtocolError(f"Hub line {clip(line, 40)!r} gives {clip(key)} "
                                          "twice")
            args[key] = value
        else:
            words.append(tok)
    return HubLine(tokens[0], args, tuple(words))


def _quote(value) -> str:
    text = str(value)
    return f'"{text}"' if not text or any(c.isspace() for c in text) else text


def format_line(command: str, *words: str, **args) -> str:
    parts = [command, *words]
    parts += [f"{key.replace('_', '-')}={_quote(value)}" for key, value in args.items()
              if value is not None]
    return " ".join(parts)


def position_to_hub(position: Position) -> str:
    pieces = position.pieces()
    board = "".join(pieces.get(sq, "e") for sq in range(1, position.variant.squares + 1))
    return position.turn.letter + board


def position_from_hub(text: str, variant: Variant) -> Position:
    n = variant.squares
    if len(text) != n + 1 or text[0] not in "WB" or any(c not in "wbWBe" for c in text[1:]):
        raise EngineProtocolError(
            f"bad Hub position {text!r}: W or B then {n} of w b W B e")
    pieces = {sq: c for sq, c in enumerate(text[1:], start=1) if c != "e"}
    return Position.from_pieces(variant, pieces, Color.WHITE if text[0] == "W" else Color.BLACK)


_DECIMAL = re.compile(r"[-+]?(?:[0-9]{1,15}(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?")


def number(text: str, name: str, lo: float, hi: float, integer: bool = False) -> float:
    """A number of a Hub line, in ASCII, finite and within [lo, hi] (`float` alone also
    takes nan, inf, 1_000 and other scripts' digits); EngineProtocolError otherwise."""
    pattern = r"[0-9]{1,15}" if integer else _DECIMAL
    value = float(text) if re.fullmatch(pattern, text) else math.nan
    if not (math.isfinite(value) and lo <= value <= hi):
        kind = "a whole number" if integer else "a number"
        raise EngineProtocolError(f"{name}={clip(text)!r}: {name} must be {kind} from "
                                  f"{lo:g} to {hi:g}")
    return int(value) if integer else value


def score_to_hub(score: int) -> str:
    """Scores are written in men (Scan's unit); a win in n plies as 100 - n/100, the
    convention Hub GUIs read back as a win."""
    return f"{score / 100:.2f}"


def score_from_hub(text: str) -> int:
    """Hundredths of a man from a score in men; 0 for what is not a number."""
    try:
        return round(number(text, "score", -1e6, 1e6) * 100)
    except EngineProtocolError:
        return 0


def info_with_pv(depth: int, score: int, nodes: int, seconds: float, pv_text: list[str],
                 position: Position) -> Info:
    """The Info, with as much of the principal variation as is legal."""
    pv, pos = [], position
    for text in pv_text:
        try:
            move = pos.parse_move(text)
        except DamasError:
            break
        pv.append(move)
        pos = pos.play(move)
    notations, pos = [], position
    for move in pv:
        notations.append(pos.notation(move))
        pos = pos.play(move)
    return Info(depth, score, nodes, seconds, tuple(pv), tuple(notations))
