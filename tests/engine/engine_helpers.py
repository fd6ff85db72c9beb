"""Helpers the engine tests import by name (a conftest is never imported: two folders'
conftests would be one module): the damas command line, a game loop and random games."""

import random
import sys

from damas.rules import Game

DAMAS = [sys.executable, "-m", "damas"]


def play_out(game: Game, engines: dict, limit, max_plies=300, on_ply=None) -> Game:
    """Play the game to its end (or max_plies) with engines[colour]."""
    while game.outcome() is None and game.ply < max_plies:
        engine = engines[int(game.position.turn)]
        result = engine.play(game, limit)
        assert result.move in game.legal_moves()
        game.push(result.move)
        if on_ply is not None:
            on_ply(game)
    return game


def random_games(variant, count, seed, max_plies=160):
    """`count` games of random moves; the game is yielded after every move."""
    rng = random.Random(seed)
    for _ in range(count):
        game = Game(variant)
        while game.outcome() is None and game.ply < max_plies:
            game.push(rng.choice(game.legal_moves()))
            yield game
