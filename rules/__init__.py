"""damas.rules: the pure rules core (no I/O, no dependencies).

Variants as data, Manoury geometry, bitboard positions, legal moves, games with draw
rules, FEN and PDN, perft.
"""

# The folder sits at the repository root, which is often on sys.path: imported as `rules`
# it would be a second copy of every class. damas/rules is the package (a symlink).
if __name__ != "damas.rules":
    raise ImportError("import damas.rules, not rules (the folder is that package)")

from .errors import (
    DamasError,
    FenError,
    IllegalMoveError,
    NotationError,
    PdnError,
    SquareError,
    VariantError,
)
from .game import Game, Outcome
from .geometry import Geometry, geometry
from .move import Move
from .occupancy import Occupancy
from .perft import divide, perft
from .position import Position
from .tracker import Policy, Tracker
from .tracker.board import Observation
from .variant import (
    BLACK,
    BRAZILIAN,
    ENGLISH,
    INTERNATIONAL,
    VARIANTS,
    WHITE,
    BackRowInCapture,
    CaptureChoice,
    Color,
    DrawKind,
    DrawRule,
    Variant,
    variant,
)

__all__ = [
    "BLACK", "BRAZILIAN", "ENGLISH", "INTERNATIONAL", "VARIANTS", "WHITE",
    "BackRowInCapture", "CaptureChoice", "Color", "DamasError", "DrawKind", "DrawRule",
    "FenError", "Game", "Geometry", "IllegalMoveError", "Move", "NotationError", "Outcome",
    "Observation", "Occupancy", "PdnError", "Policy", "Position", "SquareError", "Tracker",
    "Variant", "VariantError", "divide", "geometry",
    "perft", "variant",
]
