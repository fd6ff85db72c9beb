"""A person at the board, for the scenario tests: edits the pieces, shows snapshots to a
tracker at a chosen pace, and reads back the events in a compact form.

    s = Script("international")          # the start position is set up and recognised
    s.lift(32).show().put(28).show().wait()
    assert s.take() == [("pending", (27, 28)), ("move", "32-28")]
"""

from __future__ import annotations

from damas.rules import Game, Position
from damas.rules.tracker import Tracker
from damas.rules.tracker.board import Observation
from damas.sim.person import move_steps

STEP = 0.1  # seconds between snapshots while a hand is at work: well under the settle time


def brief(event) -> tuple:
    """An event as a short tuple that says what matters for the scenario."""
    k = event.kind
    if k == "move":
        return ("move", event.notation)
    if k == "pending":
        return ("pending", event.squares)
    if k == "irregular":
        return ("irregular", event.article, event.squares, event.fix)
    if k == "restored":
        return ("restored",)
    if k == "accepted":
        return ("accepted", event.article, event.fen)
    if k == "displaced":
        return ("displaced", event.squares, event.light)
    if k == "setup":
        return ("setup", event.fen)
    raise AssertionError(f"unknown event {event!r}")


class Script:
    def __init__(self, variant: str = "international", fen: str | None = None, *,
                 policy: str = "robot", settle: float = 1.0, game: Game | None = None,
                 board: Position | None = None, recognise: bool = True):
        self.tracker = Tracker(variant, fen, game=game, policy=policy, settle=settle)
        self.variant = self.tracker.variant
        shown = board if board is not None else self.tracker.position
        self.pieces: dict[int, str] = dict(shown.pieces())
        self.unknown: set[int] = set()
        self.light: dict[str, str] = {}
        self.hand: str | None = None
        self.t = 0.0
        self.events: list = []
        self._taken = 0
        if recognise:
            self.show(0.0).wait()
            setup = self.take()
            assert [e[0] for e in setup] == ["setup"], setup

    # --- the hand -------------------------------------------------------------------------

    def lift(self, square: int) -> Script:
        self.hand = self.pieces.pop(square)
        return self

    def put(self, square: int, piece: str | None = None) -> Script:
        self.pieces[square] = piece or self.hand
        return self

    def slide(self, frm: int, to: int) -> Script:
        self.pieces[to] = self.pieces.pop(frm)
        return self

    def remove(self, *squares: int) -> Script:
        for sq in squares:
            del self.pieces[sq]
        return self

    def crown(self, square: int) -> Script:
        self.pieces[square] = self.pieces[square].upper()
        return self

    def knock(self, square: int, light: str) -> Script:
        """A piece knocked off its square onto a light square."""
        self.light[light] = self.pieces.pop(square)
        return self

    def pick_up(self, light: str) -> Script:
        self.hand = self.light.pop(light)
        return self

    def hide(self, *squares: int) -> Script:
        self.unknown = set(squares)
        return self

    # --- what the tracker sees -----------------------------------------------------------

    def observation(self) -> Observation:
        return Observation.from_pieces(self.variant, self.pieces, self.t,
                                       tuple(sorted(self.unknown)),
                                       tuple(sorted(self.light.items())))

    def show(self, dt: float = STEP) -> Script:
        self.t += dt
        self.events += self.tracker.observe(self.observation())
        return self

    def wait(self) -> Script:
        """Nobody touches the board for the settle time."""
        self.t += self.tracker.settle
        self.events += self.tracker.tick(self.t)
        return self

    def commit(self) -> Script:
        self.t += STEP
        self.events += self.tracker.commit(self.t)
        return self

    def play(self, notation: str, *, removal=None, remove_first=False,
             by: str | None = None) -> Script:
        """A move, legal on the board as it stands for the side to move (or `by` "white" /
        "black"), made the usual way, every step shown, then left to settle."""
        turn = self.tracker.position.turn if by is None else ("white", "black").index(by)
        pos = Position.from_pieces(self.variant, self.pieces, turn)
        move = pos.parse_move(notation)
        for board in move_steps(pos, move, removal, remove_first):
            self.pieces = board
            self.show()
        return self.wait()

    # --- reading back ---------------------------------------------------------------------

    def take(self) -> list[tuple]:
        """The events since the last call, in brief."""
        new = self.events[self._taken:]
        self._taken = len(self.events)
        return [brief(e) for e in new]

    def last(self, kind: str):
        return next(e for e in reversed(self.events) if e.kind == kind)
