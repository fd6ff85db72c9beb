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
