"""The settle detector: passes a reading on only when the board has been still for a few
frames and nothing covers it.

Stillness is frame differencing on the reader's own samples (a few thousand pixels over
squares, light squares and frame): the change between two frames is compared with the
change noise alone makes, learned from the quietest frames seen. A hand over the board,
even a still one, shows as light squares or frame cells that no longer look like
themselves (`Reading.hand`), and no reading is passed on while it does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .read import Reading

if TYPE_CHECKING:
    from .pipeline import BoardReader

# a frame moved when a sample changed by this many times the noise (a robust z-score)
MOTION_Z = 8.0


@dataclass(frozen=True)
class SettleState:
    settled: bool
    moving: bool
    hand: bool
    still_frames: int


class SettleDetector:
    """Feed it every frame's samples and reading; `update` returns the reading when the
    board has settled on it (once per settled position), else None."""

    def __init__(self, still_frames: int = 3):
        self.still_frames = still_frames
        self._previous: np.ndarray | None = None
        self._noise: float | None = None
        self._still = 0
        self._candidate: Reading | None = None
        self._last_passed: dict | None = None
        self.state = SettleState(False, True, False, 0)

    @property
    def settled_reading(self) -> Reading | None:
        """The reading the board is settled on now (every frame it stays so), or None."""
        return self._candidate if self.state.settled else None

    def _moved(self, vector: np.ndarray) -> bool:
        if self._previous is None or self._previous.shape != vector.shape:
            self._previous = vector
            return True
        change = np.abs(vector - self._previous)
        self._previous = vector
        typical = float(np.median(change)) + 0.25
        # the noise level follows the quiet frames only, so a moving hand can't raise it
        if self._noise is None:
            self._noise = typical
        elif typical < 2 * self._noise:
            self._noise = 0.9 * self._noise + 0.1 * typical
        limit = MOTION_Z * 1.4826 * self._noise + 6.0
        return bool((change > limit).any())

    def update(self, motion_vector: np.ndarray, reading: Reading) -> Reading | None:
        moving = self._moved(np.asarray(motion_vector, np.float32))
        hand = reading.hand or not reading.board_found
        if moving or hand or self._candidate is None or \
                reading.squares != self._candidate.squares:
            self._still = 0 if (moving or hand) else 1
            self._candidate = None if hand else reading
        else:
            self._still += 1
        settled = self._still >= self.still_frames and not hand
        self.state = SettleState(settled, moving, hand, self._still)
        if settled and self._candidate is not None and \
                self._candidate.squares != self._last_passed:
            self._last_passed = dict(self._candidate.squares)
            return self._candidate
        return None


@dataclass(frozen=True)
class Look:
    """One frame as the settle loop saw it."""

    reading: Reading  # what this frame shows
    new: Reading | None  # a board the detector has just settled on (once per position)
    settled: Reading | None  # the board settled on now, every frame it stays so


class SettleLoop:
    """The one frame -> settled reading loop: the reader reads each frame, the detector
    judges its motion, and every newly settled reading teaches the reader's colour model
    the current light. The watch of the play session and the recorder both use it."""

    def __init__(self, reader: BoardReader, still_frames: int = 3):
        self.reader = reader
        self.detector = SettleDetector(still_frames)

    def look(self, frame: np.ndarray) -> Look:
        reading = self.reader.read(frame)
        new = self.detector.update(self.reader.motion_vector(), reading)
        if new is not None:
            self.reader.settled(new)
        return Look(reading, new, self.detector.settled_reading)

    def restart(self) -> None:
        """Only frames from now on count (the machine just moved)."""
        self.detector = SettleDetector(self.detector.still_frames)


def settled_readings(frames: Iterable[np.ndarray], reader: BoardReader,
                     detector: SettleDetector | None = None) -> Iterator[Reading]:
    """Yield each settled reading of a stream of frames (a `sources` iterator)."""
    loop = SettleLoop(reader)
    if detector is not None:
        loop.detector = detector
    for frame in frames:
        new = loop.look(frame).new
        if new is not None:
            yield new
