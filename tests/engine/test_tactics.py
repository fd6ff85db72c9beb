"""`damas think` finds the winning combination in every position of `tactics.py`: shots,
breakthroughs and coups turcs, found and proven by `mine_tactics.py` (see its doc)."""

import json
from collections import Counter

import pytest
from tactics import TACTICS, THINK_DEPTH

from damas.cli import main
from damas.rules import Position

KING_VALUE = {"international": 300, "brazilian": 280, "english": 150}
CASES = [(v, *row) for v, rows in TACTICS.items() for row in rows]


def material(pos: Position) -> int:
    (wk, wm), (bk, bm) = pos.material()
    diff = (wm - bm) * 100 + (wk - bk) * KING_VALUE[pos.variant.name]
    return diff if pos.turn == 0 else -diff


@pytest.mark.parametrize("variant", ["international", "brazilian", "english"])
def test_at_least_thirty_positions_per_variant(variant):
    rows = TACTICS[variant]
    kinds = Counter(row[2] for row in rows)
    assert len(rows) >= 30 and len({row[0] for row in rows}) == len(rows)
    assert kinds["shot"] >= 10
    if variant != "english":  # one-square kings: the Turkish rule hardly ever decides
        assert kinds["coup turc"] >= 3 and kinds["breakthrough"] >= 5


@pytest.mark.parametrize("variant, fen, move, kind, needs, gain", CASES,
                         ids=[f"{c[0][:4]}-{c[3].replace(' ', '-')}-{i}"
                              for i, c in enumerate(CASES)])
def test_think_finds_the_combination(capsys, variant, fen, move, kind, needs, gain):
    code = main(["think", "--variant", variant, "--fen", fen,
                 "--depth", str(THINK_DEPTH[variant]), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert result["move"] == move
    # ... and knows it wins: most of a man more than the material on the board (the
    # evaluation learned from Scan scores some won king endings below their material)
    assert result["score"] >= material(Position.from_fen(fen, variant)) + 75
