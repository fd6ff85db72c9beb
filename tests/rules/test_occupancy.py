"""The board value vision hands on: readings, confidence, and what the tracker observes."""

import pytest

from damas.rules import DamasError, Occupancy, Position
from damas.rules.tracker.board import Observation


def test_a_position_and_its_pieces_give_the_same_board():
    start = Position.start("international")
    assert Occupancy.of_position(start) == Occupancy.of_pieces(50, start.pieces())


def test_confidence_is_kept_one_per_square():
    seen = Occupancy.of_pieces(32, {1: "b", 32: "W"}, {s: s / 32 for s in range(1, 33)})
    assert seen.confidence[0] == 1 / 32 and seen.confidence[-1] == 1.0
    assert seen.reading(32) == "W" and seen.colours[31] == "w"


def test_kings_count_as_men_when_boards_are_compared():
    seen = Occupancy("W" + "e" * 31)
    assert seen.differing(Occupancy("w" + "e" * 31)) == []
    assert seen.differing(Occupancy("b" + "e" * 31)) == [1]
    assert Occupancy("?" + "e" * 31).unread


def test_the_tracker_observes_the_readings_at_a_time():
    seen = Occupancy("e" * 31 + "w", (0.5,) * 32, (("b1", "w"),))
    assert seen.at(2.5) == Observation("e" * 31 + "w", 2.5, (("b1", "w"),))


@pytest.mark.parametrize("readings, confidence", [("x" * 32, ()), ("e" * 32, (1.0,) * 31)])
def test_a_malformed_board_is_our_error(readings, confidence):
    with pytest.raises(DamasError):
        Occupancy(readings, confidence)
