import pytest

from damas.rules import FenError, Position

BRAZILIAN_START = ("W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3"
                   ":Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8")


def test_start_positions_round_trip():
    for name, fen in (("international", "W:W31-50:B1-20"), ("brazilian", BRAZILIAN_START),
                      ("english", "B:W21-32:B1-12")):
        assert Position.start(name).fen() == fen
        assert Position.from_fen(fen, name) == Position.start(name)


def test_brazilian_fens_are_algebraic_and_numbers_are_manoury():
    """PDN GameType 26 names squares like chess (a1 at White's bottom left); numbers
    are still read, as Manoury numbers (1 on b8, 29 on a1), as damas writes moves."""
    assert Position.from_fen("W:W21-32:B1-12", "brazilian") == Position.start("brazilian")
    pos = Position.from_fen("B:WKa1,c3:Bh8", "brazilian")
    assert pos.pieces() == {4: "b", 22: "w", 29: "W"}
    assert pos.fen() == "B:WKa1,c3:Bh8"
    with pytest.raises(FenError, match="light square"):
        Position.from_fen("W:Wb1:B", "brazilian")
    with pytest.raises(FenError, match="not a square"):
        Position.from_fen("W:Wa1:Bb8", "international")  # algebraic is for 8x8 boards


@pytest.mark.parametrize("fen, message", [
    ("W:W6-45:B1-5", "40 white pieces; a side has at most 20"),
    ("B:WK1-5,K6-15:BK30-50", "21 black pieces"),
    ("W:W²", "'²' is not a square"),
    ("W:W３１", "is not a square"),
    ("W:W31-50:B1-٢٠", "not a square or a range"),
    ("W:W" + "9" * 4301, "is not a square"),
    ("W:W31-50:B1-20:H" + "1" * 5000, "must start with W or B"),
])
def test_wrong_fens_are_refused_with_one_line(fen, message):
    with pytest.raises(FenError, match=message) as e:
        Position.from_fen(fen, "international")
    assert "\n" not in str(e.value) and len(str(e.value)) < 200


def test_either_colour_section_may_come_first():
    a = Position.from_fen("B:W18,K24,31:B3,K12", "international")
    b = Position.from_fen("B:B3,K12:W18,K24,31", "international")
    assert a == b
    assert a.piece(24) == "W" and a.piece(12) == "B" and a.piece(3) == "b"
    assert a.turn == 1


def test_ranges_kings_and_loose_spacing():
    pos = Position.from_fen(' W:W31-33,K45 : B K1-3 ,20. ', "international")
    assert pos.pieces() == {1: "B", 2: "B", 3: "B", 20: "b", 31: "w", 32: "w", 33: "w",
                            45: "W"}


def test_lidraughts_counters_are_ignored():
    assert Position.from_fen("W:W31-50:B1-20:H0:F1", "international") == \
        Position.start("international")


def test_written_fen_uses_ranges_for_runs_of_men():
    pos = Position.from_fen("W:W31,32,33,35,K36:B1,2,3,4", "international")
    assert pos.fen() == "W:W31-33,35,K36:B1-4"


@pytest.mark.parametrize("bad", [
    "", "X:W1:B2", "W:W51:B1", "W:W0:B1", "W:W31:W32", "W:W31,31:B1", "W:W31:B31",
    "W:W3-1:B40", "W:Wabc:B1", "W:Q1:B2", "W:W2:B40", "W:W40:B48", "W:W1-2-3:B40",
])
def test_malformed_fen_is_rejected(bad):
    with pytest.raises(FenError):
        Position.from_fen(bad, "international")


def test_out_of_range_for_8x8():
    with pytest.raises(FenError, match="1..32"):
        Position.from_fen("W:W33:B1", "english")
