"""Recorded sequences of the irregularities of seed 000 §5.4 (and §5.3), in the three
variants: the article, the squares to change, and whether that undoes the slip or
completes the legal move begun."""

import pytest
from tracker_script import Script

from damas.rules.tracker.board import Observation, ObservationError
from damas.rules.tracker.decode import MARGIN

THREE = "W:W17,46:B3,4,11,14,18,22,23,31,44"  # 17x28x19x10 takes 22, 23, 14


def irregular(s):
    return s.last("irregular")


# --- 5.4.01 two moves in a row ------------------------------------------------------------

def test_01_white_moves_again_after_its_move_was_seen():
    s = Script("international")
    s.play("32-28")
    s.take()
    s.slide(33, 29).show().wait()
    assert s.take() == [("irregular", "5.4.01", (29, 33), "undo")]
    e = irregular(s)
    assert e.offender == "white"
    assert e.message_en == "White played two moves in a row (32-28, 33-29)."
    assert e.message_pt == "As brancas jogaram dois lances seguidos (32-28, 33-29)."


def test_01_two_moves_made_in_one_go():
    s = Script("international")
    s.slide(32, 28).show().slide(33, 29).show().wait()
    assert s.take() == [("irregular", "5.4.01", (28, 29, 32, 33), "undo")]


def test_01_english_black_moves_twice():
    s = Script("english")
    s.play("11-15")
    s.take()
    s.slide(15, 19).show().wait()
    assert s.take() == [("irregular", "5.4.01", (15, 19), "undo")]
    assert irregular(s).offender == "black"


# --- 5.4.02 a move no rule allows ----------------------------------------------------------

def test_02_man_steps_backwards():
    s = Script("international")
    s.play("32-28").play("19-23")
    s.take()
    s.slide(28, 32).show().wait()
    assert s.take() == [("irregular", "5.4.02", (28, 32), "undo")]


def test_02_english_king_flies_two_squares():
    s = Script("english", "B:W5,6:B26")
    s.play("26-30").play("5-1").play("30-26")
    s.take()
    s.slide(1, 10).show().wait()  # one-square kings in English (WCDF)
    assert s.take() == [("irregular", "5.4.02", (1, 10), "undo")]


def test_02_brazilian_man_steps_backwards():
    s = Script("brazilian", "W:W22:B3")
    s.slide(22, 26).show().wait()
    assert s.take() == [("irregular", "5.4.02", (22, 26), "undo")]


def test_02_a_piece_appears_from_nowhere():
    s = Script("international")
    s.put(25, "w").show().wait()
    assert s.take() == [("irregular", "5.4.02", (25,), "undo")]


def test_02_a_crown_on_a_man_that_was_never_promoted():
    s = Script("international")
    s.crown(32).show().wait()
    assert s.take() == [("irregular", "5.4.02", (32,), "undo")]
    assert "crown" in irregular(s).message_en
    s.pieces[32] = "w"
    s.show()
    assert s.take() == [("restored",)]


# --- 5.4.04 taking a move back ------------------------------------------------------------

def test_04_the_last_move_taken_back():
    s = Script("international")
    s.play("32-28")
    s.take()
    s.slide(28, 32).show().wait()  # the start position again: not a new game
    assert s.take() == [("irregular", "5.4.04", (28, 32), "undo")]
    assert irregular(s).message_en == "The move 32-28 was taken back."
    assert irregular(s).offender == "white"


def test_04_a_capture_taken_back_with_the_piece_put_back():
    s = Script("international", "W:W28,40:B3,23")
    s.play("28x19")
    s.take()
    s.slide(19, 28).put(23, "b").show().wait()
    assert s.take() == [("irregular", "5.4.04", (19, 23, 28), "undo")]


def test_04_a_move_taken_back_and_replaced():
    s = Script("international")
    s.play("32-28")
    s.take()
    s.slide(28, 27).show().wait()
    assert s.take() == [("irregular", "5.4.04", (27, 28), "undo")]
    assert irregular(s).message_en == "The move 32-28 was taken back and replaced by 32-27."


# --- 5.4.05 moving the opponent's piece ----------------------------------------------------

def test_05_white_moves_a_black_man_backwards():
    s = Script("international", "W:W32,33:B12,19")
    s.slide(19, 14).show().wait()
    assert s.take() == [("irregular", "5.4.05", (14, 19), "undo")]
    assert irregular(s).offender == "white"


def test_05_brazilian_black_moves_a_white_man_backwards():
    s = Script("brazilian", "B:W22:B3")
    s.slide(22, 26).show().wait()
    assert s.take() == [("irregular", "5.4.05", (22, 26), "undo")]
    assert irregular(s).offender == "black"


# --- 5.4.06 a quiet move when a capture was possible --------------------------------------

def test_06_the_issue_example():
    s = Script("international", "W:W32,33,45:B3,29")
    s.slide(32, 27).show().wait()
    assert s.take() == [("irregular", "5.4.06", (27, 32), "undo")]
    e = irregular(s)
    assert e.message_pt == ("A captura é obrigatória: jogou 32-27 quando podia capturar "
                            "(33x24).")
    assert e.message_en == ("Capture is compulsory: 32-27 was played while a capture was "
                            "possible (33x24).")


def test_06_english():
    s = Script("english", "B:W18:B14,1")
    s.slide(1, 5).show().wait()
    assert s.take() == [("irregular", "5.4.06", (1, 5), "undo")]


def test_06_brazilian():
    s = Script("brazilian", "W:W22,31:B18,3")
    s.slide(31, 27).show().wait()
    assert s.take() == [("irregular", "5.4.06", (27, 31), "undo")]


# --- 5.4.07 pieces removed without reason --------------------------------------------------

def test_07_an_opponent_piece_removed():
    s = Script("international")
    s.remove(1).show().wait()
    assert s.take() == [("irregular", "5.4.07", (1,), "undo")]


def test_07_own_piece_removed_with_a_legal_move_besides():
    s = Script("international")
    s.slide(32, 28).remove(50).show().wait()
    assert s.take() == [("irregular", "5.4.07", (50,), "complete")]


def test_07_english_piece_removed():
    s = Script("english")
    s.remove(32).show().wait()
    assert s.take() == [("irregular", "5.4.07", (32,), "undo")]


# --- 5.4.08 fewer or more pieces than the rule demands -------------------------------------

def test_08_took_one_where_two_were_due():
    # 34x23x12 takes two; 32x21 takes one king: a king counts as a man (000 §4.13)
    s = Script("international", "W:W32,34:BK27,29,18")
    s.slide(32, 21).remove(27).show().wait()
    assert s.take() == [("irregular", "5.4.08", (21, 27, 32), "undo")]
    assert irregular(s).message_en == "Took 1 piece(s) where the rule demands 2 (34x12)."


def test_08_brazilian_took_fewer():
    s = Script("brazilian", "W:W9,19,21:B2,22,23,25")
    assert [m.long for m in s.tracker.position.legal_moves()] == ["19x26x17"]
    s.slide(21, 30).remove(25).show().wait()  # 21x30 takes one
    assert s.take() == [("irregular", "5.4.08", (21, 25, 30), "undo")]


def test_08_took_more_by_lifting_pieces_at_once():
    # the Turkish strike: pieces are removed only at the end (000 §4.11), so the king
    # may not take 41 too by passing where 28 stood
    s = Script("international", "W:WK33:B8-10,28,41")
    s.lift(33).put(46).remove(28, 8, 9, 10, 41).show().wait()
    assert s.take() == [("irregular", "5.4.08", (8, 9, 10, 28, 33, 41, 46), "undo")]
    assert irregular(s).message_en == "Took 5 pieces, more than the rule allows (4)."


def test_08_english_man_goes_on_capturing_after_being_crowned():
    s = Script("english", "B:W26,27:B22")
    s.slide(22, 31).show().slide(31, 24).show().remove(26, 27).show().wait()
    assert s.take() == [("pending", (26,)), ("irregular", "5.4.08", (22, 24, 26, 27), "undo")]


# --- 5.4.09 stopping before the end of a chain ---------------------------------------------

def test_09_released_halfway_and_the_clock_pressed():
    s = Script("international", THREE)
    s.slide(17, 28).show().commit()
    assert s.take() == [("pending", (10, 14, 22, 23, 28)),
                        ("irregular", "5.4.09", (10, 14, 22, 23, 28), "complete")]
    assert irregular(s).message_en == "The chain capture stopped on 28 before its end (17x10)."


def test_09_halfway_with_the_jumped_piece_taken_off():
    s = Script("international", THREE)
    s.slide(17, 28).show().remove(22).show().commit()
    assert s.take()[-1] == ("irregular", "5.4.09", (10, 14, 23, 28), "complete")


def test_09_english_chain_stopped():
    s = Script("english", "B:W14,15,23:B10,11")
    s.slide(10, 19).remove(15).show().wait()
    assert s.take() == [("pending", (19, 23, 26)), ]
    s.commit()
    assert s.take() == [("irregular", "5.4.09", (19, 23, 26), "complete")]


def test_09_stopped_on_the_way_of_the_only_legal_capture():
    s = Script("international", "W:W32,34:BK27,29,18")
    s.slide(34, 23).remove(29).show().wait()  # 34x23 stops where 34x12 goes on
    assert s.take() == [("pending", (12, 18, 23))]
    s.commit()
    assert s.take() == [("irregular", "5.4.09", (12, 18, 23), "complete")]


# --- 5.4.10 - 5.4.14 taking the captured pieces off -----------------------------------------

def test_10_captured_piece_removed_before_the_capture_began():
    s = Script("international", THREE)
    s.remove(22).show().commit()
    assert s.take() == [("pending", (10, 14, 17, 23)),
                        ("irregular", "5.4.10", (10, 14, 17, 23), "complete")]


def test_10_a_piece_ahead_of_the_capturing_piece_removed():
    s = Script("international", THREE)
    s.slide(17, 28).show().remove(23).show().commit()
    assert s.take()[-1] == ("irregular", "5.4.10", (10, 14, 22, 28), "complete")


def test_11_landed_and_nothing_removed():
    s = Script("international", THREE)
    s.slide(17, 10).show().commit()
    assert s.take() == [("pending", (14, 22, 23)),
                        ("irregular", "5.4.11", (14, 22, 23), "complete")]


def test_11_single_capture_left_on_the_board():
    s = Script("international", "W:W28:B3,23")
    s.slide(28, 19).show().commit()
    assert s.take() == [("pending", (23,)), ("irregular", "5.4.11", (23,), "complete")]
    e = irregular(s)
    assert e.message_pt == ("Depois da captura, retiradas menos peças do que as tomadas: "
                            "faltam 23.")


def test_12_a_piece_that_was_not_captured_removed():
    s = Script("international", THREE)
    s.slide(17, 10).show().remove(22, 23).show().remove(18).show().wait()
    assert s.take() == [("pending", (14, 22, 23)), ("pending", (14,)),
                        ("irregular", "5.4.12", (14, 18), "complete")]


def test_12_english_wrong_piece_removed():
    s = Script("english", "B:W14,15,23,30:B10,11")
    s.slide(11, 27).remove(15, 30).show().wait()
    assert s.take() == [("irregular", "5.4.12", (23, 30), "complete")]


def test_13_removal_stopped_halfway():
    s = Script("international", THREE)
    s.slide(17, 10).show().remove(22).show().commit()
    assert s.take() == [("pending", (14, 22, 23)), ("pending", (14, 23)),
                        ("irregular", "5.4.13", (14, 23), "complete")]


def test_14_own_piece_removed_after_the_capture():
    s = Script("international", THREE)
    s.slide(17, 10).remove(22, 23, 14, 46).show().wait()
    assert s.take() == [("irregular", "5.4.14", (46,), "complete")]


def test_14_brazilian_own_piece_removed():
    s = Script("brazilian", "W:W15,25,32:B8,12,16,18,27")
    s.slide(32, 14).remove(27, 18, 25).show().wait()
    assert s.take() == [("irregular", "5.4.14", (25,), "complete")]


# --- 5.3 a piece on a light square ----------------------------------------------------------

def test_5_3_a_piece_put_on_a_light_square_far_from_home():
    s = Script("international")
    s.lift(32).show()
    s.light["a10"] = "w"
    s.show().wait()
    assert s.take() == [("pending", (27, 28)), ("irregular", "5.3", (32,), "undo")]
    assert irregular(s).light == ("a10",)


# --- what a standing irregularity does next --------------------------------------------------

def test_an_irregular_board_left_alone_is_reported_once():
    s = Script("international")
    s.remove(1).show().wait().wait().show(5.0).wait()
    assert s.take() == [("irregular", "5.4.07", (1,), "undo")]


def test_a_slip_put_right_within_the_settle_time_is_not_reported():
    s = Script("international", "W:W32:B3")
    s.slide(32, 37).show()  # backwards: irregular if it stayed
    s.slide(37, 32).show().wait()
    # one board of it is not enough to tell it from two misread squares: nothing is said
    assert s.take() == []
    s.slide(32, 37).show().wait()  # left there, it is
    assert s.take() == [("irregular", "5.4.02", (32, 37), "undo")]


def test_an_irregularity_corrected_by_completing_the_capture():
    s = Script("international", THREE)
    s.slide(17, 10).remove(22, 23).show().commit()
    assert s.take()[-1] == ("irregular", "5.4.13", (14,), "complete")
    s.remove(14).show().wait()
    assert s.take() == [("move", "17x10")]
    assert s.tracker.irregular is None


def test_an_irregularity_corrected_by_undoing_it():
    s = Script("international", "W:W32,33,45:B3,29")
    s.slide(32, 27).show().wait()
    s.slide(27, 32).show()
    assert s.take() == [("irregular", "5.4.06", (27, 32), "undo"), ("restored",)]
    s.play("33x24")
    assert s.take()[-1] == ("move", "33x24")


def test_every_irregular_event_says_itself_as_json():
    s = Script("international", "W:W32,33,45:B3,29")
    s.slide(32, 27).show().wait()
    d = irregular(s).to_dict()
    assert d["event"] == "irregular" and d["article"] == "5.4.06"
    assert d["squares"] == [27, 32] and d["fix"] == "undo" and d["offender"] == "white"
    # how sure the board was: the runner-up, and how far behind it came
    assert set(d) == {"event", "t", "article", "message_pt", "message_en", "squares", "fix",
                      "offender", "light", "runner_up", "margin"}
    assert isinstance(d["runner_up"], str) and d["margin"] >= MARGIN


def test_observations_are_checked():
    s = Script("international")
    with pytest.raises(ObservationError, match="expected 50 square readings"):
        s.tracker.observe(Observation("e" * 49))
    with pytest.raises(ObservationError, match="unknown reading 'x'"):
        s.tracker.observe(Observation("x" * 50))
    with pytest.raises(ObservationError, match="not a light square"):
        s.tracker.observe(Observation("e" * 50, light=(("b2", "w"),)))
    with pytest.raises(ObservationError, match="before the previous one"):
        s.tracker.observe(Observation("e" * 50, time=s.t - 1))
