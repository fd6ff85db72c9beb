"""An immutable position on integer bitboards, with its legal moves.

>>> p = Position.start("international")
>>> p.fen()
'W:W31-50:B1-20'
>>> len(p.legal_moves())
9
>>> p.play(p.parse_move("32-28")).fen()
'B:W28,31,33-50:B1-20'
"""

from __future__ import annotations

from .bitboard import Layout, layout
from .errors import IllegalMoveError, NotationError
from .fen import parse_fen, write_fen
from .geometry import clip, geometry
from .move import Move
from .movegen import Rules, captures, quiet_moves, rules_for
from .variant import Color, Variant
from .variant import variant as get_variant

PIECES = "wbWB"


class Position:
    __slots__ = ("variant", "white", "black", "kings", "turn", "_legal")

    variant: Variant
    white: int
    black: int
    kings: int
    turn: Color
    _legal: tuple[Move, ...] | None  # generated on first use

    def __init__(self, variant: Variant | str, white: int, black: int, kings: int, turn: int):
        """From bitboards in the layout of `damas.rules.bitboard`; see `from_pieces` for
        squares."""
        v = get_variant(variant)
        for name, value in (("variant", v), ("white", white), ("black", black),
                            ("kings", kings), ("turn", Color(turn)), ("_legal", None)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError("Position is immutable; play() returns a new one")

    # --- construction -------------------------------------------------------------

    @classmethod
    def start(cls, variant: Variant | str) -> Position:
        v = get_variant(variant)
        lay = layout(v.size)
        rows = v.start_rows * v.size // 2
        black = lay.mask(range(1, rows + 1))
        white = lay.mask(range(v.squares - rows + 1, v.squares + 1))
        return cls(v, white, black, 0, v.first_to_move)

    @classmethod
    def from_pieces(cls, variant: Variant | str, pieces: dict[int, str], turn: int) -> Position:
        """From {square: 'w'|'b'|'W'|'B'}."""
        v = get_variant(variant)
        g = geometry(v.size)
        bit = layout(v.size).bit_of
        white = black = kings = 0
        for square, piece in pieces.items():
            g.check(square)
            if piece not in PIECES:
                raise ValueError(f"unknown piece {piece!r} on {square}")
            b = bit[square]
            if piece in "wW":
                white |= b
            else:
                black |= b
            if piece.isupper():
                kings |= b
        return cls(v, white, black, kings, turn)

    @classmethod
    def from_fen(cls, fen: str, variant: Variant | str) -> Position:
        v = get_variant(variant)
        turn, pieces = parse_fen(fen, v)
        return cls.from_pieces(v, pieces, turn)

    # --- reading ------------------------------------------------------------------

    @property
    def layout(self) -> Layout:
        return layout(self.variant.size)

    @property
    def rules(self) -> Rules:
        return rules_for(self.variant)

    def piece(self, square: int) -> str | None:
        """'w', 'b', 'W', 'B' or None."""
        geometry(self.variant.size).check(square)
        b = self.layout.bit_of[square]
        if self.white & b:
            return "W" if self.kings & b else "w"
        if self.black & b:
            return "B" if self.kings & b else "b"
        return None

    def pieces(self) -> dict[int, str]:
        lay = self.layout
        out = {}
        for colour, mask in (("w", self.white), ("b", self.black)):
            for sq in lay.squares(mask):
                out[sq] = colour.upper() if self.kings & lay.bit_of[sq] else colour
        return dict(sorted(out.items()))

    def fen(self) -> str:
        """PDN 3.0 FEN; Brazilian squares are algebraic, as PDN GameType 26 writes them."""
        return write_fen(int(self.turn), self.pieces(), self.variant.notation)

    def material(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """((kings, men) of White, (kings, men) of Black)."""
        k = self.kings
        return (((self.white & k).bit_count(), (self.white & ~k).bit_count()),
                ((self.black & k).bit_count(), (self.black & ~k).bit_count()))

    def _sides(self) -> tuple[int, int]:
        return (self.white, self.black) if self.turn == Color.WHITE else (self.black, self.white)

    # --- moves --------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        legal = self._legal
        if legal is None:
            legal = tuple(self._generate())
            object.__setattr__(self, "_legal", legal)
        return list(legal)

    def _generate(self):
        r, lay = self.rules, self.layout
        own, opp = self._sides()
        side = int(self.turn)
        crown = r.crown[side]
        sq = lay.square_of
        caps = captures(r, own, opp, self.kings, side)
        if caps:
            for frm, to, _captured, path, order in caps:
                yield Move(tuple(sq[b] for b in path), tuple(sq[b] for b in order),
                           bool(to & crown and not self.kings & frm))
            return
        for frm, to in quiet_moves(r, own, opp, self.kings, side):
            yield Move((sq[frm], sq[to]), (), bool(to & crown and not self.kings & frm))

    def capture_required(self) -> bool:
        own, opp = self._sides()
        return bool(captures(self.rules, own, opp, self.kings, int(self.turn)))

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()

    def play(self, move: Move) -> Position:
        """The position after a legal move (checked)."""
        legal = self.legal_moves()
        if move not in legal:
            raise IllegalMoveError(f"{move.long} is not legal in {self.fen()}")
        return self.after(legal[legal.index(move)])

    def after(self, move: Move) -> Position:
        """The position after `move`, unchecked: the move must be one of `legal_moves()`
        (use `play` for a checked move)."""
        bit = self.layout.bit_of
        frm, to = bit[move.start], bit[move.end]
        captured = 0
        for s in move.captured:
            captured |= bit[s]
        white, black = self.white, self.black
        if self.turn == Color.WHITE:
            white, black = white ^ frm ^ to, black & ~captured
        else:
            black, white = black ^ frm ^ to, white & ~captured
        kings = self.kings & ~captured
        if kings & frm:
            kings = (kings ^ frm) | to
        elif move.promotion:
            kings |= to
        return Position(self.variant, white, black, kings, 1 - self.turn)

    # --- notation -----------------------------------------------------------------

    def notation(self, move: Move) -> str:
        """PDN short form, or the long form when another legal move shares start and end."""
        twins = [m for m in self.legal_moves() if m.start == move.start and m.end == move.end]
        return move.long if len(twins) > 1 else move.short

    def parse_move(self, text: str) -> Move:
        """A legal move from `32-28`, `28x19`, `28x19x8` (landing squares: some of ours, or
        every one of another route a flying king may take) or the Hub form `28x19x23`
        (start, end, captured squares). Squares may be algebraic on 8x8."""
        g = geometry(self.variant.size)
        raw = text.strip().rstrip("!?+#*").strip() if isinstance(text, str) else ""
        parts = raw.replace(":", "x").replace("X", "x").replace("-", "x").split("x")
        if len(parts) < 2 or not all(parts):
            raise NotationError(f"{clip(str(text))!r} is not a move (e.g. 32-28, 28x19 or "
                                "28x19x8)")
        try:
            squares = [g.parse(p) for p in parts]
        except Exception as e:
            raise NotationError(str(e)) from None
        start, end, middle = squares[0], squares[-1], squares[1:-1]
        hub_start, hub_end, hub_captured = squares[0], squares[1], set(squares[2:])
        matches = []
        for m in self.legal_moves():
            as_path = m.start == start and m.end == end and _is_subsequence(middle, m.path[1:-1])
            as_hub = (len(squares) > 2 and m.start == hub_start and m.end == hub_end
                      and set(m.captured) == hub_captured)
            as_route = (not as_path and len(squares) > 2 and m.start == start and m.end == end
                        and self._is_route(m, squares))
            if as_path or as_hub or as_route:
                matches.append(m)
        if not matches:
            raise NotationError(f"{clip(text)!r} is not a legal move in {self.fen()}")
        if len(matches) > 1:
            options = ", ".join(m.long for m in matches)
            raise NotationError(f"{clip(text)!r} is ambiguous here: {options}")
        return matches[0]

    def _is_route(self, move: Move, landings: list[int]) -> bool:
        """Whether `landings` (start to end) is a way to make the capture `move`: each leg
        on a diagonal, over exactly one of its captured pieces (which stay on the board
        until the end, so none is jumped twice), onto an empty square."""
        g = geometry(self.variant.size)
        occupied = set(self.pieces()) - {move.start}
        flying = self.variant.flying_kings and self.piece(move.start) in ("W", "B")
        left = set(move.captured)
        for a, b in zip(landings, landings[1:], strict=False):
            (ra, ca), (rb, cb) = g.row_col(a), g.row_col(b)
            n = abs(rb - ra)
            if n != abs(cb - ca) or n < 2 or (n > 2 and not flying) or b in occupied:
                return False
            dr, dc = (rb - ra) // n, (cb - ca) // n
            between = [g.square_at(ra + k * dr, ca + k * dc) for k in range(1, n)]
            jumped = [sq for sq in between if sq in occupied]
            if len(jumped) != 1 or jumped[0] not in left:
                return False
            left.discard(jumped[0])
        return not left

    # --- value semantics ----------------------------------------------------------

    def _key(self) -> tuple:
        return (self.white, self.black, self.kings, int(self.turn), self.variant.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Position({self.variant.name!r}, {self.fen()!r})"

    def diagram(self) -> str:
        """Text diagram seen from White's side: pieces as w b W B, empty dark squares by
        their number."""
        size = self.variant.size
        g = geometry(size)
        pieces = self.pieces()
        lines = []
        for row in range(size):
            cells = []
            for col in range(size):
                sq = g.square_at(row, col)
                if sq is None:
                    cells.append("  .")
                else:
                    cells.append(f"  {pieces[sq]}" if sq in pieces else f"{sq:>3}")
            lines.append("".join(cells))
        lines.append(f"{'White' if self.turn == Color.WHITE else 'Black'} to move")
        return "\n".join(lines)

    __str__ = diagram


def _is_subsequence(needle, haystack) -> bool:
    it = iter(haystack)
    return all(x in it for x in needle)
