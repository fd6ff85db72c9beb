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

import random

import pytest

from damas.robot.planner import Transfer
from damas.robot.session import ExecutionFailed, RobotSession
from damas.robot.state import Spot
from damas.rules import Game

TURN_MM = 2 / 20  # the harness follows the path to within two steps (20 steps/mm)


def random_game(variant: str, seed: int) -> Game:
    game = Game(variant)
    rng = random.Random(seed)
    while game.outcome() is None:
        game.push(rng.choice(game.legal_moves()))
    return game


def expected_off_board(game: Game) -> dict[str, int]:
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
    squares = machine.board_size ** 2 // 2
    assert seen["squares"] == {str(n): replay.position.pieces().get(n, "e")
                               for n in range(1, squares + 1)}
    assert seen["stray"] == []
    for table in ("trays", "reserve"):
        for colour, slots in getattr(recorded, table).items():
            assert seen[table][colour] == [o or "e" for o in slots], (table, colour)
    off = expected_off_board(game)
    for c, colour in (("w", "white"), ("b", "black")):
        assert seen["trays"][colour].count(c) == off[f"tray {c}"]
        assert seen["reserve"][colour].count(c.upper()) == (
            kings_at_start[colour] - off[f"crowned {c}"] + off[f"kings back {c}"])
    assert clearance >= machine.piece_diameter - TURN_MM
    # the magnet moved with the pin its commands drive, and the other never switched
    assert ("MAG" in events) == (tool == "coolant") and ("PWM" in events) == (tool != "coolant")
