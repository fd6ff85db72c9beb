"""Errors of the vision stage that a user can cause (all are DamasError: the CLI prints
the message on one line and exits 2)."""

from damas.rules import DamasError


class VisionError(DamasError):
    """Something in the camera pipeline that the user can fix."""


class BoardNotFound(VisionError):
    """No board in the frame; the message says why (too small, no checker pattern...)."""


class BoardOfAnotherSize(BoardNotFound):
    """The squares in view make a board of another size than the variant's."""


class SourceError(VisionError):
    """A frame source that cannot be opened or read (bad path, unreadable image, camera)."""


class OrientationUnknown(VisionError):
    """The board is found but nothing says where White sits."""
