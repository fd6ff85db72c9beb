"""The native core from Python: perft and legal moves of a `damas.rules.Position` in C.

The C sources are in `engine/native/`; `pip install` builds them into the extension
`damas.engine._core` (setup.py). The pure-Python `damas.rules` stays the reference: the
tracker, files and protocols use it, and the tests check the two agree.

>>> from damas.rules import Position
>>> from damas.engine import native
>>> native.perft(Position.start("international"), 4)
4265
>>> [m.short for m in native.legal_moves(Position.start("english"))][:3]
['9-13', '10-14', '11-15']

A Position's bitboards go to C as they are (the same layout on both sides), so a call
costs a few microseconds beyond its work.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from damas.rules import Move, Position, Variant
from damas.rules import perft as rules_perft
from damas.rules.variant import BackRowInCapture, CaptureChoice


def _load() -> ModuleType | None:
    try:
        from damas.engine import _core
    except ImportError:
        return None
    return _core


_core = _load()


def available() -> bool:
    """Whether the extension is built (`pip install -e .` builds it)."""
    return _core is not None


def module() -> ModuleType:
    """The extension, or an ImportError that says how to build it."""
    if _core is None:
        raise ImportError("the native core damas.engine._core is not built: "
                          "pip install -e . builds it (it needs gcc and Python's headers)")
    return _core


@cache
def rules_flags(v: Variant) -> int:
    """The variant's rules as the flags the C core reads."""
    core = module()
    flags = core.RULE_SIZE10 if v.size == 10 else 0
    if v.men_capture_backwards:
        flags |= core.RULE_BACKWARDS
    if v.flying_kings:
        flags |= core.RULE_FLYING
    if v.capture_choice is CaptureChoice.MAXIMUM:
        flags |= core.RULE_MAXIMUM
    if v.back_row_in_capture is BackRowInCapture.CROWNS_AND_STOPS:
        flags |= core.RULE_STOPS
    return flags


def perft(position: Position, depth: int, fallback: bool = True) -> int:
    """The leaves of the legal-move tree, counted as `damas.rules.perft` counts them.

    The core holds 256 distinct captures a position; below a position with more (none is
    known from play, only from pieces set up for it) the count is damas.rules', or with
    `fallback=False` an OverflowError."""
    try:
        return module().perft(rules_flags(position.variant), position.white, position.black,
                              position.kings, int(position.turn), depth)
    except OverflowError:
        if not fallback:
            raise
        return rules_perft(position, depth)


def legal_moves(position: Position, fallback: bool = True) -> list[Move]:
    """The legal moves as `damas.rules.Move`s: one route for each distinct capture (the
    pure-Python generator may give another route to the same result; moves compare by
    start, end and captured set). Beyond what the core holds: damas.rules' moves."""
    try:
        raw = module().moves(rules_flags(position.variant), position.white, position.black,
                             position.kings, int(position.turn))
    except OverflowError:
        if not fallback:
            raise
        return position.legal_moves()
    return [Move(path, captured, promotion) for path, captured, promotion in raw]
