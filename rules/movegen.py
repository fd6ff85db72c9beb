"""Legal move generation on bitboards (the hot path of perft, the tracker and the engine).

Everything here works on plain ints, side-relative: `own` and `opp` are the pieces of the
side to move and of its opponent, `kings` the kings of both. A capture is returned as
`(start_bit, end_bit, captured_mask, path_bits, captured_bits_in_jump_order)`; a quiet
move as `(start_bit, end_bit)`. Position and Move wrap these for everyone else.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .bitboard import layout
from .variant import BackRowInCapture, CaptureChoice, Variant


@dataclass(frozen=True)
class Rules:
    """What move generation needs to know of a variant, as bit masks and shifts."""

    valid: int
    forward: tuple[tuple[int, int], tuple[int, int]]  # per side: the two forward shifts
    man_capture_dirs: tuple[tuple[int, ...], tuple[int, ...]]  # per side
    all_dirs: tuple[int, int, int, int]
    crown: tuple[int, int]  # promotion row per side
    flying: bool
    maximum: bool
    crown_stops: bool  # a man reaching the back row in a capture is crowned and stops


@cache
def rules_for(variant: Variant) -> Rules:
    lay = layout(variant.size)
    h = lay.half
    up, down = (-h, -(h + 1)), (h, h + 1)
    all_dirs = (*up, *down)
    men_dirs = (all_dirs, all_dirs) if variant.men_capture_backwards else (up, down)
    return Rules(
        valid=lay.valid,
        forward=(up, down),
        man_capture_dirs=men_dirs,
        all_dirs=all_dirs,
        crown=lay.crown,
        flying=variant.flying_kings,
        maximum=variant.capture_choice is CaptureChoice.MAXIMUM,
        crown_stops=variant.back_row_in_capture is BackRowInCapture.CROWNS_AND_STOPS,
    )


def _step(x: int, d: int) -> int:
    return x << d if d > 0 else x >> -d


def _short_jumps(sq, captured, path, order, opp, empty, dirs, stop, out):
    """Depth-first capture chains of a man (or a one-square king) from `sq`."""
    extended = False
    for d in dirs:
        over = _step(sq, d)
        if over & opp and not over & captured:
            land = _step(over, d)
            if land & empty:
                extended = True
                if land & stop:
                    out.append((path + (land,), order + (over,), captured | over))
                else:
                    _short_jumps(land, captured | over, path + (land,), order + (over,),
                                 opp, empty, dirs, stop, out)
    if not extended and order:
        out.append((path, order, captured))


def _flying_jumps(sq, captured, path, order, opp, empty, dirs, out):
    """Depth-first capture chains of a flying king. Captured pieces stay on the board
    until the move ends (000 §4.11), so they block the way and cannot be jumped twice."""
    extended = False
    for d in dirs:
        x = _step(sq, d)
        while x & empty:
            x = _step(x, d)
        if x & opp and not x & captured:
            land = _step(x, d)
            while land & empty:
                extended = True
                _flying_jumps(land, captured | x, path + (land,), order + (x,), opp, empty,
                              dirs, out)
                land = _step(land, d)
    if not extended and order:
        out.append((path, order, captured))


def captures(r: Rules, own: int, opp: int, kings: int, side: int) -> list:
    """Every legal capture: complete chains, duplicates (same start, end and captured set)
    merged, and only the longest where the variant demands the maximum."""
    empty = r.valid & ~(own | opp)
    men = own & ~kings
    chains: list = []
    dirs = r.man_capture_dirs[side]
    stop = r.crown[side] if r.crown_stops else 0
    capturers = 0
    for d in dirs:
        capturers |= _step(opp, -d) & _step(empty, -2 * d)
    capturers &= men
    while capturers:
        b = capturers & -capturers
        capturers ^= b
        _short_jumps(b, 0, (b,), (), opp, empty | b, dirs, stop, chains)
    k = own & kings
    while k:
        b = k & -k
        k ^= b
        if r.flying:
            _flying_jumps(b, 0, (b,), (), opp, empty | b, r.all_dirs, chains)
        else:
            _short_jumps(b, 0, (b,), (), opp, empty | b, r.all_dirs, 0, chains)
    if not chains:
        return chains
    if r.maximum:
        most = max(len(c[1]) for c in chains)
        chains = [c for c in chains if len(c[1]) == most]
    seen = {}
    for path, order, captured in chains:
        key = (path[0], path[-1], captured)
        if key not in seen:
            seen[key] = (path[0], path[-1], captured, path, order)
    return list(seen.values())


def quiet_moves(r: Rules, own: int, opp: int, kings: int, side: int) -> list:
    empty = r.valid & ~(own | opp)
    out = []
    men = own & ~kings
    for d in r.forward[side]:
        targets = _step(men, d) & empty
        while targets:
            b = targets & -targets
            targets ^= b
            out.append((_step(b, -d), b))
    k = own & kings
    if k:
        dirs = r.all_dirs
        while k:
            b = k & -k
            k ^= b
            for d in dirs:
                x = _step(b, d) & empty
                while x:
                    out.append((b, x))
                    if not r.flying:
                        break
                    x = _step(x, d) & empty
    return out


def has_capture(r: Rules, own: int, opp: int, kings: int, side: int) -> bool:
    return bool(captures(r, own, opp, kings, side))


def count_moves(r: Rules, own: int, opp: int, kings: int, side: int) -> int:
    """Number of legal moves, without building the quiet ones (perft's last ply)."""
    caps = captures(r, own, opp, kings, side)
    if caps:
        return len(caps)
    empty = r.valid & ~(own | opp)
    men = own & ~kings
    n = 0
    for d in r.forward[side]:
        n += (_step(men, d) & empty).bit_count()
    k = own & kings
    if k:
        for d in r.all_dirs:
            x = _step(k, d) & empty
            while x:
                n += x.bit_count()
                if not r.flying:
                    break
                x = _step(x, d) & empty
    return n


def children(r: Rules, own: int, opp: int, kings: int, side: int) -> list:
    """(own, opp, kings) of every position after a legal move, from the mover's side:
    the caller swaps own and opp for the next ply."""
    out = []
    crown = r.crown[side]
    caps = captures(r, own, opp, kings, side)
    if caps:
        for frm, to, captured, _path, _order in caps:
            k = kings & ~captured
            if k & frm:
                k = (k ^ frm) | to
            elif to & crown:
                k |= to
            out.append((own ^ frm ^ to, opp & ~captured, k))
        return out
    for frm, to in quiet_moves(r, own, opp, kings, side):
        if kings & frm:
            k = (kings ^ frm) | to
        elif to & crown:
            k = kings | to
        else:
            k = kings
        out.append((own ^ frm ^ to, opp, k))
    return out


def perft(r: Rules, own: int, opp: int, kings: int, side: int, depth: int) -> int:
    if depth <= 0:
        return 1
    if depth == 1:
        return count_moves(r, own, opp, kings, side)
    total = 0
    for o, p, k in children(r, own, opp, kings, side):
        total += perft(r, p, o, k, 1 - side, depth - 1)
    return total
