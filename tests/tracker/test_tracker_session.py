"""Recorded sequences around the game itself: the two policies (000 §5.7 acceptance),
knocked pieces (000 §5.5), where play starts from, new games, and the record."""

import pytest
from tracker_script import Script

from damas.rules import DamasError, Game, Position
from damas.rules.pdn import read_pdn
from damas.rules.tracker import Tracker

THREE = "W:W17,46:B3,4,11,14,18,22,23,31,44"  # 17x28x19x10 takes 22, 23, 14
MISSED = "W:W32,33,45:B3,29"  # 33x24 is compulsory


# --- tournament: the opponent playing on accepts the irregularity (000 §5.7) ------------

def test_tournament_quiet_move_instead_of_capture_then_the_opponent_plays_on():
    s = Script("international", MISSED, policy="tournament")
    s.slide(32, 27).show().wait()
    s.play("29x38", by="black")
    # Black's move is not announced while it is under way: it may yet be a correction
    assert s.take() == [("irregular", "5.4.06", (27, 32), "undo"),
                        ("accepted", "5.4.06", "B:W27,33,45:B3,29"), ("move", "29x38")]
    assert s.tracker.position.fen() == "W:W27,45:B3,38"
    pdn = s.tracker.record.pdn(White="Ana", Black="Rui")
    assert '{5.4.06 accepted (000 §5.7): play goes on from FEN "B:W27,33,45:B3,29"}' in pdn
    assert '[FEN "W:W32,33,45:B3,29"]' in pdn and '[White "Ana"]' in pdn
    assert "1... 29x38 *" in pdn


def test_tournament_captured_piece_left_and_the_opponent_plays_on_without_a_clock():
    s = Script("international", THREE, policy="tournament")
    s.slide(17, 10).show().remove(22, 23).show().wait()
    s.play("4x15", by="black")
    assert s.take() == [("pending", (14, 22, 23)), ("pending", (14,)),
                        ("irregular", "5.4.13", (14,), "complete"),
                        ("accepted", "5.4.13", "B:W10,46:B3,4,11,14,18,31,44"),
                        ("move", "4x15")]
    assert s.tracker.position.fen() == "W:W46:B3,11,14,15,18,31,44"


def test_tournament_chain_stopped_and_the_opponent_plays_on():
    s = Script("international", THREE, policy="tournament")
    s.slide(17, 28).remove(22).show().wait()
    # Black takes the man left on 28 with 23, a piece White should have taken
    s.play("23x32", by="black")
    assert s.take() == [("pending", (10, 14, 23, 28)), ("pending", (10, 14, 28)),
                        ("irregular", "5.4.09", (10, 14, 23, 28), "complete"),
                        ("accepted", "5.4.09", "B:W28,46:B3,4,11,14,18,23,31,44"),
                        ("move", "23x32")]


def test_tournament_two_moves_in_a_row_accepted():
    s = Script("international", policy="tournament")
    s.play("32-28").play("33-29", by="white")
    s.play("19-23", by="black")
    events = s.take()
    assert events[-3:] == [("irregular", "5.4.01", (29, 33), "undo"),
                           ("accepted", "5.4.01", "B:W28,29,31,34-50:B1-20"),
                           ("move", "19-23")]
    assert s.tracker.game.start.fen() == "B:W28,29,31,34-50:B1-20"


def test_tournament_take_back_accepted_leaves_the_opponent_to_move():
    s = Script("brazilian", policy="tournament")
    s.play("22-18")
    s.slide(18, 22).show().wait()
    s.play("11-15", by="black")
    assert s.take()[-3:] == [("irregular", "5.4.04", (18, 22), "undo"),
                             ("accepted", "5.4.04",
                              Position.from_fen("B:W21-32:B1-12", "brazilian").fen()),
                             ("move", "11-15")]


def test_tournament_irregularity_corrected_before_anyone_plays_on():
    s = Script("international", MISSED, policy="tournament")
    s.slide(32, 27).show().wait().slide(27, 32).show()
    s.play("33x24")
    assert s.take()[-1] == ("move", "33x24")
    assert not any(e.kind == "accepted" for e in s.events)


# --- robot: the irregularity stands until it is put right -----------------------------

def test_robot_does_not_accept_the_opponent_playing_on():
    s = Script("international", MISSED, policy="robot")
    s.slide(32, 27).show().wait()
    s.play("29x38", by="black")
    kinds = [e[0] for e in s.take()]
    assert "accepted" not in kinds and "move" not in kinds
    assert s.tracker.irregular is not None
    assert s.tracker.position.fen() == "W:W32,33,45:B3,29"  # still waiting for White


def test_robot_partial_correction_is_still_not_a_move():
    # 000 §5.8: the wrong piece put back, the right one still on the board
    s = Script("international", THREE)
    s.slide(17, 10).remove(22, 23, 18).show().wait()
    assert s.take() == [("irregular", "5.4.12", (14, 18), "complete")]
    s.put(18, "b").show().wait()
    assert s.take() == [("pending", (14,))]
    assert s.tracker.irregular is not None
    s.remove(14).show().wait()
    assert s.take() == [("move", "17x10")]
    assert s.tracker.irregular is None


# --- pieces knocked off their squares (000 §5.5) -----------------------------------------

def test_a_knocked_piece_is_put_back_and_play_goes_on():
    s = Script("international")
    s.play("32-28")
    s.take()
    s.knock(19, "g6").show().wait()  # g6 borders 19
    assert s.take() == [("displaced", (19,), ("g6",))]
    s.pick_up("g6").put(19).show()
    assert s.take() == [("restored",)]
    s.play("19-23")
    assert s.take() == [("pending", (23, 24)), ("move", "19-23")]
    assert not any(e.kind == "irregular" for e in s.events)


def test_a_piece_knocked_while_a_move_is_made():
    s = Script("international")
    s.lift(32).show().knock(33, "f3").show().put(28).show().wait()
    assert s.take() == [("pending", (27, 28)), ("displaced", (33,), ("f3",)),
                        ("move", "32-28")]
    s.pick_up("f3").put(33).show()
    assert s.take() == [("restored",)]


def test_brazilian_knocked_king_keeps_its_crown():
    s = Script("brazilian", "B:WK29,32:B3")
    s.knock(29, "a2").show().wait()
    assert s.take() == [("displaced", (29,), ("a2",))]
    s.pick_up("a2").put(29).show().play("3-7")
    assert s.take()[-1] == ("move", "3-7")
    assert s.tracker.position.piece(29) == "W"


# --- where play starts from -----------------------------------------------------------

def test_nothing_is_said_until_the_given_position_is_on_the_board():
    s = Script("international", "W:W40:B11", recognise=False)
    s.pieces = {40: "w"}
    s.show().wait()
    assert s.take() == []
    s.pieces[11] = "b"
    s.show().wait()
    assert s.take() == [("setup", "W:W40:B11")]
    assert s.last("setup").start is False


def test_a_fen_given_but_the_start_position_set_up():
    s = Script("english", "W:W20:B5", recognise=False)
    s.pieces = dict(Position.start("english").pieces())
    s.show().wait()
    assert s.take() == [("setup", "B:W21-32:B1-12")]
    assert s.last("setup").start is True
    s.play("9-13")
    assert s.take()[-1] == ("move", "9-13")


def test_a_resumed_game_knows_its_last_move():
    g = Game("brazilian")
    for m in ("22-18", "11-15", "18x11"):
        g.push(m)
    s = Script(game=g)
    s.slide(11, 18).put(15, "b").show().wait()
    assert s.take() == [("irregular", "5.4.04", (11, 15, 18), "undo")]
    assert s.last("irregular").message_en == "The move 18x11 was taken back."


def test_a_resumed_game_goes_on():
    g = read_pdn("1. 32-28 19-23 2. 28x19 14x23 *", "international")[0].game
    s = Script(game=g)
    s.play("37-32")
    assert s.take()[-1] == ("move", "37-32")
    assert s.last("move").ply == 5
    assert s.tracker.game.notations()[-1] == "37-32"


def test_the_start_position_set_up_after_the_game_ended():
    s = Script("english", "B:W26:B22")
    s.play("22x31")
    assert s.last("move").result == "0-1 no-legal-moves"
    s.take()
    s.pieces = {}
    s.show()
    for sq, piece in Position.start("english").pieces().items():
        s.pieces[sq] = piece
        s.show()  # pieces put out one by one: no irregularity while the game is over
    s.wait()
    assert s.take() == [("setup", "B:W21-32:B1-12")]
    s.play("11-15")
    assert s.take() == [("pending", (15, 16)), ("move", "11-15")]
    assert s.last("move").ply == 1


def test_the_start_position_set_up_in_the_middle_of_a_game():
    s = Script("international")
    s.play("32-28").play("19-23").play("28x19")
    s.take()
    s.pieces = dict(Position.start("international").pieces())
    s.show().wait()
    assert s.take() == [("setup", "W:W31-50:B1-20")]
    assert s.tracker.game.ply == 0


def test_a_commit_with_nothing_under_way_says_nothing():
    s = Script("international")
    s.commit()
    assert s.take() == []


def test_time_may_not_go_back():
    s = Script("international")
    with pytest.raises(DamasError, match="before the previous one"):
        s.tracker.tick(s.t - 5)


def test_settle_time_and_policy_are_checked():
    with pytest.raises(DamasError, match="settle"):
        Tracker("international", settle=-1)
    with pytest.raises(DamasError, match="unknown policy"):
        Tracker("international", policy="casual")
