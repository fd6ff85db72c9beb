"""Recorded sequences of legal moves being made on a board, in the three variants: what a
person shows the camera, step by step, and the exact events the tracker must emit."""

from itertools import permutations

import pytest
from tracker_script import STEP, Script

# --- quiet moves ---------------------------------------------------------------------------


def test_international_man_lifted_then_put_down():
    s = Script("international")
    s.lift(32).show()
    assert s.take() == [("pending", (27, 28))]  # where it may go
    s.put(28).show()
    assert s.take() == []  # done, but not yet settled
    s.wait()
    assert s.take() == [("move", "32-28")]
    assert s.last("move").fen == "B:W28,31,33-50:B1-20"


def test_brazilian_man_lifted_then_put_down():
    s = Script("brazilian")
    s.lift(22).show().put(18).show().wait()
    assert s.take() == [("pending", (17, 18)), ("move", "22-18")]


def test_english_black_moves_first():
    s = Script("english")
    s.lift(11).show().put(15).show().wait()
    assert s.take() == [("pending", (15, 16)), ("move", "11-15")]
    assert s.last("move").side == "black"


def test_a_move_seen_in_one_snapshot():
    s = Script("international")
    s.slide(33, 29).show().wait()
    assert s.take() == [("move", "33-29")]


def test_moves_of_both_sides_follow_each_other():
    s = Script("brazilian")
    s.play("22-18").play("11-15").play("18x11").play("8x15")
    moves = [e for e in s.take() if e[0] == "move"]
    assert moves == [("move", "22-18"), ("move", "11-15"), ("move", "18x11"), ("move", "8x15")]
    assert s.tracker.game.notations() == ["22-18", "11-15", "18x11", "8x15"]


def test_a_move_undone_before_it_settled_is_not_reported():
    s = Script("international")
    s.lift(32).show().put(28).show()
    s.lift(28).put(32).show().wait()
    assert s.take() == [("pending", (27, 28)), ("restored",)]
    assert s.tracker.game.ply == 0


def test_a_commit_ends_the_wait():
    s = Script("international")
    s.slide(32, 28).show()
    shown_at = s.t
    s.commit()
    assert s.take() == [("move", "32-28")]
    assert s.last("move").time < shown_at + s.tracker.settle


def test_a_hand_over_the_destination_keeps_the_move_pending():
    s = Script("international")
    s.lift(32).put(28).hide(28).show()
    assert s.take() == [("pending", (27, 28))]  # 28 unreadable: either move still
    s.hide().show().wait()
    assert s.take() == [("move", "32-28")]


def test_a_flying_king_put_down_halfway_is_one_move():
    s = Script("international", "W:WK46:B5")
    s.slide(46, 28).show()  # looks like 46-28 ...
    s.slide(28, 14).show().wait()  # ... but the hand goes on before the settle time
    assert s.take() == [("move", "46-14")]


def test_the_opponent_answering_before_the_settle_time():
    s = Script("international")
    s.slide(32, 28).show()
    s.slide(19, 23).show().wait()  # Black moves at once: White's move stands behind it
    assert s.take() == [("move", "32-28"), ("move", "19-23")]


def test_the_opponent_lifting_a_piece_before_the_settle_time():
    s = Script("international")
    s.slide(32, 28).show()
    s.lift(19).show()
    assert s.take() == []  # Black's piece is only gone: it may not be a move yet
    s.put(23).show().wait()
    assert s.take() == [("move", "32-28"), ("move", "19-23")]


def test_a_piece_touched_and_another_moved_cannot_be_seen():
    # 000 §5.4.03: touching is invisible to occupancy; only the move played is seen
    s = Script("international")
    s.lift(31).show().put(31).show()
    s.play("32-28")
    assert s.take() == [("pending", (26, 27)), ("restored",), ("pending", (27, 28)),
                        ("move", "32-28")]


# --- captures ------------------------------------------------------------------------------


def test_a_man_captures_and_the_piece_is_removed_after_landing():
    s = Script("international", "W:W28:B3,23")
    s.lift(28).show().put(19).show().remove(23).show().wait()
    assert s.take() == [("pending", (19, 23)), ("pending", (23,)), ("move", "28x19")]


def test_the_captured_piece_removed_before_the_capturing_piece_lands():
    s = Script("international", "W:W28:B3,23")
    s.lift(28).show().remove(23).show().put(19).show().wait()
    assert s.take() == [("pending", (19, 23)), ("pending", (19,)), ("move", "28x19")]


def test_a_capture_is_not_reported_while_a_captured_piece_is_on_the_board():
    s = Script("international", "W:W28:B3,23")
    s.slide(28, 19).show().wait().wait()
    assert s.take() == [("pending", (23,))]
    assert s.tracker.game.ply == 0


THREE = "W:W17,46:B3,4,11,14,18,22,23,31,44"  # 17x28x19x10 takes 22, 23, 14


@pytest.mark.parametrize("order", list(permutations((22, 23, 14))))
def test_three_captured_pieces_removed_in_every_order(order):
    s = Script("international", THREE)
    s.play("17x10", removal=order)
    left = {14, 22, 23}
    expected = [("pending", (10, 14, 22, 23)), ("pending", (10, 14, 22, 23, 28)),
                ("pending", (10, 14, 19, 22, 23)), ("pending", (14, 22, 23))]
    for sq in order[:-1]:
        left.discard(sq)
        expected.append(("pending", tuple(sorted(left))))
    expected.append(("move", "17x10"))
    assert s.take() == expected


def test_three_captured_pieces_removed_before_the_piece_moves():
    s = Script("international", THREE)
    s.play("17x10", removal=(14, 22, 23), remove_first=True)
    assert s.take() == [("pending", (10, 14, 22, 23)), ("pending", (10, 22, 23)),
                        ("pending", (10, 23)), ("pending", (10,)),
                        ("pending", (10, 28)), ("pending", (10, 19)), ("move", "17x10")]


@pytest.mark.parametrize("order", [(27, 18), (18, 27)])
def test_brazilian_double_capture_in_both_orders(order):
    s = Script("brazilian", "W:W15,25,32:B8,12,16,18,27")
    s.slide(32, 23).show().slide(23, 14).show()
    s.remove(order[0]).show().remove(order[1]).show().wait()
    assert s.take() == [("pending", (14, 18, 23, 27)), ("pending", (18, 27)),
                        ("pending", (order[1],)), ("move", "32x14")]


def test_english_chain_capture_chosen_freely():
    # 10x17, 10x19x26 and 11x18x27 are all legal (003 §7): the board says which
    s = Script("english", "B:W14,15,23:B10,11")
    s.play("11x18x27")
    assert s.take()[-1] == ("move", "11x27")
    assert s.tracker.position.fen() == "W:W14:B10,27"


def test_english_short_capture_when_a_longer_one_exists():
    s = Script("english", "B:W14,15,23:B10,11")
    s.play("10x17")
    # lifted: 10x17 or 10x19x26 (which would take 15 and 23); landed on 17: only one
    assert s.take() == [("pending", (14, 15, 17, 23, 26)), ("pending", (14,)),
                        ("move", "10x17")]


KING_FIVE = "W:WK35:B11,12,20,22,23,30"  # 35x25 takes five, by two routes


def test_a_long_king_capture_shown_jump_by_jump():
    s = Script("international", KING_FIVE)
    s.play("35x19x28x17x3x25")
    events = s.take()
    assert events[-1] == ("move", "35x25")
    assert all(e[0] == "pending" for e in events[:-1])
    assert s.tracker.position.fen() == "B:WK25:B11"


def test_a_king_capture_by_the_other_route_to_the_same_square():
    # 35-8-17-28-14-25 jumps 30, 12, 22, 23, 20: the same five pieces, other squares
    s = Script("international", KING_FIVE)
    for sq in (8, 17, 28, 14, 25):
        s.pieces[sq] = s.pieces.pop(next(k for k, v in s.pieces.items() if v == "W"))
        s.show()
    for captured in (30, 12, 22, 23, 20):
        s.remove(captured).show()
    s.wait()
    assert s.take() == [
        ("pending", (8, 12, 20, 22, 23, 25, 30)),
        ("pending", (12, 17, 20, 22, 23, 25, 30)),
        ("pending", (12, 20, 22, 23, 25, 28, 30)),
        ("pending", (12, 14, 20, 22, 23, 25, 30)),
        ("pending", (12, 20, 22, 23, 30)),
        ("pending", (12, 20, 22, 23)), ("pending", (20, 22, 23)), ("pending", (20, 23)),
        ("pending", (20,)), ("move", "35x25")]


KING_LOOP = "W:WK26,38:B21,23,24,30,31,43"  # the king goes round and comes home


@pytest.mark.parametrize("route", [(12, 34, 48, 26), (48, 34, 12, 26)])
def test_a_king_capture_ending_on_its_own_square_by_either_route(route):
    s = Script("international", KING_LOOP)
    here = 26
    for sq in route:
        s.slide(here, sq).show()
        here = sq
    # back home with nothing removed yet: the board is the position before the move
    for captured in (21, 23, 43, 31):
        s.remove(captured).show()
    s.wait()
    events = s.take()
    assert events[3] == ("restored",)
    assert events[-4:] == [("pending", (23, 31, 43)), ("pending", (31, 43)),
                           ("pending", (31,)), ("move", "26x26")]
    assert s.tracker.position.fen() == "B:WK26,38:B24,30"


@pytest.mark.parametrize("third, move", [(18, "38x27x9x25"), (12, "38x21x3x25")])
def test_two_captures_with_the_same_ends_told_apart_by_the_pieces_removed(third, move):
    # both go 38 to 25 over 32 and 20; one takes 18, the other 12
    s = Script("international", "W:WK38,50:B10-12,15,18,20,32,40,42")
    s.slide(38, 25).show().remove(32).show().remove(20).show().remove(third).show().wait()
    assert s.take() == [("pending", (12, 18, 20, 32)), ("pending", (12, 18, 20)),
                        ("pending", (12, 18)), ("move", move)]


def test_brazilian_flying_king_capture_lands_beyond():
    s = Script("brazilian", "W:WK29:B18,3")
    s.play("29x11")
    assert s.take()[-1] == ("move", "29x11")


def test_english_king_captures_backwards_one_square():
    s = Script("english", "W:WK14:B18,3")
    s.play("14x23")
    assert s.take() == [("pending", (18, 23)), ("pending", (18,)), ("move", "14x23")]


# --- promotion ----------------------------------------------------------------------------


def test_promotion_with_the_crown_placed_later():
    s = Script("international", "W:W7,36:B45")
    s.play("7-2")
    s.crown(2).show().wait()  # the opponent crowns it (000 §3.6): nothing to report
    assert s.take() == [("pending", (1, 2)), ("move", "7-2")]
    s.play("45-50").play("2-35")  # the crowned king flies
    assert s.take()[-1] == ("move", "2-35")


def test_promotion_in_a_set_with_flat_kings():
    s = Script("international", "W:W7,36:B45")
    s.play("7-2")
    s.play("45-50")
    s.slide(2, 35).show().wait()  # never crowned; history knows it is a king
    assert [e for e in s.take() if e[0] == "move"] == [
        ("move", "7-2"), ("move", "45-50"), ("move", "2-35")]
    assert s.tracker.position.piece(35) == "W"


def test_english_man_crowned_by_a_capture_stops_there():
    s = Script("english", "B:W26,27:B22")
    s.play("22x31")
    assert s.take()[-1] == ("move", "22x31")
    assert s.tracker.position.piece(31) == "B"


def test_a_man_passing_the_back_row_stays_a_man():
    s = Script("international", "W:W13:B9,10,45")
    s.play("13x15")  # over 9 to 4, over 10 to 15 (000 §4.15)
    assert s.take()[-1] == ("move", "13x15")
    assert s.tracker.position.piece(15) == "w"


def test_settle_time_zero_reports_at_once():
    s = Script("international", settle=0.0)
    s.slide(32, 28).show()
    assert s.take() == [("move", "32-28")]
    assert STEP > 0
