"""A camera feed that notices when the camera goes away, and can open it again.

`CameraFeed(spec).read()` gives the next frame, None at the end of a recording (a video
file, a folder, one image), and raises `CameraLost` when a live camera (an index such as
`0`, or a stream URL with `://`) cannot be opened, stops giving frames, or gives the very
same frame for `frozen_after` seconds (a hung driver or a dead stream repeats its last
frame). `reopen()` tries once to open it again.

Only live sources can be lost: a recording that ends has ended, and a missing file is a
typo that will not come back, so it raises `SourceError` (the CLI says so and exits 2).
Frozen frames are only looked for in live sources: a real sensor always adds some noise,
so byte-identical frames mean a stuck camera, while a recording (or the noiseless
renderer) may repeat a frame legitimately.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator

import numpy as np

from damas.rules import DamasError

from .errors import SourceError
from .sources import is_index, open_source


class CameraLost(DamasError):
    """A live camera gives no (new) frames; `cause` is "unavailable", "stopped" or
    "frozen"."""

    def __init__(self, message: str, spec: str, cause: str):
        super().__init__(message)
        self.spec = spec
        self.cause = cause


def is_live(spec: str) -> bool:
    return is_index(spec) or "://" in spec


def _signature(frame: np.ndarray) -> bytes:
    # every 4th pixel each way: cheap, and sensor noise still changes it every frame
    view = np.ascontiguousarray(frame[::4, ::4])
    return hashlib.blake2b(view.tobytes(), digest_size=16).digest()


class CameraFeed:
    def __init__(self, spec: str, *, frozen_after: float = 5.0,
                 clock: Callable[[], float] = time.monotonic,
                 opener: Callable[[str], Iterator[np.ndarray]] = open_source):
        self.spec = str(spec)
        self.live = is_live(self.spec)
        self.frozen_after = frozen_after
        self.clock = clock
        self.opener = opener
        self._frames: Iterator[np.ndarray] | None = None
        self._ahead: np.ndarray | None = None  # the frame reopen() read to check
        self._ended = False
        self._fresh = True  # opened, no frame given yet
        self._signature: bytes | None = None
        self._same_since = 0.0

    def __repr__(self) -> str:
        return f"CameraFeed({self.spec!r})"

    @property
    def name(self) -> str:
        return f"camera {self.spec}" if self.live else self.spec

    def _lost(self, cause: str, detail: str) -> CameraLost:
        self.close()
        return CameraLost(f"{self.name} {detail}", self.spec, cause)

    def _unavailable(self, error: SourceError | OSError) -> CameraLost:
        return self._lost("unavailable", f"cannot be opened ({error}): check it is "
                                         "plugged in and the index or address is right "
                                         f"(damas doctor --camera {self.spec})")

    def _open(self) -> None:
        self.close()
        self._ended, self._signature, self._fresh = False, None, True
        try:
            self._frames = iter(self.opener(self.spec))
        except SourceError as e:
            if not self.live:
                raise
            raise self._unavailable(e) from None

    def _next(self) -> np.ndarray | None:
        assert self._frames is not None  # _open made them, or raised
        try:
            frame = next(self._frames)
        except StopIteration:
            if self.live:
                raise self._lost("stopped", "stopped giving frames: check its cable, "
                                            "power or network") from None
            self._ended = True
            self.close()
            return None
        except (SourceError, OSError) as e:
            if not self.live:
                raise
            if self._fresh:  # a capture opens on its first read (sources.capture_frames)
                raise self._unavailable(e) from None
            raise self._lost("stopped", f"failed ({e}): check its cable, power or "
                                        "network") from None
        self._fresh = False
        return frame

    def read(self) -> np.ndarray | None:
        """The next frame; None once a recording has ended; CameraLost (live only)."""
        if self._ended:
            return None
        frame = self._ahead
        if frame is not None:  # reopen() read it
            self._ahead = None
        else:
            if self._frames is None:
                self._open()
            frame = self._next()
            if frame is None:
                return None
        if self.live:
            self._check_frozen(frame)
        return frame

    def _check_frozen(self, frame: np.ndarray) -> None:
        now = self.clock()
        signature = _signature(frame)
        if signature != self._signature:
            self._signature, self._same_since = signature, now
        elif now - self._same_since >= self.frozen_after:
            raise self._lost("frozen", f"shows the very same frame for "
                                       f"{now - self._same_since:.0f} s (frozen): unplug "
                                       "it and plug it in again")

    def check_recording(self) -> None:
        """A recording (not a live camera) is opened and its first frame read now, so
        that a file that is not there is the user's error before anything starts
        (SourceError); a live camera may come later, and a session waits for it."""
        if not self.live:
            self.reopen()

    def reopen(self) -> bool:
        """Try once to open the source again; True when it gave a frame (the next read
        returns it), False while it is still gone."""
        self._ahead = None
        try:
            self._open()
            frame = self._next()
        except CameraLost:
            return False
        if frame is None:
            return False
        self._ahead = frame
        return True

    def close(self) -> None:
        """Let go of the device (a generator's `finally` releases the capture)."""
        frames, self._frames = self._frames, None
        close = getattr(frames, "close", None)
        if close is not None:
            close()
