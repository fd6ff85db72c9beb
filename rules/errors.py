"""Errors a user can cause. Every stage raises a subclass of DamasError; the CLI prints
its message on one line and exits with status 2."""


class DamasError(Exception):
    """Base of every error a user can cause (bad input, missing device, ...)."""


class VariantError(DamasError):
    """An unknown or ill-defined variant."""


class SquareError(DamasError):
    """A square number or name that does not exist on the board."""


class FenError(DamasError):
    """A malformed FEN string."""


class NotationError(DamasError):
    """A move text that is malformed or names no legal move."""


class IllegalMoveError(DamasError):
    """A move that is not legal in the position it is played in."""


class PdnError(DamasError):
    """A PDN file that cannot be read; carries the line and column of the problem."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"line {line}, column {column}: {message}")
        self.line = line
        self.column = column
        self.reason = message
