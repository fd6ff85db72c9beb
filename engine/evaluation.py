"""Static evaluation per variant, side-relative: `evaluate(own, opp, kings, side)` scores
the position for the side to move, in hundredths of a man (a man is 100).

Called at every leaf of the search, so it is built once per variant as a closure over
precomputed tables: the per-square terms (advancement, centre, edges) are summed with
four table look-ups per side (each table covers a chunk of the bitboard), the rest are a
few popcounts. Terms:

- material, with the variant's king value;
- advancement and tempo, centre and edges (per-square table of the men);
- balance: men spread evenly over the two wings;
- back-rank guard: men kept on the squares that stop the opponent crowning, worth less
  as the opponent's men disappear;
- mobility and locked men: free forward steps; a side whose men are all locked and who
  has no king has no move at all and loses;
- runaway men: a man whose way to the crown row is empty of opponent pieces, when the
  opponent has no king to catch it;
- kings: centre (one-square kings) or the long diagonal (flying kings);
- endings: the side ahead gains by trading (its edge counts more as pieces come off);
  with one-square kings and few pieces, its kings should close in on the opponent's
  pieces; the flying-king endings the draw rules end early (three pieces or fewer
  against a king) are scored close to 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from damas.rules import Variant
from damas.rules.bitboard import layout
from damas.rules.geometry import geometry
from damas.rules.movegen import rules_for

CHUNKS = 4  # table look-ups per bitboard


@dataclass(frozen=True)
class Weights:
    man: int = 100
    king: int = 300
    advance: tuple[int, ...] = ()  # by rows advanced from the own back row
    centre: int = 2  # per column closer to the middle
    edge: int = -4  # on the left or right edge
    back_guard: int = 12  # per guard man, while the opponent has all his men
    balance: int = -3  # per man of difference between the wings
    mobility: int = 2  # per free forward step of a man
    locked: int = -4  # per man that can't step forward
    runaway: tuple[int, ...] = ()  # by rows still to go: 1, 2, 3
    king_alone_bonus: int = 40  # a king when the opponent has none
    king_square: int = 6  # king on the long diagonal (flying) or per step to the centre
    trade_when_ahead: int = 4  # the lead times this / (pieces on the board + 4)
    chase: int = 0  # one-square kings, few pieces: per step between the lead's kings and
    # the nearest opponent piece


def weights_for(variant: Variant) -> Weights:
    if variant.size == 10:
        return Weights(king=300, advance=(0, 1, 2, 4, 6, 8, 11, 15, 20, 0),
                       back_guard=10, runaway=(180, 120, 60))
    if variant.flying_kings:  # brazilian
        return Weights(king=280, advance=(0, 2, 4, 7, 10, 14, 20, 0),
                       back_guard=12, runaway=(160, 100, 50))
    return Weights(king=150, advance=(0, 2, 4, 6, 9, 13, 18, 0), centre=2, edge=-3,
                   back_guard=14, runaway=(45, 30, 15), king_alone_bonus=20, king_square=3,
                   chase=6)


def _back_guard_squares(size: int, side: int) -> list[int]:
    """The men on the own back row that guard the crowning squares."""
    if size == 10:
        white = [47, 48, 49]
    else:
        white = [30, 32]  # the "bridge" of English and Brazilian play
    if side == 0:
        return white
    squares = size * size // 2
    return [squares + 1 - s for s in white]


@dataclass(frozen=True)
class Tables:
    size: int
    chunk_bits: int
    men: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]  # side, chunk
    guard: tuple[int, int]
    left: int
    right: int
    zone: tuple[int, int]  # squares 1..3 rows from crowning, per side
    cone: tuple[dict[int, int], dict[int, int]]  # side -> bit -> squares ahead
    to_go: tuple[dict[int, int], dict[int, int]]  # side -> bit -> rows to the crown row
    kings: tuple[tuple[int, ...], ...]  # per chunk, either colour
    row_col: dict[int, tuple[int, int]]  # bit -> (row, column)


def _chunk_tables(values: dict[int, int], chunk_bits: int) -> tuple[tuple[int, ...], ...]:
    """For each chunk, the table chunk value -> sum of the values of its set bits."""
    out = []
    for c in range(CHUNKS):
        base = c * chunk_bits
        table = [0] * (1 << chunk_bits)
        for v in range(1, 1 << chunk_bits):
            low = v & -v
            table[v] = table[v ^ low] + values.get(low.bit_length() - 1 + base, 0)
        out.append(tuple(table))
    return tuple(out)


@cache
def tables_for(size: int, w: Weights, flying: bool) -> Tables:
    lay, g = layout(size), geometry(size)
    chunk_bits = -(-lay.valid.bit_length() // CHUNKS)
    men, cones, to_go, zones = [], [], [], []
    for side in (0, 1):
        values = {}
        cone, go = {}, {}
        zone = 0
        for sq in g.all_squares:
            row, col = g.row_col(sq)
            rows_up = (size - 1 - row) if side == 0 else row  # 0 on the own back row
            centre = int((size - 1) / 2 - abs(col - (size - 1) / 2))
            v = w.advance[rows_up] + w.centre * centre
            if col in (0, size - 1):
                v += w.edge
            bit = lay.bit_of[sq]
            values[bit.bit_length() - 1] = v
            rows_left = size - 1 - rows_up
            go[bit] = rows_left
            if 1 <= rows_left <= 3:
                zone |= bit
            ahead = 0  # the triangle in front of the man, up to the crown row
            for r2 in range(size):
                dist = (row - r2) if side == 0 else (r2 - row)
                if dist <= 0:
                    continue
                for c2 in range(col - dist, col + dist + 1):
                    s2 = g.square_at(r2, c2)
                    if s2 is not None:
                        ahead |= lay.bit_of[s2]
            cone[bit] = ahead
        men.append(_chunk_tables(values, chunk_bits))
        cones.append(cone)
        to_go.append(go)
        zones.append(zone)
    left = right = 0
    for sq in g.all_squares:
        _, col = g.row_col(sq)
        if col < size // 2:
            left |= lay.bit_of[sq]
        else:
            right |= lay.bit_of[sq]
    guard = tuple(lay.mask(_back_guard_squares(size, s)) for s in (0, 1))
    king_values, row_col = {}, {}
    for sq in g.all_squares:
        row, col = g.row_col(sq)
        bit = lay.bit_of[sq]
        row_col[bit] = (row, col)
        if flying:
            v = w.king_square if row + col == size - 1 else 0
        else:  # steps from the edge, up to the middle
            v = w.king_square * min(row, col, size - 1 - row, size - 1 - col)
        king_values[bit.bit_length() - 1] = v
    # one entry per side, White then Black
    return Tables(size, chunk_bits, (men[0], men[1]), (guard[0], guard[1]), left, right,
                  (zones[0], zones[1]), (cones[0], cones[1]), (to_go[0], to_go[1]),
                  _chunk_tables(king_values, chunk_bits), row_col)


LOST = 9500  # score of a side with no move at a leaf (counted as a win score)


def make_evaluator(variant: Variant, kind: str = "full"):
    """The evaluation function of a variant: kind "full" or "material"."""
    w = weights_for(variant)
    king_value, man_value = w.king, w.man
    if kind == "material":
        def material(own, opp, kings, side):
            ok, pk = own & kings, opp & kings
            return (man_value * ((own ^ ok).bit_count() - (opp ^ pk).bit_count())
                    + king_value * (ok.bit_count() - pk.bit_count()))
        return material
    if kind != "full":
        raise ValueError(f"unknown evaluation {kind!r} (full or material)")

    t = tables_for(variant.size, w, variant.flying_kings)
    r = rules_for(variant)
    flying = variant.flying_kings
    cb = t.chunk_bits
    mask = (1 << cb) - 1
    s1, s2, s3 = cb, 2 * cb, 3 * cb
    (w0, w1, w2, w3), (b0, b1, b2, b3) = t.men
    tables = ((w0, w1, w2, w3), (b0, b1, b2, b3))
    guard, left, right = t.guard, t.left, t.right
    zone, cone, to_go = t.zone, t.cone, t.to_go
    k0, k1, k2, k3 = t.kings
    row_col = t.row_col
    trade, chase = w.trade_when_ahead, w.chase
    fwd = r.forward
    valid = r.valid
    total_men = variant.start_rows * variant.size // 2
    run = w.runaway
    wbal, wmob, wlock, wg = w.balance, w.mobility, w.locked, w.back_guard

    def side_terms(men, side, opp_all, empty, opp_men, opp_has_kings):
        """Everything about one side's men that is summed, for that side."""
        t0, t1, t2, t3 = tables[side]
        v = t0[men & mask] + t1[(men >> s1) & mask] + t2[(men >> s2) & mask] + t3[men >> s3]
        d1, d2 = fwd[side]
        if d1 < 0:
            free1, free2 = (men >> -d1) & empty, (men >> -d2) & empty
            movable = men & ((empty << -d1) | (empty << -d2))
        else:
            free1, free2 = (men << d1) & empty, (men << d2) & empty
            movable = men & ((empty >> d1) | (empty >> d2))
        mob = free1.bit_count() + free2.bit_count()
        v += wmob * mob + wlock * (men ^ movable).bit_count()
        v += wbal * abs((men & left).bit_count() - (men & right).bit_count())
        v += wg * (men & guard[side]).bit_count() * opp_men // total_men
        if not opp_has_kings:
            runners = men & zone[side]
            while runners:
                b = runners & -runners
                runners ^= b
                if not cone[side][b] & opp_all:
                    v += run[to_go[side][b] - 1]
        return v, mob

    def evaluate(own, opp, kings, side):
        ok, pk = own & kings, opp & kings
        om, pm = own ^ ok, opp ^ pk
        n_ok, n_pk, n_om, n_pm = ok.bit_count(), pk.bit_count(), om.bit_count(), pm.bit_count()
        empty = valid & ~(own | opp)
        mine, my_mob = side_terms(om, side, opp, empty, n_pm, n_pk)
        theirs, their_mob = side_terms(pm, 1 - side, own, empty, n_om, n_ok)
        if not n_ok and not my_mob:
            return -LOST  # called with no capture on the board: no move at all
        lead = man_value * (n_om - n_pm) + king_value * (n_ok - n_pk)
        score = lead + mine - theirs
        pieces = n_ok + n_pk + n_om + n_pm
        score += int(lead * trade / (pieces + 4))
        if ok:
            score += k0[ok & mask] + k1[(ok >> s1) & mask] + k2[(ok >> s2) & mask] + k3[ok >> s3]
            if not pk:
                score += w.king_alone_bonus
        if pk:
            score -= k0[pk & mask] + k1[(pk >> s1) & mask] + k2[(pk >> s2) & mask] + k3[pk >> s3]
            if not ok:
                score -= w.king_alone_bonus
        if chase and pieces <= 8 and lead:
            if lead > 0 and ok:
                score -= chase * _distance_to(ok, opp, row_col)
            elif lead < 0 and pk:
                score += chase * _distance_to(pk, own, row_col)
        if flying and (score > 0 and n_pk and n_ok + n_om <= 3
                       or score < 0 and n_ok and n_pk + n_pm <= 3):
            score = int(score / 4)  # drawn unless a shot: the draw rules end these endings early
        return score

    return evaluate


def _distance_to(kings: int, targets: int, row_col: dict[int, tuple[int, int]]) -> int:
    """Sum over the kings of the steps (king moves) to the nearest target piece."""
    spots = []
    t = targets
    while t:
        b = t & -t
        t ^= b
        spots.append(row_col[b])
    if not spots:
        return 0
    total = 0
    while kings:
        b = kings & -kings
        kings ^= b
        r, c = row_col[b]
        total += min(max(abs(r - r2), abs(c - c2)) for r2, c2 in spots)
    return total
