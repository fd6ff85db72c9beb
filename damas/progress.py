"""Progress of long work (the demo, the benches) on stderr, so stdout stays the result.

On a terminal it is a tqdm bar (tqdm: one small pure-Python package with no dependencies
of its own, which draws a bar that redraws in place, with rate and time left); anywhere
else (a log, CI, a pipe) it is a plain line now and then, which a log keeps readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """`with Progress("bench vision", total=2000, unit="frame") as p: p.update(1, note)`."""

    def __init__(self, what: str, total: int | None = None, unit: str = "step", *,
                 stream: TextIO | None = None, every: float = 10.0):
        self.what = what
        self.total = total
        self.unit = unit
        self.stream = stream or sys.stderr
        self.every = every  # seconds between plain lines
        self.done = 0
        self.note = ""
        self._bar = None
        self._last_line = time.monotonic()
        if _is_terminal(self.stream):
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=what, unit=unit, file=self.stream,
                             dynamic_ncols=True, leave=False)

    def update(self, steps: int = 1, note: str = "") -> None:
        self.done += steps
        self.note = note or self.note
        if self._bar is not None:
            if note:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(steps)
            return
        now = time.monotonic()
        if now - self._last_line >= self.every or self.done == self.total:
            self._last_line = now
            self._line()

    def write(self, text: str) -> None:
        """A line of its own that does not break the bar."""
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def _line(self) -> None:
        of = f" of {self.total:,}" if self.total else ""
        note = f" ({self.note})" if self.note else ""
        units = "plies" if self.unit == "ply" else f"{self.unit}s"
        print(f"{self.what}: {self.done:,}{of} {units}{note}", file=self.stream,
              flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or file-less stream
        return False
