"""Whole games on our firmware in simavr, played through RobotSession on `sim-firmware`:
every piece ends physically where the final position says - as seen from the AVR's pins,
not from the planner's record - the trays and the reserve hold exactly what the game
took off and crowned, and no slide ever came closer than a piece diameter to another
piece (checked along the straight moves between the points where the carriage stopped).

The games are seeded random games that end with a result and contain multi-captures and
promotions; each takes tens of seconds of wall time (hundreds of simulated seconds)."""

import random

import pytest

from damas.robot.machine import example_machine
from damas.robot.session import RobotSession
from damas.rules import Game

STEP_MM = 1 / 80  # the firmware places the carriage to a step (config.h: 80 steps/mm)


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


@pytest.mark.parametrize("variant, seed", [("international", 15), ("english", 15)])
def test_a_whole_game_ends_with_every_piece_where_the_rules_say(firmware, variant, seed):
    game = random_game(variant, seed)
    assert game.outcome() is not None
    assert any(len(m.captured) >= 2 for m in game.moves), "the game needs a multi-capture"
    assert any(m.promotion for m in game.moves), "the game needs a promotion"
    machine = example_machine(game.variant.size)
    replay = Game(variant)
    with RobotSession.open(machine, "sim-firmware", replay.position) as session:
        kings_at_start = {c: s.count(c[0].upper()) for c, s in session.state.reserve.items()}
        for move in game.moves:
            run = session.play(move)
            assert run.complete
            replay.push(move)
        seen = session.report()  # from the pins: carriage path and magnet
        recorded = session.state
        clearance = session.world.min_clearance

    squares = machine.board_size ** 2 // 2
    assert seen["squares"] == {str(n): replay.position.pieces().get(n, "e")
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
    assert clearance >= machine.piece_diameter - STEP_MM
    assert seen["travel_mm"] > 0 and seen["sim_seconds"] > len(game.moves)
