"""A game: a start position, the moves played, and how it ends.

>>> g = Game("english")
>>> g.push("11-15").short, g.push("23-19").short
('11-15', '23-19')
>>> g.outcome() is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import IllegalMoveError
from .fen import ending_plies as ending_plies_in
from .move import Move
from .position import Position
from .variant import Color, DrawKind, DrawRule, Variant
from .variant import variant as get_variant


@dataclass(frozen=True)
class Outcome:
    result: str  # in the variant's notation, e.g. "2-0", "1/2-1/2"
    winner: Color | None
    reason: str  # "no-legal-moves" or the name of a draw rule
    article: str  # where the seeds say so

    @property
    def is_draw(self) -> bool:
        return self.winner is None


NO_MOVES_ARTICLE = "002 §1; 003 §3"


class Game:
    def __init__(self, variant: Variant | str = "international", fen: str | None = None,
                 start: Position | None = None, ending_plies: int = 0):
        v = get_variant(start.variant if start is not None else variant)
        if start is None:
            start = Position.from_fen(fen, v) if fen else Position.start(v)
            ending_plies = ending_plies_in(fen) if fen else ending_plies
        self.variant = v
        self.start = start
        # an adjourned game's plies in a drawing ending so far (the FEN's `H`); the
        # king-move rules count afresh from the start position
        self.ending_plies_before = ending_plies
        self.moves: list[Move] = []
        self.positions: list[Position] = [start]
        self._notations: list[str] = []

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def is_setup(self) -> bool:
        """True when the game did not start from the variant's start position."""
        return self.start != Position.start(self.variant) or self.ending_plies_before > 0

    @property
    def start_fen(self) -> str:
        """The start position's FEN, with the ending count it began with (`H`)."""
        fen = self.start.fen()
        return f"{fen}:H{self.ending_plies_before}" if self.ending_plies_before else fen

    def copy(self) -> Game:
        """A game that goes on apart from this one (positions and moves are immutable)."""
        other = Game(start=self.start, ending_plies=self.ending_plies_before)
        other.moves, other.positions = list(self.moves), list(self.positions)
        other._notations = list(self._notations)
        return other

    def legal_moves(self) -> list[Move]:
        return self.position.legal_moves()

    def push(self, move: Move | str) -> Move:
        """Play a legal move (a Move or its notation); returns the legal Move played."""
        pos = self.position
        if isinstance(move, str):
            move = pos.parse_move(move)
        legal = pos.legal_moves()
        if move not in legal:
            raise IllegalMoveError(f"{move.long} is not legal in {pos.fen()}")
        move = legal[legal.index(move)]
        self._notations.append(pos.notation(move))
        self.moves.append(move)
        self.positions.append(pos.after(move))
        return move

    def pop(self) -> Move:
        if not self.moves:
            raise IndexError("no move to take back")
        self.positions.pop()
        self._notations.pop()
        return self.moves.pop()

    def notations(self) -> list[str]:
        """Each move as written in PDN, disambiguated in the position it was played in."""
        return list(self._notations)

    # --- how the game ends ------------------------------------------------------

    def outcome(self) -> Outcome | None:
        pos = self.position
        results = self.variant.results
        if not pos.legal_moves():
            loser = pos.turn
            return Outcome(results[1] if loser == Color.WHITE else results[0], loser.opponent,
                           "no-legal-moves", NO_MOVES_ARTICLE)
        for rule in self.variant.draw_rules:
            if self._draw_by(rule):
                return Outcome(results[2], None, rule.name, rule.article)
        return None

    def _draw_by(self, rule: DrawRule) -> bool:
        if rule.kind is DrawKind.REPETITION:
            return self.positions.count(self.position) >= rule.count
        if rule.kind is DrawKind.KING_MOVES:
            return self._king_move_run() >= 2 * rule.moves
        return self._ending_run(rule) >= 2 * rule.moves

    def _king_move_run(self) -> int:
        """Plies in a row, up to now, that moved a king without capturing."""
        run = 0
        for pos, move in zip(reversed(self.positions[:-1]), reversed(self.moves), strict=True):
            if move.captured or pos.piece(move.start) not in ("W", "B"):
                break
            run += 1
        return run

    def plies_in_ending(self) -> int:
        """Plies played in the drawing ending the game is in (the count its draw rule
        keeps), 0 outside one."""
        for rule in self.variant.draw_rules:
            if rule.kind is DrawKind.ENDGAME and (run := self._ending_run(rule)) >= 0:
                return run
        return 0

    def _ending_run(self, rule: DrawRule) -> int:
        """Plies played since the material became one of the rule's endings."""
        endings = {tuple(sorted(pair)) for pair in rule.endings}
        run = -1
        for pos in reversed(self.positions):
            if tuple(sorted(pos.material())) not in endings:
                return run
            run += 1
        return run + self.ending_plies_before  # the ending began before the start

    def __repr__(self) -> str:
        return f"Game({self.variant.name!r}, {len(self.moves)} moves, {self.position.fen()!r})"
