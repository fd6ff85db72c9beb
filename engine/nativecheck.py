"""The native core against `damas.rules` on random positions: the same legal moves (start,
end, captured set, promotion), no move twice, every route a legal way to make its
capture, and on a share of them the same perft(2) (which plays every move: kings, crowns).

Half the positions come from random games (the reference generator's moves), half are
pieces dropped at random with many kings: crowded boards where flying kings take long
chains. `damas bench native` runs 100,000 a variant; the tests a few thousand.

>>> report = compare("brazilian", 200, seed=1)
>>> report["positions"], report["mismatches"]
(200, 0)
"""

from __future__ import annotations

import random
from typing import Any

from damas.rules import Position, Variant, perft, variant
from damas.rules.bitboard import layout

from . import native


def random_placement(v: Variant, rng: random.Random) -> Position:
    """Pieces dropped at random: 1 to 20 (12) a side, a random share of kings, no man on
    the row it would be crowned on."""
    lay = layout(v.size)
    squares = list(range(1, v.squares + 1))
    rng.shuffle(squares)
    most = v.start_rows * v.size // 2
    counts = (rng.randint(1, most), rng.randint(1, most))
    king_share = rng.choice((0.0, 0.2, 0.5, 0.8))
    crown_rows = (set(range(1, v.size // 2 + 1)),
                  set(range(v.squares - v.size // 2 + 1, v.squares + 1)))
    boards = [0, 0]
    kings = 0
    for side in (0, 1):
        for _ in range(counts[side]):
            sq = squares.pop()
            king = rng.random() < king_share or sq in crown_rows[side]
            boards[side] |= lay.bit_of[sq]
            if king:
                kings |= lay.bit_of[sq]
    return Position(v, boards[0], boards[1], kings, rng.randint(0, 1))


def random_positions(v: Variant, count: int, rng: random.Random):
    """`count` positions: from random games and dropped at random, alternately."""
    made = 0
    pos = Position.start(v)
    plies = 0
    while made < count:
        if made % 2:
            yield random_placement(v, rng)
        else:
            yield pos
            moves = pos.legal_moves()
            if not moves or plies > 200:
                pos, plies = Position.start(v), 0
            else:
                pos, plies = pos.after(rng.choice(moves)), plies + 1
        made += 1


def differences(pos: Position) -> list[str]:
    """What the native core gets wrong in `pos`: nothing when it agrees."""
    try:
        theirs = native.legal_moves(pos, fallback=False)
    except OverflowError:
        return ["more moves than the native core holds"]
    ours = pos.legal_moves()
    out = []
    key = {(m.start, m.end, frozenset(m.captured), m.promotion) for m in theirs}
    ref = {(m.start, m.end, frozenset(m.captured), m.promotion) for m in ours}
    if key != ref:
        out.append(f"moves: native has {sorted(map(str, key - ref))}, lacks "
                   f"{sorted(map(str, ref - key))}")
    if len(key) != len(theirs):
        out.append("a move listed twice")
    for m in theirs:
        if m.captured and not pos._is_route(m, list(m.path)):
            out.append(f"{m.long} is not a route of its capture")
    return out


def compare(name: str | Variant, count: int, seed: int = 0, perft_every: int = 10,
            ) -> dict[str, Any]:
    """Counts over `count` random positions; `mismatches` must be 0. perft(2) is
    compared on every `perft_every`-th position (0: never)."""
    v = variant(name)
    rng = random.Random(seed)
    report: dict[str, Any] = {"variant": v.name, "positions": 0, "mismatches": 0,
                              "with_kings": 0, "captures": 0, "king_captures": 0,
                              "chains_of_3": 0, "longest_chain": 0, "perft2_checked": 0,
                              "first_mismatch": None}
    for i, pos in enumerate(random_positions(v, count, rng)):
        wrong = differences(pos)
        if perft_every and i % perft_every == 0:
            report["perft2_checked"] += 1
            try:
                counted = native.perft(pos, 2, fallback=False)
            except OverflowError:
                counted = -1
            if counted != perft(pos, 2):
                wrong.append(f"perft(2) {counted}, not {perft(pos, 2)}")
        report["positions"] += 1
        if wrong:
            report["mismatches"] += 1
            if report["first_mismatch"] is None:
                report["first_mismatch"] = f"{pos.fen()}: {'; '.join(wrong)}"
        moves = pos.legal_moves()
        report["with_kings"] += bool(pos.kings)
        if moves and moves[0].captured:
            report["captures"] += 1
            report["king_captures"] += any(pos.kings & pos.layout.bit_of[m.start]
                                           for m in moves)
            longest = max(len(m.captured) for m in moves)
            report["chains_of_3"] += longest >= 3
            report["longest_chain"] = max(report["longest_chain"], longest)
    return report
