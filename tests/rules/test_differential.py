"""Legal moves agree with pydraughts 0.6.7 on thousands of positions from random games.

pydraughts lists every capture route separately; merged by (start, end, captured set)
the two generators must give the same moves. Brazilian squares are translated through
algebraic names, since pydraughts numbers that board from White's side."""

import random
from functools import cache

import pytest

draughts = pytest.importorskip("draughts")

from damas.rules import Game, Position, geometry  # noqa: E402

PYDRAUGHTS_NAME = {"international": "standard", "brazilian": "brazilian",
                   "english": "english"}
POSITIONS_PER_VARIANT = 2000


@cache
def brazilian_numbers() -> dict[int, int]:
    """pydraughts' number of each of our Brazilian squares, asked of pydraughts itself:
    a lone king on the square moves from it."""
    g = geometry(8)
    out = {}
    for sq in g.all_squares:
        board = draughts.Board(variant="brazilian", fen=f"W:WK{g.algebraic(sq)}:B")
        (start,) = {m.steps_move[0] for m in board.legal_moves()}
        out[sq] = start
    return out


def their_fen(pos: Position) -> str:
    if pos.variant.name != "brazilian":
        return pos.fen()
    g = geometry(8)
    sections = []
    for colour in "WB":
        names = [("K" if p.isupper() else "") + g.algebraic(sq)
                 for sq, p in pos.pieces().items() if p.upper() == colour]
        sections.append(colour + ",".join(names))
    return f"{'WB'[pos.turn]}:{sections[0]}:{sections[1]}"


def their_moves(pos: Position) -> set:
    board = draughts.Board(variant=PYDRAUGHTS_NAME[pos.variant.name], fen=their_fen(pos))
    back = {v: k for k, v in brazilian_numbers().items()}
    name = (lambda s: back[s]) if pos.variant.name == "brazilian" else (lambda s: s)
    return {(name(m.steps_move[0]), name(m.steps_move[-1]),
             frozenset(name(c) for c in m.captures)) for m in board.legal_moves()}


def our_moves(pos: Position) -> set:
    return {(m.start, m.end, frozenset(m.captured)) for m in pos.legal_moves()}


def quiet_random_move(game: Game, rng: random.Random):
    """Random play that, early on, mostly avoids offering captures: the board fills up
    and the later exchanges become multi-captures."""
    moves = game.legal_moves()
    if game.ply < 40 and rng.random() < 0.9:
        safe = [m for m in moves if not game.position.play(m).capture_required()]
        if safe:
            return rng.choice(safe)
    return rng.choice(moves)


def is_rich(pos: Position) -> bool:
    """A multi-capture or a king capture is on."""
    return any(len(m.captured) >= 2 or (m.captured and pos.piece(m.start) in "WB")
               for m in pos.legal_moves())


def random_positions(variant: str, count: int, seed: int) -> list[Position]:
    """Positions from random games, a quarter of them with a multi-capture or a king
    capture on the board (random play alone offers few)."""
    rng = random.Random(seed)
    rich: list[Position] = []
    plain: list[Position] = []
    while len(rich) < count // 4 or len(plain) < count - count // 4:
        game = Game(variant)
        while game.outcome() is None and game.ply < 250:
            game.push(quiet_random_move(game, rng))
            (rich if is_rich(game.position) else plain).append(game.position)
    rich = rich[: count // 4]
    return rich + plain[: count - len(rich)]


@pytest.mark.parametrize("variant", ["international", "brazilian", "english"])
def test_same_legal_moves_as_pydraughts(variant):
    positions = random_positions(variant, POSITIONS_PER_VARIANT, seed=2026)
    with_kings = sum(1 for p in positions if p.kings)
    long_captures = 0
    for pos in positions:
        ours = our_moves(pos)
        assert ours == their_moves(pos), pos.fen()
        long_captures += any(len(c) >= 3 for _s, _e, c in ours)
    # the sample must exercise kings and long captures, or it proves little
    assert with_kings >= POSITIONS_PER_VARIANT // 4
    assert long_captures >= 10
