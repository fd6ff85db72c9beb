"""The game decides what the camera saw: random games read by a camera that misreads a
share of squares with high confidence (the noise bench, `damas bench tracker --noise`, in
small). An exact match of readings against the legal moves fails all of these."""

from damas.sim import noisebench


def test_one_percent_of_confident_misreads_costs_no_move():
    figures = noisebench.run(games=4, seed=7, rates=(0.01,))["rates"]["0.01"]
    for name, f in figures.items():
        assert f["moves"] > 40, name
        assert (f["right"], f["missed"], f["invented"]) == (f["moves"], 0, 0), (name, f)
        assert f["false_irregular"] == 0, (name, f)
        # irregular moves made on purpose are still flagged, with the rules' article
        assert f["irregular_made"] >= 1, (name, f)
        assert f["irregular_flagged"] == f["irregular_made"], (name, f)


def test_a_robot_move_seen_with_a_misread_square_is_done_and_a_wrong_one_is_not():
    from damas.rules import Position
    from damas.rules.tracker.board import Observation
    from damas.rules.tracker.confirm import MoveCheck

    before = Position.from_fen("W:W31,32,33:B18,19", "international")
    after = before.play(before.parse_move("33-28"))
    seen = Observation.from_pieces(after.variant, after.pieces()).squares
    misread = seen[:31] + "b" + seen[32:]  # the man on 32 read as black
    check = MoveCheck(before, after)
    # a misread that comes and goes: done as soon as the board reads right
    assert [check.judge(Observation(b)) for b in (misread, seen)] == [None, "done"]
    # a forgotten capture, a piece left over, is never done
    left = Observation.from_pieces(after.variant, {**after.pieces(), 24: "w"}).squares
    check = MoveCheck(before, after)
    assert "done" not in [check.judge(Observation(left)) for _ in range(6)]
    wrong = before.play(before.parse_move("33-29"))  # the robot put it on the next square
    check = MoveCheck(before, after)
    assert check.judge(Observation.from_pieces(after.variant, wrong.pieces())) == "differs"
    check = MoveCheck(before, after)
    assert check.judge(Observation.from_pieces(after.variant, before.pieces())) == "unmoved"
