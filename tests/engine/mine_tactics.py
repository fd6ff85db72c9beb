"""Find and verify the tactical test positions of `tactics.py` (run by hand, not by pytest):

    .venv/bin/python tests/engine/mine_tactics.py --variant english --count 40 > /tmp/e.txt

Candidates are positions from games between noisy low levels of the built-in engine
(they blunder, so combinations appear) and, for the coup turc, random sparse positions
with a king against men. A candidate is kept when, for the side to move:

1. a material-only search (captures searched to the end) finds a move that gains at least
   MARGIN over the material on the board: men won (a shot) or a king made (a
   breakthrough);
2. every other move scores at least MARGIN less than it, at that depth and five plies
   deeper (a deeper horizon can show a second way to win): the solution is unique;
3. the position is roughly level (within two men) with men on the board; the solution is
   not a capture or a promotion and is not found by a 1-ply look (a move and the forced
   captures after it); it is a sacrifice, or it needs at least 3 plies;
4. a search two plies deeper agrees on the move and the gain, and an independent plain
   alpha-beta (written below: no transposition table, no move ordering, no reductions,
   no extensions) proves the gain of the move and that no other move reaches it.

The kind is read from the winning line: "coup turc" when a capture in its first four
plies (the combination proper, not the mopping up) is decided by the Turkish rule
(captured pieces stay on the board until the capture ends, so the capturing piece is
stopped by a piece it already took; detected by comparing with the
captures that would exist if taken pieces vanished at once); "shot" when the side ends the
line with more pieces ahead than it started; "breakthrough" when it does not, but makes a
king.
"""

from __future__ import annotations

import argparse
import random
import sys

from damas.engine import BuiltinEngine, Limit, Search
from damas.rules import Game, Position, variant
from damas.rules.bitboard import layout
from damas.rules.movegen import captures, children, rules_for

UNIQUE_EXTRA = 5  # the solution must stand out this many plies deeper too
TURC_PLIES = 4  # the Turkish rule must decide a capture this early to make a coup turc
MARGIN = 150  # 1.5 men: two men for one, or a king for a man (flying kings: 300 - 100)
DEPTH = {"international": 6, "brazilian": 8, "english": 8}
KING_VALUE = {"international": 300, "brazilian": 280, "english": 150}


def material(pos: Position, kv: int) -> int:
    (wk, wm), (bk, bm) = pos.material()
    diff = (wm - bm) * 100 + (wk - bk) * kv
    return diff if pos.turn == 0 else -diff


# --- the independent check: plain alpha-beta on the move generator --------------------


def plain_alphabeta(r, own, opp, kings, side, depth, alpha, beta, kv):
    """Material only; captures are searched to the end (they are compulsory)."""
    caps = captures(r, own, opp, kings, side)
    if not caps and depth <= 0:
        ok, pk = own & kings, opp & kings
        return (100 * ((own ^ ok).bit_count() - (opp ^ pk).bit_count())
                + kv * (ok.bit_count() - pk.bit_count()))
    kids = children(r, own, opp, kings, side)
    if not kids:
        return -100000
    best = -10 ** 6
    for o, p, k in kids:
        score = -plain_alphabeta(r, p, o, k, 1 - side, depth - 1, -beta, -alpha, kv)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    return best


def plain_proves(pos: Position, move, depth: int, kv: int) -> bool:
    """The move gains at least MARGIN and every other move stays MARGIN below it."""
    r = rules_for(pos.variant)
    side = int(pos.turn)

    def score(m, alpha, beta):
        after = pos.play(m)
        own, opp = (after.white, after.black) if after.turn == 0 else (after.black,
                                                                        after.white)
        return -plain_alphabeta(r, own, opp, after.kings, 1 - side, depth - 1, -beta, -alpha,
                                kv)

    best = score(move, -10 ** 6, 10 ** 6)
    if best < material(pos, kv) + MARGIN:
        return False
    bar = best - MARGIN  # others must not exceed it: a null window just above
    return all(score(m, bar, bar + 1) <= bar for m in pos.legal_moves() if m != move)


# --- the Turkish rule -----------------------------------------------------------------


def _step(x, d):
    return x << d if d > 0 else x >> -d


def _vanishing_flying(sq, opp, empty, dirs, taken, out):
    """Flying-king chains if every piece taken vanished at once (not our rules)."""
    extended = False
    for d in dirs:
        x = _step(sq, d)
        while x & empty:
            x = _step(x, d)
        if x & opp:
            land = _step(x, d)
            while land & empty:
                extended = True
                _vanishing_flying(land, opp & ~x, empty | x, dirs, taken | x, out)
                land = _step(land, d)
    if not extended and taken:
        out.add(taken)


def turkish_rule_decides(pos: Position) -> bool:
    """True when a king's capture here differs from what it would be if taken pieces
    vanished at once."""
    r = rules_for(pos.variant)
    if not r.flying:
        return False
    own, opp = (pos.white, pos.black) if pos.turn == 0 else (pos.black, pos.white)
    kings = own & pos.kings
    if not kings or not captures(r, own, opp, pos.kings, int(pos.turn)):
        return False
    real = {c[2] for c in captures(r, own, opp, pos.kings, int(pos.turn)) if c[0] & kings}
    vanishing: set[int] = set()
    empty = r.valid & ~(own | opp)
    k = kings
    while k:
        b = k & -k
        k ^= b
        _vanishing_flying(b, opp, empty | b, r.all_dirs, 0, vanishing)
    if r.maximum and vanishing:
        most = max(c.bit_count() for c in vanishing)
        vanishing = {c for c in vanishing if c.bit_count() == most}
        real_most = max((c.bit_count() for c in real), default=0)
        if real_most != most:
            return True
    return bool(real) and real != vanishing


# --- candidates and the test ----------------------------------------------------------


def verify(pos: Position, move, name: str) -> bool:
    """Criteria 2 and 4 for a move found at the mining depth: a deeper search agrees,
    the move gains MARGIN at the mining depth and UNIQUE_EXTRA plies deeper, where every
    other move stays MARGIN below it, and the plain alpha-beta proves the same."""
    kv, depth = KING_VALUE[name], DEPTH[name]
    base = material(pos, kv)
    deeper = Search(pos.variant, "material").run(pos, max_depth=depth + 2)
    if deeper.move != move or deeper.score < base + MARGIN:
        return False
    for d in (depth, depth + UNIQUE_EXTRA):
        def score(m, d=d):
            return -Search(pos.variant, "material").run(pos.play(m), max_depth=d - 1).score
        best = score(move)
        if best < base + MARGIN:
            return False
        if any(score(m) > best - MARGIN for m in pos.legal_moves() if m != move):
            return False
    return plain_proves(pos, move, depth, kv)


def recheck(fen: str, move_text: str, name: str) -> bool:
    """Check a listed position again with the criteria above (after they changed)."""
    pos = Position.from_fen(fen, name)
    return verify(pos, pos.parse_move(move_text), name)


def game_positions(name: str, rng: random.Random):
    """Positions from a game between two noisy low levels."""
    a = BuiltinEngine(name, level=rng.choice([1, 2, 3]), seed=rng.randrange(10 ** 9))
    b = BuiltinEngine(name, level=rng.choice([2, 3, 4]), seed=rng.randrange(10 ** 9))
    game = Game(name)
    while game.outcome() is None and game.ply < 160:
        engine = a if game.ply % 2 == 0 else b
        game.push(engine.play(game, Limit()).move)
        if game.ply >= 8:
            yield game.position


def sparse_positions(name: str, rng: random.Random):
    """A king (and a few men) of the side not to move against men: coup turc hunting."""
    v = variant(name)
    squares = list(range(1, v.squares + 1))
    while True:
        n_white = rng.randint(4, 8)
        n_black = rng.randint(1, 4)
        chosen = rng.sample(squares, n_white + n_black + 1)
        pieces = {}
        for sq in chosen[:n_white]:
            pieces[sq] = "w"
        for sq in chosen[n_white:-1]:
            pieces[sq] = "b"
        pieces[chosen[-1]] = "B"
        lay = layout(v.size)
        if any(p == "w" and lay.bit_of[sq] & lay.crown[0] for sq, p in pieces.items()):
            continue
        if any(p == "b" and lay.bit_of[sq] & lay.crown[1] for sq, p in pieces.items()):
            continue
        pos = Position.from_pieces(v, pieces, 0)
        if pos.legal_moves() and not pos.capture_required():
            yield pos


def examine(pos: Position, name: str):
    """The tactic in this position as (fen, move, kind, needs, gain), or None."""
    kv = KING_VALUE[name]
    depth = DEPTH[name]
    legal = pos.legal_moves()
    if len(legal) < 2 or pos.capture_required():
        return None
    base = material(pos, kv)
    if abs(base) > 200 or sum(n for side in pos.material() for n in side[1:]) < 4:
        return None  # a combination that decides a roughly level game, with men about
    search = Search(pos.variant, "material")
    quick = search.run(pos, max_depth=4)
    if quick.score < base + MARGIN or quick.score >= 9000:
        return None
    result = Search(pos.variant, "material").run(pos, max_depth=depth)
    move = result.move
    if result.score < base + MARGIN or move.captured or move.promotion:
        return None
    # 3. not a one-ply look
    if Search(pos.variant, "material").run(pos, max_depth=1).score >= base + MARGIN:
        return None
    # 2 and 4: unique, deeper agrees, the plain search proves it
    if not verify(pos, move, name):
        return None
    needs = depth
    for d in range(2, depth + 1):
        r = Search(pos.variant, "material").run(pos, max_depth=d)
        if r.score >= base + MARGIN and r.move == move:
            needs = d
            break
    sacrifice = pos.play(move).capture_required()
    if not sacrifice and needs < 3:
        return None  # a quiet move that simply wins: not much of a combination
    deeper = Search(pos.variant, "material").run(pos, max_depth=depth + 2)
    kind = classify(pos, deeper.pv)
    return pos.fen(), pos.notation(move), kind, needs, result.score - base


def classify(pos: Position, line) -> str:
    mover = pos.turn
    p = pos
    crowned = turkish = False
    for ply, m in enumerate(line):
        if ply < TURC_PLIES and turkish_rule_decides(p):
            turkish = True
        if p.turn == mover and m.promotion:
            crowned = True
        p = p.play(m)
    if turkish:
        return "coup turc"
    return "shot" if _pieces_ahead(p, mover) > _pieces_ahead(pos, mover) or not crowned \
        else "breakthrough"


def _pieces_ahead(pos: Position, colour) -> int:
    (wk, wm), (bk, bm) = pos.material()
    diff = wk + wm - bk - bm
    return diff if colour == 0 else -diff


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", required=True)
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--source", choices=["games", "sparse"], default="games")
    parser.add_argument("--max-candidates", type=int, default=200000)
    parser.add_argument("--kind", help="keep only this kind (e.g. 'coup turc')")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    found, seen, tried = 0, set(), 0
    while found < args.count and tried < args.max_candidates:
        source = (game_positions(args.variant, rng) if args.source == "games"
                  else sparse_positions(args.variant, rng))
        for pos in source:
            tried += 1
            if pos in seen:
                continue
            seen.add(pos)
            hit = examine(pos, args.variant)
            if hit and (args.kind is None or hit[2] == args.kind):
                found += 1
                print(repr(hit) + ",", flush=True)
                if args.source == "games":
                    break  # one a game keeps them varied
            if found >= args.count or tried >= args.max_candidates:
                break
            if args.source == "sparse" and tried % 5000 == 0:
                print(f"# tried {tried}", file=sys.stderr, flush=True)
    print(f"# {found} found in {tried} candidates", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
