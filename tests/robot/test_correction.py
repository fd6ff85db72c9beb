"""Corrections: after a slip, an interrupted move or a lost line, RobotSession.correct
(Planner.plan_correction) and RobotSession.reconnect bring the physical board back to a
position. Each case runs on the Python machine simulator through a real pty and the GRBL
driver, and is judged by where the pieces physically are (physics.World), not by the
plan."""

import pytest

from damas.robot.errors import PlanError, RobotError
from damas.robot.machine import example_machine
from damas.robot.planner import Planner
from damas.robot.session import ExecutionFailed, RobotSession
from damas.robot.state import PhysicalState
from damas.rules import Position

SPEEDUP = 5000


def session_at(position: Position) -> RobotSession:
    return RobotSession.open(example_machine(position.variant.size), "sim-python", position,
                             speedup=SPEEDUP)


def board(session: RobotSession) -> dict[int, str]:
    """The occupied squares as the simulated board has them."""
    return {int(k): v for k, v in session.report()["squares"].items() if v != "e"}


def seen(session: RobotSession) -> dict[int, str]:
    """What a camera that cannot tell a king from a man reports."""
    return {sq: obj.lower() for sq, obj in board(session).items()}


def knock(session: RobotSession, source, target) -> None:
    """A hand knocks the piece on square `source` to `target` (a square or a point)."""
    m = session.machine
    point = m.square_centre(target) if isinstance(target, int) else target
    session.world.by_hand(m.square_centre(source), point)


def take_away(session: RobotSession, square: int) -> None:
    """A person takes the piece on `square` off the table altogether."""
    session.world.by_hand(session.machine.square_centre(square), (-2000.0, -2000.0))
    session.world.stacks = [s for s in session.world.stacks if s.x > -1000]


def trays(session: RobotSession, colour: str) -> list[str]:
    return session.report()["trays"][colour]


def check_clean(session: RobotSession) -> None:
    report = session.report()
    assert not report["stray"]
    assert session.world.min_clearance >= session.machine.piece_diameter - 1e-6


def test_a_man_knocked_to_a_neighbouring_square_is_put_back():
    start = Position.start("english")
    with session_at(start) as s:
        knock(s, 22, 18)
        view = seen(s)
        assert view[18] == "w" and 22 not in view
        run = s.correct(view, start)
        assert [(st.source.index, st.target.index, st.reason) for st in run.done] == \
            [(18, 22, "correct")]
        assert board(s) == start.pieces() == s.state.board
        assert trays(s, "white").count("e") == len(trays(s, "white"))
        check_clean(s)


def test_a_capture_interrupted_before_it_began_is_completed():
    before = Position.from_fen("W:W19,21,30:B15,11", "english")
    move = before.parse_move("19x10")
    after = before.play(move)
    with session_at(before) as s:
        s.simulator.power_cycle()  # the controller restarts before the first line runs
        with pytest.raises(ExecutionFailed) as failed:
            s.play(move)
        assert failed.value.run.done == () and failed.value.run.recovered
        assert board(s) == before.pieces() == s.state.board
        run = s.correct(seen(s), after)
        assert {st.reason for st in run.done} <= {"correct", "aside", "back"}
        assert board(s) == after.pieces() == s.state.board
        assert trays(s, "black")[0] == "b"  # the captured man
        assert s.state.trays["black"][0] == "b"
        check_clean(s)


def test_a_missing_man_comes_from_the_tray():
    before = Position.from_fen("W:W19,21,30:B15,11", "english")
    move = before.parse_move("19x10")
    after = before.play(move)
    with session_at(before) as s:
        s.play(move)  # the captured black man is now in the black tray
        assert trays(s, "black")[0] == "b"
        take_away(s, 11)
        run = s.correct(seen(s), after)
        assert [(str(st.source), st.target.index) for st in run.done] == \
            [("black tray slot 0", 11)]
        assert board(s) == after.pieces() == s.state.board
        assert "b" not in trays(s, "black") and "b" not in s.state.trays["black"]
        check_clean(s)


def test_a_missing_man_without_a_spare_is_refused_and_nothing_moves():
    start = Position.start("english")
    with session_at(start) as s:
        take_away(s, 9)
        view = seen(s)
        before = s.report()
        with pytest.raises(PlanError, match="no black piece left in the black tray"):
            s.correct(view, start)
        after = s.report()
        assert after == before  # same layout, no travel, no machine time
        assert s.state.board == start.pieces()  # the record changes with a plan only


def test_a_king_seen_as_a_man_stays_a_king():
    position = Position.from_fen("W:WK22,26,30:B5,K12", "english")
    with session_at(position) as s:
        reserve = s.report()["reserve"]
        knock(s, 26, 23)
        view = seen(s)
        assert view[22] == "w" and view[12] == "b"  # no king to a camera
        run = s.correct(view, position)
        assert [(st.what, st.source.index, st.target.index, st.reason) for st in run.done] \
            == [("w", 23, 26, "correct")]
        assert s.state.board == position.pieces()
        assert s.state.board[22] == "W" and s.state.board[12] == "B"
        assert board(s) == position.pieces()  # the flat king pieces never moved
        assert s.report()["reserve"] == reserve  # the kings set up came from it, once
        check_clean(s)


def test_a_knocked_flat_king_is_replaced_from_the_reserve():
    """The camera sees a man's colour where the king went: that piece goes to the tray
    and a king piece comes from the reserve, as a promotion would; the board is right."""
    position = Position.from_fen("W:WK22,30:B5", "english")
    with session_at(position) as s:
        kings = s.report()["reserve"]["white"].count("W")
        assert kings == len(s.machine.reserve["white"]) - 1  # the one on 22 came from it
        knock(s, 22, 18)
        s.correct(seen(s), position)
        assert board(s) == position.pieces() == s.state.board
        assert s.report()["reserve"]["white"].count("W") == kings - 1
        check_clean(s)


def test_a_missing_king_is_refused_when_none_is_spare():
    """With the reserve empty the king cannot be replaced: a person must put it back; the
    session still knows it is a king when the camera sees its colour there again."""
    position = Position.from_fen("W:WK22,30:B5", "english")
    with session_at(position) as s:
        s.state.reserve["white"] = [None] * len(s.state.reserve["white"])
        knock(s, 22, 18)
        before = s.report()
        with pytest.raises(PlanError, match="white king for square 22 is missing"):
            s.correct(seen(s), position)
        assert s.report() == before
        knock(s, 18, 22)  # the person puts it back
        run = s.correct(seen(s), position)
        assert run.done == ()
        assert s.state.board == position.pieces()
        assert board(s) == position.pieces()


def test_the_line_dropped_then_replugged_the_move_is_played():
    start = Position.start("english")
    move = start.parse_move("11-15")
    with session_at(start) as s:
        s.driver.timeout = 2.0
        s.simulator.drop_line()
        with pytest.raises(RobotError) as failed:
            s.play(move)
        if isinstance(failed.value, ExecutionFailed):
            assert not failed.value.run.recovered and failed.value.run.done == ()
        assert board(s) == start.pieces() == s.state.board
        s.driver.url = s.simulator.replug()
        s.reconnect()
        assert s.driver.status().state == "Idle"
        s.play(move)
        assert board(s) == start.play(move).pieces() == s.state.board
        check_clean(s)


def test_correcting_to_the_recorded_position_plans_nothing():
    machine = example_machine(10)
    planner = Planner(machine)
    for fen in (None, "W:WK46,31,32:B5,K19,20"):
        position = (Position.from_fen(fen, "international") if fen
                    else Position.start("international"))
        state = PhysicalState.at_start(machine, position)
        assert planner.plan_correction(state, position) == []


def test_an_arm_keeps_its_stacked_kings_when_correcting():
    machine = example_machine(10, "arm")
    planner = Planner(machine)
    position = Position.from_fen("W:WK46,31,32:B5,K19,20", "international")
    state = PhysicalState.at_start(machine, position)
    state.board[27] = state.board.pop(31)  # a man knocked off his square
    steps = planner.plan_correction(state, position)
    assert [(st.what, st.source.index, st.target.index, st.reason) for st in steps] == \
        [("w", 27, 31, "correct")]
    men = Position.from_fen("W:W46,31,32:B5,19,20", "international")  # a reset to this
    assert [st.reason for st in planner.plan_reset(state, men)].count("uncrown") == 2
