"""Perft against the published tables in references/rules.md."""

import pytest
from perft_tables import BRAZILIAN, ENGLISH, INTERNATIONAL, WOLDOUBY, WOLDOUBY_FEN

from damas.rules import Position, divide, perft


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
