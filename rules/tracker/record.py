"""The record of a tracked game: legal moves, and where an irregularity was accepted
(000 §5.7) a comment giving the position play went on from.

The board then shows a position no legal move leads to, so the record is a list of
segments, each a `Game` from its own start; the PDN text keeps one move list and numbers
across segments, with `{... FEN "..."}` comments where a segment begins.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..game import Game
from ..pdn import comment_text, tag_line
from ..position import Position
from ..variant import Variant


@dataclass
class Segment:
    game: Game
    note: str | None = None  # the comment written before this segment's first move


@dataclass
class Record:
    variant: Variant
    segments: list[Segment] = field(default_factory=list)

    @classmethod
    def of(cls, game: Game) -> Record:
        return cls(game.variant, [Segment(game)])

    @property
    def game(self) -> Game:
        """The segment being played."""
        return self.segments[-1].game

    def go_on_from(self, position: Position, note: str) -> None:
        self.segments.append(Segment(Game(self.variant, start=position), note))

    def pdn(self, **tags: str) -> str:
        first = self.segments[0].game
        head = {"Event": "?", "Site": "?", "Date": "?", "Round": "?", "White": "?",
                "Black": "?", "Result": "*"}
        head.update(tags)
        head["GameType"] = str(self.variant.gametype)
        if first.is_setup:
            head["FEN"] = first.start_fen
        lines = [tag_line(name, value) for name, value in head.items()]
        words: list[str] = []
        number, interrupted = 1, True
        mover_first = self.variant.first_to_move
        for seg in self.segments:
            if seg.note:
                words.append(comment_text(seg.note))
                interrupted = True
            for pos, notation in zip(seg.game.positions, seg.game.notations(), strict=False):
                # a move number stays on the line of its move
                if pos.turn == mover_first:
                    words.append(f"{number}. {notation}")
                elif interrupted:
                    words.append(f"{number}... {notation}")
                else:
                    words.append(notation)
                interrupted = False
                if pos.turn != mover_first:
                    number += 1
        words.append(head["Result"])
        lines.append("")
        line = ""
        for w in words:
            if line and len(line) + 1 + len(w) > 79:
                lines.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        lines.append(line)
        return "\n".join(lines) + "\n"
