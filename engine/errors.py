"""Errors an engine can cause. All are `DamasError`s, so the CLI prints them on one line
and exits with status 2; the game the engine was asked about is never modified."""

from damas.rules.errors import DamasError


class EngineError(DamasError):
    """Base of every engine failure."""


class EngineSpecError(EngineError):
    """An engine spec (`builtin:level=5`, `hub:/path`, `dxp:host:port`) that can't be used."""


class EngineCrashed(EngineError):
    """The engine process or connection went away."""


class EngineTimeout(EngineError):
    """The engine did not answer in time (it was stopped, and killed if need be)."""


class EngineIllegalMove(EngineError):
    """The engine answered a move that is not legal in the position it was given."""


class EngineProtocolError(EngineError):
    """The engine said something the protocol does not allow (e.g. refused a game)."""


class EngineEndedGame(DamasError):
    """The engine ended the game instead of moving (DXP's GAMEEND): a result, not a
    fault. `claim` is from the engine's side: win, loss, draw or unknown (Scan ends a
    game so at the move count of the game request)."""

    def __init__(self, message: str, claim: str):
        super().__init__(message)
        self.claim = claim
