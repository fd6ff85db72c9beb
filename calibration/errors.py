"""Errors of the calibration stage a user can cause."""

from damas.rules import DamasError


class CalibrationError(DamasError):
    """A calibration that cannot be made, read or used (what to do is in the message)."""


class CalibrationVersionError(CalibrationError):
    """A calibration file written by another version of its format."""
