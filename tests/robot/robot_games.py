"""Helpers the whole-game robot tests import by name (our firmware and stock GRBL): a
seeded game to play, and the judgement of where every physical piece ended."""

import random

from damas.rules import Game


def random_game(variant: str, seed: int) -> Game:
    game = Game(variant)
    rng = random.Random(seed)
    while game.outcome() is None:
        game.push(rng.choice(game.legal_moves()))
    return game


def expected_off_board(game: Game) -> dict[str, int]:
    """How many men the trays and kings the reserves hold after the game (flat kings: a
    crowned man goes to its tray, a captured king back to its reserve)."""
    count = {"tray w": 0, "tray b": 0, "crowned w": 0, "crowned b": 0,
             "kings back w": 0, "kings back b": 0}
    for position, move in zip(game.positions, game.moves, strict=False):
        mover = position.piece(move.start)
        if move.promotion:
            count[f"tray {mover}"] += 1
            count[f"crowned {mover}"] += 1
        for square in move.captured:
            piece = position.piece(square)
            count[f"tray {piece}" if piece.islower() else f"kings back {piece.lower()}"] += 1
    return count


def assert_every_piece_where_the_game_says(seen: dict, recorded, game: Game, final: Game,
                                           kings_at_start: dict[str, int], squares: int):
    """`seen`: the session's report from the pins; `recorded`: the planner's record of
    where pieces are; `final`: the game replayed as the robot played it."""
    assert seen["squares"] == {str(n): final.position.pieces().get(n, "e")
                               for n in range(1, squares + 1)}
    assert seen["stray"] == []
    # the trays and the reserve, slot by slot, are what the planner recorded ...
    for table in ("trays", "reserve"):
        for colour, slots in getattr(recorded, table).items():
            assert seen[table][colour] == [o or "e" for o in slots], (table, colour)
    # ... and hold what the game took off and crowned
    off = expected_off_board(game)
    for c, colour in (("w", "white"), ("b", "black")):
        assert seen["trays"][colour].count(c) == off[f"tray {c}"]
        assert seen["reserve"][colour].count(c.upper()) == (
            kings_at_start[colour] - off[f"crowned {c}"] + off[f"kings back {c}"])
