"""The random mover: any legal move, uniformly. The weakest possible opponent, useful as a
baseline and to test the protocols quickly."""

from __future__ import annotations

import random

from damas.rules import Game, Position

from .base import Engine, InfoCallback, as_game, position_to_play
from .limits import NO_LIMIT, Limit, PlayResult


class RandomEngine(Engine):
    def __init__(self, seed: int | None = None, name: str = "random"):
        self.rng = random.Random(seed)
        self.name = name

    def play(self, game: Game | Position, limit: Limit = NO_LIMIT,
             on_info: InfoCallback | None = None) -> PlayResult:
        position = position_to_play(as_game(game))
        return PlayResult(self.rng.choice(position.legal_moves()))
