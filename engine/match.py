"""Engine matches: each opening is played twice with the colours swapped, on a clock, and
the result is wins/draws/losses from engine A's side with the Elo difference and its 95 %
error bar.

>>> round(elo(60, 20, 20)[0])
147
>>> parse_time_control("1/move")
MatchTimeControl(movetime=1.0, base=None, inc=0.0)
>>> parse_time_control("60+0.5")
MatchTimeControl(movetime=None, base=60.0, inc=0.5)
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from damas.rules import Color, DamasError, Game, Position, Variant
from damas.rules import variant as get_variant

from .base import Engine
from .errors import EngineEndedGame, EngineError
from .limits import Limit

DEFAULT_MAX_PLIES = 400  # a game still going after this many plies is adjudicated a draw


@dataclass(frozen=True)
class MatchTimeControl:
    movetime: float | None = None  # seconds per move, or
    base: float | None = None  # a clock: seconds for the game ...
    inc: float = 0.0  # ... plus this after each move

    def limit(self, remaining: float | None) -> Limit:
        if self.movetime is not None:
            return Limit(movetime=self.movetime)
        if self.base is not None:
            return Limit(time=remaining, inc=self.inc)
        return Limit()


def parse_time_control(text: str | None) -> MatchTimeControl:
    """`1/move` (seconds per move), `60+0.5` (seconds for the game + increment), `300`
    (seconds for the game), or `none` (the engines' own limits, e.g. builtin:depth=4)."""
    if text is None or text.strip().lower() in ("", "none"):
        return MatchTimeControl()
    t = text.strip().lower()
    try:
        if t.endswith("/move"):
            return MatchTimeControl(movetime=float(t[:-5].rstrip("s")))
        base, _, inc = t.partition("+")
        return MatchTimeControl(base=float(base), inc=float(inc or 0))
    except ValueError:
        raise DamasError(f"time control {text!r}: write 1/move, 60+0.5, 300 or none") from None


@dataclass
class GameRecord:
    number: int
    opening: str
    a_colour: Color
    game: Game
    result: str  # the variant's result text, e.g. "2-0"
    reason: str
    a_score: float  # 1, 0.5 or 0


@dataclass
class MatchResult:
    a: str
    b: str
    records: list[GameRecord] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return sum(r.a_score == 1 for r in self.records)

    @property
    def draws(self) -> int:
        return sum(r.a_score == 0.5 for r in self.records)

    @property
    def losses(self) -> int:
        return sum(r.a_score == 0 for r in self.records)

    def summary(self) -> dict:
        e, err = elo(self.wins, self.draws, self.losses)
        n = len(self.records)
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses,
                "elo": round(e, 1), "elo_error": round(err, 1), "games": n,
                "score": round((self.wins + 0.5 * self.draws) / n, 4) if n else None,
                "engine_a": self.a, "engine_b": self.b}


def elo(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """Elo difference and the half-width of its 95 % interval (normal approximation of
    the mean game score). A perfect or null score has no finite estimate: the score is
    then taken half a game away from it, so the figure is a bound, not infinity."""
    n = wins + draws + losses
    if n == 0:
        return 0.0, 0.0
    p = (wins + 0.5 * draws) / n
    p = min(max(p, 0.5 / n), 1 - 0.5 / n)
    variance = (wins * (1 - p) ** 2 + draws * (0.5 - p) ** 2 + losses * p ** 2) / n
    sd = math.sqrt(variance / n)

    def to_elo(x: float) -> float:
        x = min(max(x, 1e-6), 1 - 1e-6)
        return -400 * math.log10(1 / x - 1)

    low, high = max(p - 1.96 * sd, 0.5 / n), min(p + 1.96 * sd, 1 - 0.5 / n)
    return to_elo(p), (to_elo(high) - to_elo(low)) / 2


# --- openings ---------------------------------------------------------------------------


def default_openings(variant: Variant | str, seed: int = 1) -> list[Game]:
    """Every position after one move of each side, in a fixed shuffled order."""
    v = get_variant(variant)
    start = Position.start(v)
    games, seen = [], set()
    for first in start.legal_moves():
        after = start.play(first)
        for second in after.legal_moves():
            g = Game(v)
            g.push(first)
            g.push(second)
            if g.position not in seen:
                seen.add(g.position)
                games.append(g)
    random.Random(seed).shuffle(games)
    return games


def read_openings(text: str, variant: Variant | str) -> list[Game]:
    """One opening a line: a FEN, or moves from the start position; `#` comments."""
    v = get_variant(variant)
    out = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            if ":" in line and line[0] in "WBwb":
                out.append(Game(v, fen=line))
            else:
                g = Game(v)
                for token in line.replace(".", " ").split():
                    if not token.isdigit():
                        g.push(token)
                out.append(g)
        except DamasError as e:
            raise DamasError(f"openings line {number}: {e}") from None
    if not out:
        raise DamasError("the openings file has no opening")
    return out


def opening_text(game: Game) -> str:
    return " ".join(game.notations()) if not game.is_setup else game.start.fen()


# --- playing ----------------------------------------------------------------------------


def play_game(white: Engine, black: Engine, opening: Game, tc: MatchTimeControl,
              max_plies: int = DEFAULT_MAX_PLIES,
              clock: Callable[[], float] = time.monotonic) -> tuple[Game, str, Color | None, str]:
    """Play from the opening to the end: (game, result, winner, reason). `clock` reads
    the time in seconds (a test may give its own)."""
    game = Game(start=opening.start)
    for m in opening.moves:
        game.push(m)
    engines = {Color.WHITE: white, Color.BLACK: black}
    clocks = {c: tc.base for c in Color}
    for e in engines.values():
        e.new_game()
    results = game.variant.results
    while True:
        outcome = game.outcome()
        if outcome is not None:
            return game, outcome.result, outcome.winner, outcome.reason
        if game.ply >= max_plies:
            return game, results[2], None, f"adjudicated after {max_plies} plies"
        side = game.position.turn
        engine = engines[side]
        started = clock()
        try:
            result = engine.play(game, tc.limit(clocks[side]))
        except EngineEndedGame as e:  # a result: resigned, claimed, or its move count
            winner = {"win": side, "loss": side.opponent}.get(e.claim)
            reason = f"{engine.name} ended the game: " + {
                "win": "claims a win", "loss": "resigns", "draw": "claims a draw",
                "unknown": "no result given (a draw)"}[e.claim]
            return game, results[2] if winner is None else results[winner], winner, reason
        except EngineError as e:
            raise EngineError(f"{e} [{engine.name}, {'White' if side == 0 else 'Black'}, "
                              f"ply {game.ply + 1}]") from None
        used = clock() - started
        left = clocks[side]
        if left is not None:
            left -= used
            if left < 0:
                winner = side.opponent
                return game, results[winner], winner, "time forfeit"
            clocks[side] = left + tc.inc
        game.push(result.move)


def run_match(engine_a: Engine, engine_b: Engine, variant: Variant | str, games: int,
              tc: MatchTimeControl, openings: list[Game] | None = None,
              max_plies: int = DEFAULT_MAX_PLIES,
              on_game: Callable[[GameRecord], None] | None = None) -> MatchResult:
    """`games` games (an odd count ends with one opening played once): each opening
    twice, engine A White first then Black."""
    v = get_variant(variant)
    openings = openings or default_openings(v)
    match = MatchResult(engine_a.name, engine_b.name)
    for number in range(games):
        opening = openings[(number // 2) % len(openings)]
        a_colour = Color.WHITE if number % 2 == 0 else Color.BLACK
        white, black = (engine_a, engine_b) if a_colour == Color.WHITE else (engine_b,
                                                                              engine_a)
        game, result, winner, reason = play_game(white, black, opening, tc, max_plies)
        score = 0.5 if winner is None else (1.0 if winner == a_colour else 0.0)
        record = GameRecord(number + 1, opening_text(opening), a_colour, game, result, reason,
                            score)
        match.records.append(record)
        if on_game is not None:
            on_game(record)
    return match
