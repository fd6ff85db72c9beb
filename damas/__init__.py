"""damas: a controller for physical draughts boards."""

__version__ = "0.1.0"
