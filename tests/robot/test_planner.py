"""The planner: whole games and resets end with every piece where the rules say, and no
slide ever passes closer than a piece diameter to another piece."""

import random

import pytest

from damas.robot.errors import MachineFileError, PlanError
from damas.robot.machine import example_machine, load_machine, save_machine
from damas.robot.paths import path_is_clear
from damas.robot.planner import Planner
from damas.robot.state import PhysicalState, Spot
from damas.rules import Game, Move, Position


def execute(state, steps):
    """Apply steps, checking each slide against the pieces standing at that moment."""
    for step in steps:
        if state.machine.slides:
            others = state.occupied_points(step.source, step.target)
            assert path_is_clear(list(step.path), others, state.machine.piece_diameter), step
        assert step.path[0] == state.point(step.source)
        assert step.path[-1] == state.point(step.target)
        state.apply(step)


@pytest.mark.parametrize("variant, size, kind, seed", [
    ("international", 10, "gantry-magnet", 3), ("english", 8, "gantry-magnet", 4),
    ("brazilian", 8, "gantry-magnet", 5), ("international", 10, "arm", 6),
])
def test_a_random_game_is_played_exactly(variant, size, kind, seed):
    machine = example_machine(size, kind)
    planner = Planner(machine)
    rng = random.Random(seed)
    game = Game(variant)
    state = PhysicalState.at_start(machine, game.position)
    promotions = captures = 0
    while game.outcome() is None and game.ply < 160:
        move = rng.choice(game.legal_moves())
        before = state.copy()
        steps = planner.plan_move(state, move)
        assert state.board == before.board  # planning changes nothing
        execute(state, steps)
        game.push(move)
        assert state.board == game.position.pieces()
        promotions += move.promotion
        captures += len(move.captured)
    assert captures > 5
    census = state.census()
    total = {"w": 0, "b": 0}
    for obj, n in census.items():
        if obj in "wb" or machine.kings == "stack":
            total[obj.lower()] += n
    start_men = len(Position.start(variant).pieces()) // 2
    reserve_men = len(machine.reserve["white"]) if machine.kings == "stack" else 0
    assert total == {"w": start_men + reserve_men, "b": start_men + reserve_men}


def test_promotion_with_flat_kings_swaps_the_man_for_a_king_piece():
    machine = example_machine(10)
    pos = Position.from_fen("W:W6:B40", "international")
    state = PhysicalState.at_start(machine, pos)
    kings_before = state.reserve["white"].count("W")
    steps = Planner(machine).plan_move(state, pos.parse_move("6-1"))
    execute(state, steps)
    assert state.board == {1: "W", 40: "b"}
    assert state.reserve["white"].count("W") == kings_before - 1
    assert "w" in state.trays["white"]


def test_arm_crowns_by_stacking_and_captures_kings_whole():
    machine = example_machine(10, "arm")
    pos = Position.from_fen("W:W7:B2,K12", "international")
    state = PhysicalState.at_start(machine, pos)
    move = pos.parse_move("7x18")
    execute(state, Planner(machine).plan_move(state, move))
    assert state.board == {2: "b", 18: "w"}
    assert "B" in state.trays["black"]


def test_running_out_is_refused_clearly():
    machine = example_machine(10)
    pos = Position.from_fen("W:W6:B40", "international")
    state = PhysicalState.at_start(machine, pos)
    state.reserve["white"] = [None] * len(state.reserve["white"])
    with pytest.raises(PlanError, match="no crowning piece left in the white reserve"):
        Planner(machine).plan_move(state, pos.parse_move("6-1"))
    state = PhysicalState.at_start(machine, Position.from_fen("W:W32:B27", "international"))
    state.trays["black"] = ["b"] * len(state.trays["black"])
    with pytest.raises(PlanError, match="black tray is full"):
        Planner(machine).plan_move(state, Move((32, 21), (27,)))


@pytest.mark.parametrize("variant, size, kind", [
    ("international", 10, "gantry-magnet"), ("english", 8, "gantry-magnet"),
    ("international", 10, "arm"),
])
def test_reset_from_the_end_of_a_game(variant, size, kind):
    machine = example_machine(size, kind)
    planner = Planner(machine)
    rng = random.Random(11)
    game = Game(variant)
    state = PhysicalState.at_start(machine, game.position)
    while game.outcome() is None and game.ply < 120:
        move = rng.choice(game.legal_moves())
        execute(state, planner.plan_move(state, move))
        game.push(move)
    execute(state, planner.plan_reset(state, Position.start(variant)))
    assert state.board == Position.start(variant).pieces()
    assert not state.aside


def test_a_blocked_path_moves_a_piece_aside_and_back():
    machine = example_machine(8)
    # the man on 14 is walled in by the eight nearest dark squares: no slide gets it out
    walls = [6, 9, 10, 13, 15, 17, 18, 22]
    state = PhysicalState(machine, {14: "b", **{sq: "w" for sq in walls}})
    steps = Planner(machine)._transfer(state.copy(), Spot("square", index=14),
                                       state.free_slot("tray", "black"), "capture")
    assert [s.reason for s in steps] == ["aside", "capture", "back"]
    assert steps[0].source == steps[2].target and steps[0].source.index in walls
    execute(state, steps)
    assert set(state.board) == set(walls) and not state.aside


def test_machine_files_round_trip_and_bad_files(tmp_path):
    machine = example_machine(10)
    path = tmp_path / "m.json"
    save_machine(machine, path)
    assert load_machine(path) == machine
    path.write_text('{"format": "damas-machine", "version": 99}')
    with pytest.raises(MachineFileError, match="version 99"):
        load_machine(path)
    path.write_text("{not json")
    with pytest.raises(MachineFileError, match="not valid JSON"):
        load_machine(path)
    with pytest.raises(MachineFileError, match="no such file"):
        load_machine(tmp_path / "missing.json")
    body = machine.to_json()
    body["kings"] = "stack"
    with pytest.raises(MachineFileError, match="cannot stack"):
        type(machine).from_json(body)


@pytest.mark.parametrize("kind", ["gantry-magnet", "arm"])
def test_a_game_set_up_with_kings_has_room_in_the_reserve_to_take_them_back(kind):
    machine = example_machine(10, kind)
    slots = len(machine.reserve["black"])
    kings = ",".join(f"K{sq}" for sq in range(1, slots + 1))
    state = PhysicalState.at_start(machine, Position.from_fen(f"W:W50:B{kings},41-45",
                                                              "international"))
    assert state.reserve["black"] == [None] * slots
    men = Position.from_fen("W:W50:B41-45", "international")
    execute(state, Planner(machine).plan_reset(state, men))
    assert state.board == men.pieces()
