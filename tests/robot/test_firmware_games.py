"""Whole games on our firmware in simavr, played through RobotSession on `sim-firmware`:
every piece ends physically where the final position says - as seen from the AVR's pins,
not from the planner's record - the trays and the reserve hold exactly what the game
took off and crowned, and no slide ever came closer than a piece diameter to another
piece (checked along the straight moves between the points where the carriage stopped).

The games are seeded random games that end with a result and contain multi-captures and
promotions; each takes tens of seconds of wall time (hundreds of simulated seconds)."""

import pytest
from robot_games import assert_every_piece_where_the_game_says, random_game

from damas.robot.machine import example_machine
from damas.robot.session import RobotSession
from damas.rules import Game

STEP_MM = 1 / 80  # the firmware places the carriage to a step (config.h: 80 steps/mm)


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

    assert_every_piece_where_the_game_says(seen, recorded, game, replay, kings_at_start,
                                           machine.board_size ** 2 // 2)
    assert clearance >= machine.piece_diameter - STEP_MM
    assert seen["travel_mm"] > 0 and seen["sim_seconds"] > len(game.moves)
