"""Matches: Elo arithmetic, openings, colours, clocks, and levels in order of strength."""

import pytest

from damas.engine import BuiltinEngine, Limit, RandomEngine, elo, run_match
from damas.engine.base import Engine
from damas.engine.limits import NO_LIMIT, PlayResult
from damas.engine.match import (
    MatchTimeControl,
    default_openings,
    parse_time_control,
    play_game,
    read_openings,
)
from damas.rules import Color, DamasError, Game


def test_elo_of_even_and_lopsided_scores():
    assert elo(10, 0, 10)[0] == pytest.approx(0)
    assert elo(0, 20, 0) == (pytest.approx(0), pytest.approx(0))
    e, err = elo(75, 0, 25)
    assert e == pytest.approx(190.8, abs=0.1) and 70 < err < 90
    assert elo(7, 0, 3)[1] > elo(70, 0, 30)[1]  # fewer games, wider bar
    perfect, _ = elo(100, 0, 0)
    assert 800 < perfect < 1000  # a bound: the score is taken as 99.5 %


def test_time_controls_parse_and_bad_ones_are_refused():
    assert parse_time_control("0.5/move").limit(None) == Limit(movetime=0.5)
    assert parse_time_control("60+1").limit(42.0) == Limit(time=42.0, inc=1.0)
    assert parse_time_control("none").limit(None) == Limit()
    with pytest.raises(DamasError):
        parse_time_control("1 minute")


def test_default_openings_are_distinct_two_ply_positions():
    openings = default_openings("international")
    assert len(openings) == 81 and all(g.ply == 2 for g in openings)
    assert len({g.position for g in openings}) == 81


def test_openings_file_reads_fens_and_move_lists():
    games = read_openings("1. 32-28 19-23\n\n# comment\nW:W31-50:B1-20  # start\n",
                          "international")
    assert [g.ply for g in games] == [2, 0]
    with pytest.raises(DamasError, match="line 1"):
        read_openings("32-99", "international")


def test_each_opening_is_played_twice_with_the_colours_swapped():
    a, b = RandomEngine(seed=1, name="a"), RandomEngine(seed=2, name="b")
    result = run_match(a, b, "english", 4, MatchTimeControl(), max_plies=30)
    records = result.records
    assert [r.a_colour for r in records] == [Color.WHITE, Color.BLACK] * 2
    assert records[0].opening == records[1].opening != records[2].opening
    assert result.wins + result.draws + result.losses == 4


class Sleepy(Engine):
    """Plays the first legal move, ten seconds later on the test's clock."""

    name = "sleepy"

    def __init__(self, clock):
        self.clock = clock

    def play(self, game, limit=NO_LIMIT, on_info=None):
        self.clock[0] += 10.0
        return PlayResult(game.legal_moves()[0])


def test_a_flag_fall_loses_the_game():
    clock = [0.0]
    game, result, winner, reason = play_game(Sleepy(clock), RandomEngine(seed=1),
                                             Game("english"), MatchTimeControl(base=25.0, inc=1),
                                             clock=lambda: clock[0])
    # Sleepy has White (English: Black moves first): 25 - 10 + 1 = 16, then 7, then -3.
    assert reason == "time forfeit" and winner == Color.BLACK and result == "0-1"
    assert game.ply == 5


@pytest.mark.parametrize("variant", ["english", pytest.param("brazilian", marks=pytest.mark.slow)])
def test_higher_levels_beat_lower_ones(variant):
    """Cheap matches (the low levels search a few plies): level 5 against level 1 and
    level 7 against level 3. The figures for every pair of neighbours are in the README."""
    for strong, weak in ((5, 1), (7, 3)):
        result = run_match(BuiltinEngine(variant, level=strong, seed=1),
                           BuiltinEngine(variant, level=weak, seed=2), variant, 8,
                           MatchTimeControl())
        score = (result.wins + 0.5 * result.draws) / 8
        assert score >= 0.75, (strong, weak, result.summary())
