"""Perft against the published tables in references/rules.md."""

import pytest

from damas.rules import Position, divide, perft

INTERNATIONAL = [9, 81, 658, 4265, 27117, 167140, 1049442]
BRAZILIAN = [7, 49, 302, 1469, 7473, 37628, 187302, 907830]
ENGLISH = [7, 49, 302, 1469, 7361, 36768, 179740, 845931]
WOLDOUBY_FEN = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
WOLDOUBY = [6, 12, 30, 73, 215, 590, 1944, 6269, 22369]


@pytest.mark.parametrize("name, table", [("international", INTERNATIONAL),
                                         ("brazilian", BRAZILIAN), ("english", ENGLISH)])
def test_start_position(name, table):
    start = Position.start(name)
    assert [perft(start, d) for d in range(1, len(table) + 1)] == table


def test_woldouby():
    pos = Position.from_fen(WOLDOUBY_FEN, "international")
    assert [perft(pos, d) for d in range(1, len(WOLDOUBY) + 1)] == WOLDOUBY


def test_divide_adds_up():
    start = Position.start("international")
    parts = divide(start, 4)
    assert len(parts) == 9
    assert sum(parts.values()) == INTERNATIONAL[3]


def test_perft_zero_is_one():
    assert perft(Position.start("english"), 0) == 1
