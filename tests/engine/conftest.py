"""Shared helpers for the engine tests: fake engines (as small scripts) and game loops."""

import sys
import textwrap

import pytest

from damas.rules import Game

PYTHON = sys.executable
DAMAS = [PYTHON, "-m", "damas"]


@pytest.fixture
def script(tmp_path):
    """Write a Python script and return the command that runs it."""
    def make(name, body):
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(body))
        return [PYTHON, str(path)]
    return make


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
