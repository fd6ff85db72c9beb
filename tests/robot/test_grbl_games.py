"""Whole games on stock GRBL 1.1h in simavr, played through RobotSession on `sim-grbl`,
with homing (GRBL built for XY homing through its config.h) and without (stock GRBL, the
carriage at the origin at power-up), in machine and in work coordinates, with GRBL
reporting MPos or WPos, and the magnet on each output GRBL has: the coolant pin (M8/M9),
the spindle PWM at full power (M3 S1000/M5) and a servo lifting it (M3 S<angle>).

Every piece ends physically where the final position says - judged from the AVR's pins:
the step/dir pulses and the one tool pin the machine file's commands make GRBL drive -
the trays and the reserve hold what the game took off and crowned, and no slide came
closer than a piece diameter to another piece. The international game with homing also
meets a soft limit alarm in its middle (a step sent beyond the travel) and recovers."""

import pytest
from robot_games import assert_every_piece_where_the_game_says, random_game

from damas.robot.planner import Transfer
from damas.robot.session import ExecutionFailed, RobotSession
from damas.robot.state import Spot
from damas.rules import Game

TURN_MM = 2 / 20  # the harness follows the path to within two steps (20 steps/mm)


SCENARIOS = [  # variant, homing, coordinates, tool, status report, alarm mid-game
    ("international", "$H", "machine", "coolant", "mpos", True),
    ("international", "none", "work", "spindle", "wpos", False),
    ("english", "$H", "work", "servo", "wpos", False),
    ("english", "none", "machine", "coolant", "mpos", False),
]


@pytest.mark.parametrize("variant, homing, coordinates, tool, report, alarm", SCENARIOS)
def test_a_whole_game_on_stock_grbl_ends_with_every_piece_where_the_rules_say(
        grbl_machine, variant, homing, coordinates, tool, report, alarm):
    from damas.robot.grblsim import GrblSimulator

    game = random_game(variant, 15)
    assert any(len(m.captured) >= 2 for m in game.moves) and any(m.promotion for m in game.moves)
    machine = grbl_machine(10 if variant == "international" else 8, homing, coordinates,
                           tool, report)
    start = (37.0, 21.0) if coordinates == "work" and homing == "none" else (0.0, 0.0)
    replay = Game(variant)
    session = RobotSession.open(machine, "sim-grbl", replay.position,
                                make_simulator=lambda world: GrblSimulator(machine, world,
                                                                      start=start))
    with session:
        status = session.driver.status()
        assert session.driver.firmware == "grbl" and session.driver.version == "1.1h"
        assert (status.wpos if report == "wpos" else status.mpos) is not None
        kings_at_start = {c: s.count(c[0].upper()) for c, s in session.state.reserve.items()}
        for ply, move in enumerate(game.moves):
            if alarm and ply == len(game.moves) // 2:
                beyond = (-250.0, 100.0)  # beyond the soft limits, left of the trays
                outside = Transfer("w", Spot("aside", point=beyond),
                                   Spot("aside", point=beyond),
                                   (beyond, (beyond[0], beyond[1] + 10)), "move")
                with pytest.raises(ExecutionFailed, match="soft limit") as failed:
                    session.run([outside])
                assert failed.value.run.done == () and failed.value.run.recovered
                assert session.driver.status().state == "Idle"
            assert session.play(move).complete
            replay.push(move)
        seen = session.report()  # from the pins: carriage path and the tool pin
        events = {e.kind for e in session.simulator.events}
        recorded = session.state
        clearance = session.world.min_clearance

    assert seen["seen"] is True
    assert_every_piece_where_the_game_says(seen, recorded, game, replay, kings_at_start,
                                           machine.board_size ** 2 // 2)
    assert clearance >= machine.piece_diameter - TURN_MM
    # the magnet moved with the pin its commands drive, and the other never switched
    assert ("MAG" in events) == (tool == "coolant") and ("PWM" in events) == (tool != "coolant")
