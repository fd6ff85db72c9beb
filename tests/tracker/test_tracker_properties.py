"""Properties over random legal games of the three variants (issue 3):

- any order of the square changes that ends in the position after a legal move yields
  exactly that move and no irregularity;
- one wrong change injected yields `irregular` or `pending`, never a move.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from damas.rules import Game, Position
from damas.rules.tracker import Tracker
from damas.rules.tracker.board import Observation
from damas.rules.tracker.chains import capture_nodes

VARIANTS = ("international", "brazilian", "english")
SETTLE = 1.0
STEP = 0.1
FAST = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def random_game(name: str, seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    game = Game(name)
    while game.ply < plies and game.outcome() is None:
        game.push(rng.choice(game.legal_moves()))
    if game.outcome() is not None:
        game.pop()  # keep a position with a move to make
    return game


@st.composite
def game_and_move(draw):
    name = draw(st.sampled_from(VARIANTS))
    game = random_game(name, draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 80)))
    move = draw(st.sampled_from(game.legal_moves()))
    return game, move


def colour(piece):
    return piece.lower() if piece else None


def changes_of(before: Position, after: Position) -> list[tuple[int, str | None]]:
    """(square, piece after) for every square whose reading changes."""
    b, a = before.pieces(), after.pieces()
    return [(sq, a.get(sq)) for sq in sorted(set(b) | set(a)) if colour(b.get(sq)) != colour(
        a.get(sq))]


def feed(game: Game, steps) -> list:
    """Events after the setup, for the boards reached by applying `steps` one by one,
    then the board left alone."""
    tracker = Tracker(game=game, settle=SETTLE)
    v = game.variant
    pieces = dict(game.position.pieces())
    t = 0.0
    tracker.observe(Observation.from_pieces(v, pieces, t))
    setup = tracker.tick(t + SETTLE)
    assert [e.kind for e in setup] == ["setup"]
    t += SETTLE
    events = []
    for sq, piece in steps:
        if piece is None:
            pieces.pop(sq, None)
        else:
            pieces[sq] = piece
        t += STEP
        events += tracker.observe(Observation.from_pieces(v, pieces, t))
    events += tracker.tick(t + SETTLE)
    return events


@FAST
@given(game_and_move(), st.data())
def test_any_order_of_changes_yields_exactly_the_move(gm, data):
    game, move = gm
    after = game.position.play(move)
    order = data.draw(st.permutations(changes_of(game.position, after)))
    events = feed(game, order)
    kinds = {e.kind for e in events}
    assert kinds <= {"pending", "move"}, [e.to_dict() for e in events]
    moves = [e for e in events if e.kind == "move"]
    assert len(moves) == 1 and moves[0].move == move
    assert moves[0].fen == after.fen()


@FAST
@given(game_and_move(), st.data())
def test_one_misread_square_never_invents_a_move(gm, data):
    """A legal move made with one square read wrong on the way or at the end (and on
    every board after: a misread that stays): the game outvotes the misread, or takes the
    board as irregular, or waits for boards that tell the stories apart, but no other
    move is ever recorded."""
    game, move = gm
    after = game.position.play(move)
    order = list(data.draw(st.permutations(changes_of(game.position, after))))
    squares = range(1, game.variant.squares + 1)
    sq = data.draw(st.sampled_from(squares))
    final = colour(after.pieces().get(sq))
    wrong = data.draw(st.sampled_from([c for c in (None, "w", "b") if c != final]))
    # the wrong change comes after the legal change of that square, if there is one
    earliest = next((i + 1 for i, (s, _) in enumerate(order) if s == sq), 0)
    at = data.draw(st.integers(earliest, len(order)))
    order.insert(at, (sq, wrong))
    events = feed(game, order)
    played = [e.move for e in events if e.kind == "move"]
    assert all(m == move for m in played), [e.to_dict() for e in events]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1), st.integers(0, 80))
def test_complete_capture_chains_are_the_legal_captures(name, seed, plies):
    """The tracker's chain walk agrees with move generation: its complete chains (the
    longest, where the maximum rule holds) are exactly the legal captures."""
    pos = random_game(name, seed, plies).position
    side = int(pos.turn)
    own, opp = (pos.black, pos.white) if side else (pos.white, pos.black)
    nodes = capture_nodes(pos.rules, own, opp, pos.kings, side)
    complete = [n for n in nodes.values() if n.complete]
    if pos.rules.maximum and complete:
        most = max(n.count for n in complete)
        complete = [n for n in complete if n.count == most]
    lay = pos.layout
    walked = {(lay.square_of[n.start], lay.square_of[n.landing],
               frozenset(lay.squares(n.captured))) for n in complete}
    legal = {(m.start, m.end, frozenset(m.captured)) for m in pos.legal_moves() if m.captured}
    assert walked == legal
