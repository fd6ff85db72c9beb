"""FEN in the PDN 3.0 style: `W:W31-50:B1-20`, `B:WK4,31:B12-14,K40`.

Side to move, then one section per colour (either may come first) listing squares, a `K`
before a king, ranges `a-b` allowed. Trailing Lidraughts fields (`H0`, `F1`) are ignored.
"""

from __future__ import annotations

from .errors import FenError
from .variant import Variant


def parse_fen(text: str, variant: Variant) -> tuple[int, dict[int, str]]:
    """(turn, {square: piece}) with turn 0 = White and pieces `w b W B`."""
    if not isinstance(text, str):
        raise FenError("FEN must be text")
    fen = text.strip().strip('"').rstrip(".").strip()
    fields = [f.strip() for f in fen.split(":")]
    if not fen or fields[0].upper() not in ("W", "B"):
        raise FenError(f"FEN {text!r}: must start with the side to move, W or B")
    turn = "WB".index(fields[0].upper())
    pieces: dict[int, str] = {}
    seen_colours = set()
    for section in fields[1:]:
        if not section:
            continue
        colour = section[0].upper()
        if colour in ("H", "F") and section[1:].isdigit():
            continue  # move counters some programs add
        if colour not in ("W", "B"):
            raise FenError(f"FEN {text!r}: section {section!r} must start with W or B")
        if colour in seen_colours:
            raise FenError(f"FEN {text!r}: two sections for {colour}")
        seen_colours.add(colour)
        for token in section[1:].split(","):
            token = token.strip()
            if not token:
                continue
            king = token[0].upper() == "K"
            body = token[1:] if king else token
            for square in _squares(body, variant, text):
                if square in pieces:
                    raise FenError(f"FEN {text!r}: square {square} is listed twice")
                symbol = colour.lower() if not king else colour
                pieces[square] = symbol
    _check_men_rows(pieces, variant, text)
    return turn, pieces


def _squares(body: str, variant: Variant, text: str) -> range:
    parts = body.split("-")
    if len(parts) > 2 or not all(p.strip().isdigit() for p in parts):
        raise FenError(f"FEN {text!r}: {body!r} is not a square or a range of squares")
    lo, hi = int(parts[0]), int(parts[-1])
    n = variant.squares
    if not (1 <= lo <= n and 1 <= hi <= n):
        raise FenError(f"FEN {text!r}: square {body} is outside 1..{n} ({variant.name})")
    if lo > hi:
        raise FenError(f"FEN {text!r}: range {body} runs backwards")
    return range(lo, hi + 1)


def _check_men_rows(pieces: dict[int, str], variant: Variant, text: str) -> None:
    per_row = variant.size // 2
    for square, piece in pieces.items():
        if piece == "w" and square <= per_row:
            raise FenError(f"FEN {text!r}: a white man on {square} would have been crowned")
        if piece == "b" and square > variant.squares - per_row:
            raise FenError(f"FEN {text!r}: a black man on {square} would have been crowned")


def write_fen(turn: int, pieces: dict[int, str]) -> str:
    """Men in runs of three or more are written as ranges; kings one by one."""
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


def _run_tokens(run: list[int]) -> list[str]:
    if len(run) >= 3:
        return [f"{run[0]}-{run[-1]}"]
    return [str(s) for s in run]
