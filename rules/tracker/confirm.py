"""Whether the board shows a move that was meant to be made: the robot's own move, or
the one an LED grid shows a person. The same decoding as the tracker's, with three
stories: the move done, nothing moved, or something else (one piece moved, taken off or
put on besides, or the board as read). A square misread now and then is outvoted by the
boards that follow; a board that really differs is not.

>>> from damas.rules import Position
>>> from damas.rules.tracker.board import Observation
>>> before = Position.start("english")
>>> after = before.play(before.parse_move("11-15"))
>>> check = MoveCheck(before, after)
>>> seen = Observation.from_pieces(after.variant, after.pieces()).squares
>>> misread = Observation(seen[:20] + "b" + seen[21:])  # the man on 21 read as black
>>> [check.judge(misread) for _ in range(3)]  # in doubt until it has stayed done
[None, None, 'done']
>>> wrong = before.play(before.parse_move("11-16"))  # two squares: not a misread
>>> MoveCheck(before, after).judge(Observation.from_pieces(after.variant, wrong.pieces()))
'differs'
"""

from __future__ import annotations

from ..position import Position
from .board import Observation
from .decode import Decoder, Hypothesis
from .hypotheses import expected

SURE_AFTER = 3  # boards in a row a move seen done with a square read otherwise must stay


class MoveCheck:
    def __init__(self, before: Position, after: Position):
        self.decoder = Decoder(after.layout)
        done = expected(after)
        self.done = Hypothesis(done.masks, "same", "the move done", done.board)
        unmoved = expected(before)
        self.unmoved = Hypothesis(unmoved.masks, "move", "nothing moved", unmoved.board)
        self.streak = 0  # boards in a row that showed the move done

    def judge(self, observation: Observation) -> str | None:
        """"done", "unmoved", "differs", or None while the boards leave it in doubt. A
        board read otherwise on some square is done only once it has stayed done for
        `SURE_AFTER` boards: a piece really left over (a capture forgotten) soon makes
        the move's board lose, a misread that comes and goes does not."""
        frame = self.decoder.frame(observation.class_probabilities())
        choice = self.decoder.decide(frame, self.done, [self.unmoved])
        h = choice.hypothesis
        if h is None or h.masks != self.done.masks:
            self.streak = 0
        if h is None:
            return None
        if h.masks == self.done.masks:
            self.streak += 1
            return "done" if not choice.disagree or self.streak >= SURE_AFTER else None
        if h.masks == self.unmoved.masks:
            return "unmoved"
        return "differs"
