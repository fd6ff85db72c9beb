"""The tracker's small parts: light squares, the observation format, the steps of a move,
the record of an accepted irregularity."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from damas.rules import Game, Position
from damas.rules.pdn import read_pdn
from damas.rules.tracker.board import (
    Observation,
    ObservationError,
    dark_neighbours,
    light_square,
    read_board,
)
from damas.rules.tracker.format import Commit, format_observation, parse_line
from damas.rules.tracker.record import Record
from damas.sim.person import move_steps

INTERNATIONAL = Position.start("international").variant
ENGLISH = Position.start("english").variant


def test_light_squares_and_the_dark_squares_around_them():
    assert light_square(10, "a10") == (0, 0)
    assert dark_neighbours(10, "a10") == (1, 6)  # the corner: two neighbours
    assert dark_neighbours(10, "g6") == (19, 23, 24, 29)
    assert dark_neighbours(8, "a2") == (21, 25, 29)
    for bad in ("a1", "b2", "k1", "a11", "", "1a"):
        with pytest.raises(ObservationError):
            light_square(10, bad)


def test_a_board_reads_colours_crowns_and_unknowns():
    obs = Observation.from_pieces(ENGLISH, {1: "b", 2: "B", 32: "W"}, unknown=(3,))
    board = read_board(ENGLISH, obs)
    lay = Position.start("english").layout
    assert board.black == lay.mask([1, 2]) and board.white == lay.mask([32])
    assert board.kings == lay.mask([2, 32])
    assert board.known == lay.valid & ~lay.mask([3])


@given(st.lists(st.sampled_from("ewbWB?"), min_size=50, max_size=50),
       st.one_of(st.none(), st.floats(0, 1e6, allow_nan=False)),
       st.lists(st.tuples(st.sampled_from(["a10", "b1", "g6", "j1"]), st.sampled_from("wbWB")),
                max_size=3, unique_by=lambda x: x[0]))
def test_an_observation_line_reads_back(readings, time, light):
    obs = Observation("".join(readings), time, tuple(light))
    back = parse_line(format_observation(obs), INTERNATIONAL)
    assert back.squares == obs.squares and back.light == obs.light
    assert back.time == (None if time is None else float(f"{time:g}"))


def test_commit_and_comment_lines():
    assert parse_line("t=4.5 commit", ENGLISH) == Commit(4.5)
    assert parse_line("commit", ENGLISH) == Commit(None)
    assert parse_line("   # nothing here", ENGLISH) is None
    assert parse_line("", ENGLISH) is None


def test_the_steps_of_a_capture():
    pos = Position.from_fen("W:W17,46:B3,4,11,14,18,22,23,31,44", "international")
    (move,) = pos.legal_moves()
    boards = move_steps(pos, move, removal=[14, 22, 23])
    assert len(boards) == 1 + 2 + 1 + 3  # lifted, two stops, landed, three removals
    assert 17 not in boards[0] and boards[1][28] == "w" and boards[3][10] == "w"
    assert boards[-1] == pos.play(move).pieces()
    first = move_steps(pos, move, remove_first=True, stops=False)
    assert [sorted(set(pos.pieces()) - set(b)) for b in first[1:4]] == [
        [17, 22], [17, 22, 23], [14, 17, 22, 23]]


def test_the_record_goes_on_from_an_accepted_position():
    game = Game("international")
    game.push("32-28")
    record = Record.of(game)
    accepted = Position.from_fen("B:W28,29,31,34-50:B1-20", "international")
    record.go_on_from(accepted, '5.4.01 accepted: play goes on from FEN "B:W28,29"')
    record.game.push("19-23")
    pdn = record.pdn(Event="club")
    assert '[Event "club"]' in pdn and '[GameType "20"]' in pdn and "FEN" not in pdn.split(
        "\n\n")[0]
    assert "1. 32-28 {5.4.01 accepted: play goes on from FEN \"B:W28,29\"} 1... 19-23 *" in (
        pdn.replace("\n", " "))
    # each segment reads back as a game from its own start
    first = read_pdn(Record.of(game).pdn(), "international")[0]
    assert first.game.notations() == ["32-28"]
