"""Variants are data: one frozen value holds every rule that differs between games.

A new variant is a `Variant(...)` of a few lines (see `LITERAL_SEED_003` in the tests and
the README); nothing is subclassed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum

from .errors import VariantError


class Color(IntEnum):
    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> Color:
        return Color(1 - self)

    @property
    def letter(self) -> str:
        return "WB"[self]


WHITE = Color.WHITE
BLACK = Color.BLACK


class CaptureChoice(Enum):
    MAXIMUM = "maximum"  # must take the most pieces; kings count as men (000 §4.13)
    FREE = "free"  # any capture, but a chosen sequence is completed (003 §7)


class BackRowInCapture(Enum):
    STAYS_MAN = "stays-man"  # a man only passing the back row stays a man (000 §4.15)
    CROWNS_AND_STOPS = "crowns-and-stops"  # reaching it crowns and ends the move (003 §5)


class DrawKind(Enum):
    REPETITION = "repetition"  # same position, same side to move, `count` times
    KING_MOVES = "king-moves"  # `moves` moves of each side: kings only, no capture
    ENDGAME = "endgame"  # listed material: drawn after `moves` moves of each side


Material = tuple[int, int]  # (kings, men) of one side


@dataclass(frozen=True)
class DrawRule:
    name: str
    article: str  # where the seed says so, e.g. "001 §6.2"
    kind: DrawKind
    count: int = 0  # repetition: how many times
    moves: int = 0  # moves of each side
    endings: tuple[tuple[Material, Material], ...] = ()  # unordered pairs of sides


@dataclass(frozen=True)
class Variant:
    name: str
    size: int
    first_to_move: Color
    men_capture_backwards: bool
    flying_kings: bool
    capture_choice: CaptureChoice
    back_row_in_capture: BackRowInCapture
    draw_rules: tuple[DrawRule, ...] = ()
    gametype: int = 0  # PDN GameType tag number
    notation: str = "numeric"  # how FENs and PDN files name squares: numeric or algebraic
    results: tuple[str, str, str] = ("1-0", "0-1", "1/2-1/2")  # white wins, black wins, draw
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.size not in (8, 10):
            raise VariantError(f"variant {self.name!r}: board size must be 8 or 10")

    @property
    def squares(self) -> int:
        return self.size * self.size // 2

    @property
    def start_rows(self) -> int:
        return self.size // 2 - 1


def _repetition(article: str) -> DrawRule:
    return DrawRule("threefold-repetition", article, DrawKind.REPETITION, count=3)


INTERNATIONAL = Variant(
    name="international",
    size=10,
    first_to_move=WHITE,
    men_capture_backwards=True,
    flying_kings=True,
    capture_choice=CaptureChoice.MAXIMUM,
    back_row_in_capture=BackRowInCapture.STAYS_MAN,
    draw_rules=(
        _repetition("001 §6.1"),
        DrawRule("25-king-moves", "001 §6.2", DrawKind.KING_MOVES, moves=25),
        DrawRule("16-move-ending", "001 §6.3", DrawKind.ENDGAME, moves=16,
                 endings=(((3, 0), (1, 0)), ((2, 1), (1, 0)), ((1, 2), (1, 0)))),
        DrawRule("5-move-ending", "001 §6.4", DrawKind.ENDGAME, moves=5,
                 endings=(((2, 0), (1, 0)), ((1, 1), (1, 0)), ((1, 0), (1, 0)))),
    ),
    gametype=20,
    results=("2-0", "0-2", "1-1"),
    description="FMJD international draughts, 10x10 (seeds 000, 001)",
)

# Brazilian draughts: the international rules on the 8x8 board (002 §2, 004), with its own
# draw rules.
BRAZILIAN = replace(
    INTERNATIONAL,
    name="brazilian",
    size=8,
    draw_rules=(
        _repetition("001 §6.1"),
        DrawRule("20-king-moves", "002 Empate; 004 §4", DrawKind.KING_MOVES, moves=20),
        DrawRule("5-move-ending", "002 Empate; 004 §4", DrawKind.ENDGAME, moves=5,
                 endings=(((2, 0), (2, 0)), ((2, 0), (1, 0)), ((2, 0), (1, 1)),
                          ((1, 0), (1, 0)), ((1, 0), (1, 1)))),
    ),
    gametype=26,
    notation="algebraic",  # PDN GameType 26 (26,W,8,8,A0,0): a1 at White's bottom left
    description="Brazilian draughts, 8x8 with international rules (seeds 002, 004)",
)

ENGLISH = Variant(
    name="english",
    size=8,
    first_to_move=BLACK,
    men_capture_backwards=False,
    flying_kings=False,
    capture_choice=CaptureChoice.FREE,
    back_row_in_capture=BackRowInCapture.CROWNS_AND_STOPS,
    draw_rules=(
        _repetition("WCDF; rules.md"),
        DrawRule("40-move-rule", "WCDF; rules.md", DrawKind.KING_MOVES, moves=40),
    ),
    gametype=21,
    results=("1-0", "0-1", "1/2-1/2"),
    description="English draughts / checkers, WCDF rules: one-square kings (seed 003)",
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (INTERNATIONAL, BRAZILIAN, ENGLISH)}


def variant(name: str | Variant) -> Variant:
    """The shipped variant of that name (a Variant passes through)."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name.lower()]
    except KeyError:
        raise VariantError(
            f"unknown variant {name!r} (choose from {', '.join(VARIANTS)})") from None


def by_gametype(number: int) -> Variant | None:
    return next((v for v in VARIANTS.values() if v.gametype == number), None)
