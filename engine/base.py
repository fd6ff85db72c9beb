"""The one interface every engine sits behind (python-chess style): `play(game, limit)`
answers a `PlayResult` with a legal move; `stop()` asks for the answer now; `close()`
ends it. The built-in search, a Hub subprocess, a DXP peer and the random mover are all
`Engine`s, so the session, `damas think` and `damas match` don't care which is which.

An engine never modifies the game it is given; when it fails (crashes, hangs, answers an
illegal move) it raises an `EngineError` and the caller's game is exactly as before.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from damas.rules import Game, Move, Position

from .errors import EngineError, EngineIllegalMove
from .limits import NO_LIMIT, Info, Limit, PlayResult

InfoCallback = Callable[[Info], None]


def as_game(game_or_position: Game | Position) -> Game:
    if isinstance(game_or_position, Game):
        return game_or_position
    return Game(start=game_or_position)


class Engine(ABC):
    name: str = "engine"

    @abstractmethod
    def play(self, game: Game | Position, limit: Limit = NO_LIMIT,
             on_info: InfoCallback | None = None) -> PlayResult:
        """Think about the game's current position and answer a legal move."""

    def choose(self, game: Game | Position, limit: Limit = NO_LIMIT) -> Move:
        """Just the move."""
        return self.play(game, limit).move

    # Optional hooks: an engine without a process, connection or memory has nothing to do.
    def stop(self) -> None:  # noqa: B027
        """Ask a `play` running in another thread to answer now (best move so far)."""

    def new_game(self) -> None:  # noqa: B027
        """The next position belongs to another game (forget what was learned)."""

    def close(self) -> None:  # noqa: B027
        """Release the process, connection or threads behind the engine."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def position_to_play(game: Game) -> Position:
    """The position to move in, or an EngineError when the game has no move left."""
    pos = game.position
    if not pos.legal_moves():
        raise EngineError(f"no legal move to choose in {pos.fen()}: the game is over")
    return pos


def checked_move(position: Position, text_or_move: str | Move, engine_name: str) -> Move:
    """The legal move an engine answered, or EngineIllegalMove saying what it said."""
    if isinstance(text_or_move, Move):
        if text_or_move in position.legal_moves():
            legal = position.legal_moves()
            return legal[legal.index(text_or_move)]
        shown = text_or_move.long
    else:
        shown = text_or_move
        try:
            return position.parse_move(text_or_move)
        except EngineError:
            raise
        except Exception:
            pass
    raise EngineIllegalMove(f"engine {engine_name} answered {shown!r}, which is not a legal "
                            f"move in {position.fen()}; the game is unchanged")
