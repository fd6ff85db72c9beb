"""FEN in the PDN 3.0 style: `W:W31-50:B1-20`, `B:WK4,31:B12-14,K40`.

Side to move, then one section per colour (either may come first) listing squares, a `K`
before a king, ranges `a-b` allowed. Of Lidraughts' trailing fields, `H` (plies since the
material became a drawing ending: the ending rules' count) is read by `ending_plies`, and
`F` (the move number) is ignored.
Squares are numbers in ASCII digits; on 8x8 boards they may also be algebraic (`c3`), the
way Brazilian files write them (PDN GameType 26), and Brazilian FENs are written so.
A side never has more pieces than it starts with.

>>> write_fen(0, {29: "w", 4: "B"}, "algebraic")
'W:Wa1:BKh8'
"""

from __future__ import annotations

import re

from .errors import FenError
from .geometry import clip, geometry
from .variant import Variant

_COUNTER = re.compile(r"[HF][0-9]{1,4}", re.IGNORECASE)  # move counters some programs add


def parse_fen(text: str, variant: Variant,
              numbers: dict[int, int] | None = None) -> tuple[int, dict[int, str]]:
    """(turn, {square: piece}) with turn 0 = White and pieces `w b W B`. `numbers` maps a
    file's own square numbers to Manoury ones (see `damas.rules.gametype`)."""
    if not isinstance(text, str):
        raise FenError("FEN must be text")
    fields = _fields(text)
    if not fields[0] or fields[0].upper() not in ("W", "B"):
        raise FenError(f"FEN {clip(text)!r}: must start with the side to move, W or B")
    turn = "WB".index(fields[0].upper())
    pieces: dict[int, str] = {}
    seen_colours = set()
    for section in fields[1:]:
        if not section or _COUNTER.fullmatch(section):
            continue
        colour = section[0].upper()
        if colour not in ("W", "B"):
            raise FenError(f"FEN {clip(text)!r}: section {clip(section)!r} must start with W "
                           "or B")
        if colour in seen_colours:
            raise FenError(f"FEN {clip(text)!r}: two sections for {colour}")
        seen_colours.add(colour)
        for token in section[1:].split(","):
            token = token.strip()
            if not token:
                continue
            king = token[0].upper() == "K"
            body = token[1:] if king else token
            for square in _squares(body, variant, text, numbers):
                if square in pieces:
                    raise FenError(f"FEN {clip(text)!r}: square {square} is listed twice")
                symbol = colour.lower() if not king else colour
                pieces[square] = symbol
    _check_men_rows(pieces, variant, text)
    _check_counts(pieces, variant, text)
    return turn, pieces


def _fields(text: str) -> list[str]:
    """The FEN's `:`-separated fields, as written in a PDN tag or on its own."""
    return [f.strip() for f in text.strip().strip('"').rstrip(".").strip().split(":")]


def ending_plies(text: str) -> int:
    """The FEN's `H` field, as Lidraughts writes it: plies played since the material on
    the board became one of a draw rule's endings; 0 without one."""
    for section in _fields(text)[1:]:
        if _COUNTER.fullmatch(section) and section[0] in "Hh":
            return int(section[1:])
    return 0


def _squares(body: str, variant: Variant, text: str,
             numbers: dict[int, int] | None) -> list[int]:
    parts = [p.strip() for p in body.split("-")]
    if len(parts) == 1:
        return [_square(parts[0], variant, text, numbers)]
    if len(parts) > 2 or not all(re.fullmatch(r"[0-9]{1,3}", p) for p in parts):
        raise FenError(f"FEN {clip(text)!r}: {clip(body)!r} is not a square or a range of "
                       "numbered squares")
    lo, hi = int(parts[0]), int(parts[1])
    n = variant.squares
    if not (1 <= lo <= n and 1 <= hi <= n):
        raise FenError(f"FEN {clip(text)!r}: squares {clip(body)} are outside 1..{n} "
                       f"({variant.name})")
    if lo > hi:
        raise FenError(f"FEN {clip(text)!r}: range {body} runs backwards")
    return [numbers[k] if numbers else k for k in range(lo, hi + 1)]


def _square(name: str, variant: Variant, text: str, numbers: dict[int, int] | None) -> int:
    g = geometry(variant.size)
    if re.fullmatch(r"[0-9]{1,3}", name):
        k = int(name)
        if not 1 <= k <= variant.squares:
            raise FenError(f"FEN {clip(text)!r}: square {k} is outside 1..{variant.squares} "
                           f"({variant.name})")
        return numbers[k] if numbers else k
    if variant.size == 8 and re.fullmatch(r"[a-hA-H][1-8]", name):
        try:
            return g.parse(name)
        except Exception:
            pass
        raise FenError(f"FEN {clip(text)!r}: {name} is a light square")
    raise FenError(f"FEN {clip(text)!r}: {clip(name)!r} is not a square")


def _check_men_rows(pieces: dict[int, str], variant: Variant, text: str) -> None:
    per_row = variant.size // 2
    for square, piece in pieces.items():
        if piece == "w" and square <= per_row:
            raise FenError(f"FEN {clip(text)!r}: a white man on {square} would have been "
                           "crowned")
        if piece == "b" and square > variant.squares - per_row:
            raise FenError(f"FEN {clip(text)!r}: a black man on {square} would have been "
                           "crowned")


def _check_counts(pieces: dict[int, str], variant: Variant, text: str) -> None:
    most = variant.start_rows * variant.size // 2  # what a side starts with: 20 or 12
    for colour, name in (("w", "white"), ("b", "black")):
        count = sum(p.lower() == colour for p in pieces.values())
        if count > most:
            raise FenError(f"FEN {clip(text)!r}: {count} {name} pieces; a side has at most "
                           f"{most} in {variant.name}")


def write_fen(turn: int, pieces: dict[int, str], notation: str = "numeric") -> str:
    """Numbered squares: men in runs of three or more are written as ranges, kings one by
    one. Algebraic squares (8x8): one by one, rank by rank from White's side."""
    if notation == "algebraic":
        return _write_algebraic(turn, pieces)
    sections = []
    for colour in "WB":
        tokens = []
        run: list[int] = []
        for square in sorted(pieces):
            piece = pieces[square]
            if piece == colour.lower() and run and square == run[-1] + 1:
                run.append(square)
                continue
            tokens.extend(_run_tokens(run))
            run = []
            if piece == colour.lower():
                run = [square]
            elif piece == colour:
                tokens.append(f"K{square}")
        tokens.extend(_run_tokens(run))
        sections.append(colour + ",".join(tokens))
    return f"{'WB'[turn]}:{sections[0]}:{sections[1]}"


def _write_algebraic(turn: int, pieces: dict[int, str]) -> str:
    g = geometry(8)
    order = sorted(pieces, key=lambda sq: (-g.row_col(sq)[0], g.row_col(sq)[1]))
    sections = []
    for colour in "WB":
        names = [("K" if pieces[sq].isupper() else "") + g.algebraic(sq)
                 for sq in order if pieces[sq].upper() == colour]
        sections.append(colour + ",".join(names))
    return f"{'WB'[turn]}:{sections[0]}:{sections[1]}"


def _run_tokens(run: list[int]) -> list[str]:
    if len(run) >= 3:
        return [f"{run[0]}-{run[-1]}"]
    return [str(s) for s in run]
