"""The capture rules of the seeds, one position each."""

import pytest

from damas.rules import (
    IllegalMoveError,
    Move,
    NotationError,
    Position,
)


def notations(fen, variant="international"):
    pos = Position.from_fen(fen, variant)
    return sorted(pos.notation(m) for m in pos.legal_moves())


def test_capture_is_compulsory():
    assert notations("W:W32,45:B27,1") == ["32x21"]


def test_men_capture_backwards_except_in_english():
    assert notations("W:W23:B28") == ["23x32"]
    assert notations("W:W14:B18", "brazilian") == ["14x23"]
    assert notations("W:W14:B18", "english") == ["14-10", "14-9"]


def test_maximum_capture_and_a_king_counts_as_a_man():
    # 32x21 would take a king, 34x12 takes two men: two it is (000 §4.13)
    assert notations("W:W32,34:BK27,29,18") == ["34x12"]


def test_free_choice_in_english():
    # one piece or two: both allowed (003 §7); a chain once begun is completed
    pos = Position.from_fen("B:W14,15,23:B10,11", "english")
    assert sorted(m.long for m in pos.legal_moves()) == ["10x17", "10x19x26", "11x18x27"]


def test_a_man_passing_the_back_row_stays_a_man():
    pos = Position.from_fen("W:W13:B9,10", "international")
    (move,) = pos.legal_moves()
    assert move.path == (13, 4, 15) and not move.promotion  # 000 §4.15
    assert pos.play(move).piece(15) == "w"


def test_a_man_ending_on_the_back_row_is_crowned():
    pos = Position.from_fen("W:W12:B7", "international")
    (move,) = pos.legal_moves()
    assert move.end == 1 and move.promotion
    assert pos.play(move).piece(1) == "W"


def test_english_crowning_ends_the_move_but_brazilian_man_goes_on():
    fen = "B:W26,27:B22"
    (english,) = Position.from_fen(fen, "english").legal_moves()
    assert english.path == (22, 31) and english.promotion  # 003 §5
    (brazilian,) = Position.from_fen(fen, "brazilian").legal_moves()
    assert brazilian.path == (22, 31, 24) and brazilian.captured == (26, 27)
    assert not brazilian.promotion


def test_flying_king_lands_on_any_free_square_behind():
    assert notations("W:WK46:B37") == ["46x10", "46x14", "46x19", "46x23", "46x28",
                                       "46x32", "46x5"]


def test_english_king_moves_one_square():
    assert notations("W:WK18:B1", "english") == ["18-14", "18-15", "18-22", "18-23"]


def test_routes_with_the_same_captured_set_are_one_move():
    # a man goes round the diamond either way: one move, four pieces (000 §4.8)
    pos = Position.from_fen("W:W32:B17,18,27,28", "international")
    (move,) = pos.legal_moves()
    assert (move.start, move.end, set(move.captured)) == (32, 32, {17, 18, 27, 28})
    assert pos.notation(move) == "32x32"


def test_long_notation_only_when_start_and_end_are_shared():
    pos = Position.from_fen("W:WK3:B12,22,24,37", "international")
    texts = sorted(pos.notation(m) for m in pos.legal_moves())
    assert texts == ["3x17x33x15", "3x17x33x20", "3x26x42x15", "3x26x42x20", "3x41", "3x46"]
    assert pos.parse_move("3x17x33x20").captured == (12, 22, 24)
    with pytest.raises(NotationError, match="ambiguous"):
        pos.parse_move("3x20")


def test_captured_pieces_block_until_the_move_ends():
    # Turkish strike: the king may not jump 28 twice, nor land on it (000 §4.11)
    pos = Position.from_fen("W:WK47:B33,28,18,19", "international")
    for move in pos.legal_moves():
        assert len(set(move.captured)) == len(move.captured)
        assert not set(move.path[1:]) & set(move.captured)


def test_parse_forms():
    pos = Position.from_fen("W:W32,34:BK27,29,18", "international")
    move = pos.parse_move("34x12")
    assert pos.parse_move("34x23x12") == move  # long form
    assert pos.parse_move("34x12x29x18") == move  # hub form
    assert pos.parse_move(" 34:12! ") == move
    for bad in ("34x13", "hello", "34", "34x99", "32x21"):
        with pytest.raises(NotationError):
            pos.parse_move(bad)


def test_algebraic_moves_on_8x8():
    pos = Position.start("brazilian")
    assert pos.parse_move("c3-d4") == pos.parse_move("22-18")


def test_play_refuses_illegal_moves():
    pos = Position.start("international")
    with pytest.raises(IllegalMoveError):
        pos.play(Move((32, 23)))


def test_move_value_semantics():
    assert Move((1, 2, 3), (5, 6)) == Move((1, 9, 3), (6, 5))
    assert hash(Move((1, 2, 3), (5, 6))) == hash(Move((1, 9, 3), (6, 5)))
    assert Move((32, 21, 12), (27, 17)).hub == "32x12x27x17"
    assert Move((32, 21, 12), (27, 17)).long == "32x21x12"


def test_position_is_immutable_and_hashable():
    pos = Position.start("english")
    with pytest.raises(AttributeError):
        pos.turn = 0
    assert len({pos, Position.start("english"), Position.start("brazilian")}) == 2
