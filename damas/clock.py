"""A chess clock for draughts: time controls of seed 004 with Fischer increments.

Pure: time comes in as arguments (seconds on any monotonic scale), so a session, a
replayed journal and a test all drive it the same way.

>>> c = Clock(parse_time_control("3+2"))
>>> c.start(0.0, WHITE)
>>> c.press(10.0)              # White moved after 10 s and gains the 2 s increment
>>> c.remaining(WHITE, 10.0), c.remaining(BLACK, 15.0)
(172.0, 175.0)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from damas.rules import BLACK, WHITE, Color, DamasError

# Seed 004 §5: blitz 3 or 5 minutes, rapid 15, semi-rapid 21 or 30, classical 45 and more.
CLASSES = (("blitz", 0, 10), ("rapid", 10, 21), ("semi-rapid", 21, 45), ("classical", 45, 1e9))


@dataclass(frozen=True)
class TimeControl:
    minutes: float
    increment: float = 0.0  # seconds added after each move (Fischer)

    @property
    def seconds(self) -> float:
        return self.minutes * 60

    @property
    def kind(self) -> str:
        """The seed 004 class, judged by the base time."""
        return next(name for name, lo, hi in CLASSES if lo <= self.minutes < hi)

    def __str__(self) -> str:
        return f"{self.minutes:g}+{self.increment:g}"


def parse_time_control(text: str) -> TimeControl:
    """`45+0`, `3+2`, `15` (minutes, then increment seconds)."""
    match = re.fullmatch(r"\s*(\d{1,4}(?:\.\d{1,3})?)\s*(?:\+\s*(\d{1,4}(?:\.\d{1,3})?))?\s*",
                         text or "", re.ASCII)  # ASCII: no other scripts' digits
    if not match or float(match.group(1)) <= 0:
        raise DamasError(f"time control {text!r}: give minutes and an optional increment in "
                         "seconds, e.g. 45+0, 5+3, 15")
    return TimeControl(float(match.group(1)), float(match.group(2) or 0))


class Clock:
    def __init__(self, control: TimeControl):
        self.control = control
        self.left = {WHITE: control.seconds, BLACK: control.seconds}
        self.running: Color | None = None
        self.since = 0.0
        self.paused = False

    def start(self, now: float, side: Color) -> None:
        self.running = side
        self.since = now

    def remaining(self, side: Color, now: float) -> float:
        left = self.left[side]
        if side == self.running and not self.paused:
            left -= now - self.since
        return max(0.0, left)

    def press(self, now: float) -> None:
        """The side on move pressed its clock: its time stops, it gains the increment."""
        if self.running is None:
            return
        self.resume(now)
        side = self.running
        self.left[side] = self.remaining(side, now) + self.control.increment
        self.running = side.opponent
        self.since = now

    def pause(self, now: float) -> None:
        """Stop both clocks (a device is gone, the arbiter stopped the game)."""
        if self.running is not None and not self.paused:
            self.left[self.running] = self.remaining(self.running, now)
            self.paused = True

    def resume(self, now: float) -> None:
        if self.paused:
            self.paused = False
            self.since = now

    def flagged(self, now: float) -> Color | None:
        """The side whose time has run out, if any."""
        if self.running is not None and self.remaining(self.running, now) <= 0:
            return self.running
        return None

    def state(self, now: float) -> dict:
        return {"white": round(self.remaining(WHITE, now), 1),
                "black": round(self.remaining(BLACK, now), 1),
                "running": None if self.running is None else
                ("white" if self.running == WHITE else "black"),
                "control": str(self.control)}


def clock_comment(state: dict) -> str:
    """The PDN clock command of a `Clock.state()`: both sides in h:mm:ss, the side whose
    clock runs in capitals, as lidraughts and the PDN 3.0 extensions write it
    (pdn.fmjd.org, "clock command"): `[%clock w0:09:58 B0:10:00]`.

    >>> clock_comment({"white": 598.2, "black": 600.0, "running": "black"})
    '[%clock w0:09:59 B0:10:00]'
    """
    sides = []
    for side in ("white", "black"):
        letter = side[0].upper() if state.get("running") == side else side[0]
        seconds = int(max(0.0, state[side]) + 0.999)  # shown as a clock shows it: 0.2 s is 1
        h, rest = divmod(seconds, 3600)
        sides.append(f"{letter}{h}:{rest // 60:02d}:{rest % 60:02d}")
    return f"[%clock {' '.join(sides)}]"


def format_clock(seconds: float) -> str:
    seconds = int(seconds + 0.999)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
