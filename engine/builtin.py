"""The built-in engine: `Search` behind the `Engine` interface, with levels and time
management.

>>> from damas.rules import Position
>>> engine = BuiltinEngine("english")
>>> engine.play(Position.from_fen("B:W18,27:B14", "english"), Limit(depth=3)).move.short
'14x32'
"""

from __future__ import annotations

import random
import time

from damas.rules import Game, Position, Variant
from damas.rules import variant as get_variant

from . import timecontrol
from .base import Engine, InfoCallback, as_game, position_to_play
from .levels import level as get_level
from .limits import NO_LIMIT, Info, Limit, PlayResult
from .search import Search

DEFAULT_MOVETIME = 1.0  # seconds, when a level that uses time is given no time at all


class BuiltinEngine(Engine):
    """Options given here (level, depth, nodes, movetime) are the engine's own settings:
    they fill the limits a `play` call leaves open, so `builtin:level=3` plays at level 3
    under any clock a match gives it."""

    def __init__(self, variant: Variant | str, *, level: int | None = None,
                 depth: int | None = None, nodes: int | None = None,
                 movetime: float | None = None, evaluation: str = "full",
                 seed: int | None = None, name: str | None = None, tt_mb: int = 32,
                 threads: int = 1):
        self.variant = get_variant(variant)
        get_level(level)  # check it now, not at the first move
        self.defaults = Limit(depth=depth, nodes=nodes, movetime=movetime, level=level)
        # a player: it keeps a level game going rather than simplify into a dead draw
        self.search = Search(self.variant, evaluation, tt_mb, threads, contempt=True)
        self.rng = random.Random(seed)
        self.name = name or "damas"

    def play(self, game: Game | Position, limit: Limit = NO_LIMIT,
             on_info: InfoCallback | None = None) -> PlayResult:
        game = as_game(game)
        position = position_to_play(game)
        limit = _merge(limit, self.defaults)
        lv = get_level(limit.level)
        started = time.perf_counter()
        depths = [d for d in (limit.depth, lv.max_depth) if d is not None]
        timed = limit.is_timed
        if not timed and not depths and limit.nodes is None:
            limit = Limit(movetime=DEFAULT_MOVETIME, level=limit.level)
            timed = True
        legal = position.legal_moves()
        if len(legal) == 1 and timed and limit.depth is None:
            info = Info(0, 0, 0, 0.0, (legal[0],), (position.notation(legal[0]),))
            # forced: answer at once, save the clock
            return PlayResult(legal[0], info, None, {"nodes": 0, "seconds": 0.0})
        soft, hard = timecontrol.budget(limit, lv.time_share)
        result = self.search.run(
            position, history=game.positions[:-1],
            max_depth=min(depths) if depths else 99, max_nodes=limit.nodes,
            soft_deadline=started + soft if soft is not None else None,
            hard_deadline=started + hard if hard is not None else None,
            on_info=on_info, noise=lv.noise, rng=self.rng, ending_run=game.plies_in_ending())
        assert result.move is not None  # position_to_play saw a legal move
        info = result.infos[-1] if result.infos else Info(
            result.depth, result.score, result.nodes, result.seconds, result.pv,
            (position.notation(result.move),))
        ponder = result.pv[1] if len(result.pv) > 1 else None
        return PlayResult(result.move, info, ponder,
                          {"nodes": result.nodes, "seconds": result.seconds})

    def stop(self) -> None:
        self.search.stop()

    def new_game(self) -> None:
        self.search.clear()


def _merge(limit: Limit, defaults: Limit) -> Limit:
    """The call's limit, with the engine's own settings where the call says nothing."""
    own = {k: v for k, v in vars(defaults).items() if v is not None and k != "inc"}
    given = {k: v for k, v in vars(limit).items()}
    for k, v in own.items():
        if given.get(k) is None:
            given[k] = v
    return Limit(**given)
