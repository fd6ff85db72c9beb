"""Errors of the robot stage that a user can cause or must act on."""

from damas.rules.errors import DamasError


class RobotError(DamasError):
    """Base of the robot stage's errors."""


class MachineFileError(RobotError):
    """A machine description that is missing, malformed or inconsistent."""


class PlanError(RobotError):
    """The planner cannot carry out a move: no path, a full tray, an empty reserve."""
