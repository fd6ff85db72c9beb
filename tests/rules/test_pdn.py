import pytest

from damas.rules import Game, PdnError
from damas.rules.pdn import PdnGame, read_pdn, write_pdn

TWO_GAMES = """[Event "Club"]
[White "Ana"]
[Black "Bia"]
[Result "2-0"]
[GameType "20"]

1. 32-28 19-23 2. 28x19 14x23 {the exchange} 3. 37-32! $14 20-24 2-0

[Event "Blitz"]
[GameType "21"]
1. 11-15 23-19 2. 8-11 22-17 1/2-1/2
"""


def test_read_many_games_with_tags_comments_nags():
    a, b = read_pdn(TWO_GAMES)
    assert a.tags["White"] == "Ana" and a.result == "2-0"
    assert a.game.notations() == ["32-28", "19-23", "28x19", "14x23", "37-32", "20-24"]
    assert a.comments == {4: ["the exchange"]}
    assert a.nags == {5: [1, 14]}
    assert b.game.variant.name == "english" and b.result == "1/2-1/2"
    assert b.game.ply == 4


def test_write_then_read_gives_the_same_games():
    games = read_pdn(TWO_GAMES)
    again = read_pdn(write_pdn(games))
    for g, h in zip(games, again, strict=True):
        assert g.game.moves == h.game.moves
        assert (g.comments, g.nags, g.result) == (h.comments, h.nags, h.result)
        assert g.tags.items() <= h.tags.items()


def test_setup_position_via_fen_tag_and_black_to_move():
    game = Game("international", fen="B:W28,K45:B19,23")
    game.push("23x32")
    text = write_pdn(PdnGame.from_game(game, Event="study"))
    assert '[FEN "B:W28,K45:B19,23"]' in text
    assert "1... 23x32" in text
    (back,) = read_pdn(text)
    assert back.game.start == game.start and back.game.moves == game.moves


def test_results_in_the_variant_notation():
    (g,) = read_pdn('[GameType "20"]\n1. 32-28 1-0')
    assert g.result == "2-0"
    (g,) = read_pdn('[GameType "21"]\n1. 11-15 1-1')
    assert g.result == "1/2-1/2"


def test_real_world_looseness():
    text = ("\ufeff[event \"x\"]\r\n[GameType \"26\"]\r\n"
            "% an escape line\r\n"
            "c3-d4 f6-g5 {no numbers, algebraic} (2. d4-e5 (2. b2-c3)) 2... ; note\r\n"
            "b2-c3\r\n")
    (g,) = read_pdn(text)
    assert g.tags == {"Event": "x", "GameType": "26"}
    assert g.game.variant.name == "brazilian" and g.game.ply == 3
    assert g.result == "*"


def test_capture_written_with_a_dash_or_colon_or_long_form():
    (g,) = read_pdn("1. 32-28 19-23 2. 28-19 14:23 3. 34-29 23x34x29 4. 40-29 *")
    assert g.game.notations()[-3:] == ["34-29", "23x34", "40x29"]


@pytest.mark.parametrize("text, line, column, words", [
    ("1. 32-28 19-23\n2. 28-22 *", 2, 4, "28-22"),
    ("1. 32-28 {open comment", 1, 10, "never closed"),
    ('[Event "x"\n1. 32-28', 1, 1, "malformed tag"),
    ("1. 32-28 19-23 2. @@", 1, 19, "unexpected"),
    ('[GameType "99"]\n1. 32-28', 1, 1, "GameType"),
    ('[FEN "W:W99:B1"]\n1. 32-28', 1, 1, "outside"),
    ("1. 32-28 (2. 33-29", 1, 10, "never closed"),
    ("1. 32-28 )", 1, 10, "without"),
])
def test_errors_point_at_line_and_column(text, line, column, words):
    with pytest.raises(PdnError) as err:
        read_pdn(text)
    assert (err.value.line, err.value.column) == (line, column)
    assert words in str(err.value)


def test_long_comments_wrap_and_nothing_is_lost():
    game = Game("english")
    game.push("11-15")
    pg = PdnGame(tags={}, game=game, comments={1: ["word " * 40]})
    text = write_pdn(pg)
    assert max(len(line) for line in text.splitlines()) <= 79
    (back,) = read_pdn(text)
    assert back.comments[1] == [" ".join(["word"] * 40)]


# --- square names: the GameType tag (PDN 3.0) -------------------------------------------

def test_brazilian_games_are_written_in_algebraic_squares():
    game = Game("brazilian", fen="W:W22,27:B18,19")
    game.push("22x24")  # c3 takes d4 and f4, on to g3
    text = write_pdn(PdnGame.from_game(game))
    assert '[GameType "26"]' in text and '[FEN "W:Wf2,c3:Bd4,f4"]' in text
    assert "1. c3xg3" in text
    (back,) = read_pdn(text)
    assert back.game.start == game.start and back.game.moves == game.moves


def test_brazilian_numbers_are_manoury_unless_the_gametype_says_otherwise():
    """GameType 26 is algebraic; numbers in such a file are read as Manoury numbers
    (what damas wrote before, and what its command line takes). A full GameType with a
    numeric notation says where square 1 is: N0 numbers from White's bottom left, a1,
    as pydraughts does."""
    (manoury,) = read_pdn('[GameType "26"]\n1. 22-18 *')
    (algebraic,) = read_pdn('[GameType "26"]\n1. c3-d4 *')
    (white_side,) = read_pdn('[GameType "26,W,8,8,N0,0"]\n1. 10-14 *')
    assert manoury.game.moves == algebraic.game.moves == white_side.game.moves
    assert manoury.game.notations() == ["22-18"]
    (fen,) = read_pdn('[GameType "26,W,8,8,N0,0"]\n[FEN "W:W1,K2:B32"]\n1. 1-5 *')
    assert fen.game.start.pieces() == {4: "b", 29: "w", 30: "W"}


def test_a_gametype_in_full_form_is_read_and_ours_is_written():
    (g,) = read_pdn('[GameType "20,W,10,10,N2,0"]\n1. 32-28 *')
    assert g.game.variant.name == "international"
    assert '[GameType "20"]' in write_pdn(g)
    (e,) = read_pdn('[GameType "21,B,8,8,N1,0"]\n1. 11-15 *')
    assert e.game.notations() == ["11-15"]


@pytest.mark.parametrize("gametype, words", [
    ("²", "not PDN 3.0"), ("2" * 5000, "not PDN 3.0"), ("20,W,8,8,N2,0", "not 8x8"),
    ("26,W,8,8,A2,0", "A0"), ("26,W,8,8,N0,1", "invert"), ("20,W,10,10,S2,0", "chess"),
    ("99", "not a variant"),
])
def test_wrong_gametypes_are_refused(gametype, words):
    with pytest.raises(PdnError, match=words) as e:
        read_pdn(f'[GameType "{gametype}"]\n1. 32-28 *')
    assert len(str(e.value)) < 200


@pytest.mark.parametrize("text, words", [
    ("1. 32-28 $" + "7" * 5000 + " *", "NAG"),
    ("1. 32-28 $256 *", "NAG"),
    ("1. 32-28 $٣ *", "unexpected"),
    ("1. ٣٢-٢٨ *", "unexpected"),
    ("1. 32-" + "8" * 5000 + " *", "not a dark square"),
])
def test_numbers_are_ascii_and_short(text, words):
    with pytest.raises(PdnError, match=words) as e:
        read_pdn(text)
    assert len(str(e.value)) < 200


def test_an_unknown_date_is_written_as_pdn_says():
    assert '[Date "????.??.??"]' in write_pdn(PdnGame.from_game(Game("english")))


def test_games_know_where_they_begin_in_the_text():
    a, b = read_pdn(TWO_GAMES)
    assert TWO_GAMES[a.offset:].startswith('[Event "Club"]')
    assert TWO_GAMES[b.offset:].startswith('[Event "Blitz"]')
