"""What a GRBL 1.1 controller says, one line at a time, as plain values.

`parse_reply(line)` never raises: a line it cannot read is `noise` (line noise, a
corrupted `ok`, another device on the port). Codes are read only when they are short
numbers, so `error:` followed by thousands of digits is an unreadable code, not a crash.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_LINE = 300  # GRBL's longest line ($$ values, [GC:...]) is well under this
CODE = re.compile(r"^(error|ALARM):(\d{1,6})$")
BANNER = re.compile(r"^Grbl (\S{1,20})")
SETTING = re.compile(r"^\$(\d{1,3})=(-?\d{1,9}(?:\.\d{0,6})?)$")
NUMBER = re.compile(r"^-?\d{1,9}(?:\.\d{0,6})?$")
XYZ = tuple[float, float, float]

# GRBL 1.1's own wording for the codes a board robot can meet
ERRORS = {
    1: "expected a command letter", 2: "bad number format", 3: "invalid $ statement",
    4: "negative value", 5: "homing is disabled", 6: "step pulse under 3 microseconds",
    7: "EEPROM read failed, settings restored to defaults",
    8: "$ command only valid when idle", 9: "G-code locked out during alarm or jog",
    10: "soft limits need homing enabled", 11: "line too long",
    12: "step rate too high", 13: "safety door open",
    14: "line too long for the buffer", 15: "travel exceeded",
    16: "invalid jog command", 17: "laser mode needs PWM output",
    20: "unsupported or invalid command", 21: "two commands of one modal group",
    22: "feed rate undefined", 23: "value must be an integer",
    24: "two commands need the axis words", 25: "a word repeated in the line",
    26: "no axis words", 27: "invalid line number", 28: "value word missing",
    33: "invalid motion target", 36: "unused value words",
    38: "LED index or colour above its maximum",  # our firmware's M150 (GRBL: tool number)
}
ALARMS = {
    1: "hard limit: a limit switch was hit while moving; check for an obstacle, then home",
    2: "soft limit: a move would leave the machine's travel",
    3: "reset while in motion: position lost, home again",
    4: "probe fail", 5: "probe fail",
    6: "reset while homing: home again",
    7: "homing failed: the safety door opened",
    8: "homing failed: the pull-off did not clear the switch",
    9: "homing failed: no limit switch was found",
}


@dataclass(frozen=True)
class StatusReport:
    """A `<State|MPos:...|...>` report as sent: GRBL gives MPos or WPos ($10), and the
    work coordinate offset (WCO) now and then."""

    state: str  # Idle, Run, Hold, Jog, Alarm, Door, Check, Home, Sleep
    mpos: XYZ | None = None
    wpos: XYZ | None = None
    wco: XYZ | None = None
    buffer: tuple[int, int] | None = None  # Bf: planner blocks free, RX bytes free


@dataclass(frozen=True)
class Reply:
    kind: str  # ok error alarm banner status message report setting empty noise
    text: str = ""  # the line, cut to MAX_LINE characters
    code: int | None = None  # error and alarm codes; None if unreadable
    status: StatusReport | None = None
    setting: tuple[int, float] | None = None
    version: str = ""  # banner

    @property
    def shown(self) -> str:
        """The line as it may appear in a message: printable and short."""
        text = "".join(c if c.isprintable() else "?" for c in self.text)
        return text if len(text) <= 40 else text[:37] + "..."


def parse_reply(line: str) -> Reply:
    line = line.strip()
    if not line:
        return Reply("empty")
    if line == "ok":
        return Reply("ok", line)
    if line.startswith(("error:", "ALARM:")):
        match = CODE.match(line)
        kind = "error" if line.startswith("error:") else "alarm"
        return Reply(kind, line[:MAX_LINE], int(match.group(2)) if match else None)
    if len(line) > MAX_LINE:
        return Reply("noise", line[:MAX_LINE])
    if line.startswith("<") and line.endswith(">"):
        status = _status(line[1:-1])
        return Reply("status", line, status=status) if status else Reply("noise", line)
    if line.startswith("[MSG:") and line.endswith("]"):
        return Reply("message", line)
    if line.startswith("[") and line.endswith("]"):
        return Reply("report", line)
    match = BANNER.match(line)
    if match and line.isprintable():
        return Reply("banner", line, version=match.group(1))
    match = SETTING.match(line)
    if match:
        return Reply("setting", line, setting=(int(match.group(1)), float(match.group(2))))
    return Reply("noise", line)


def _status(body: str) -> StatusReport | None:
    state, *fields = body.split("|")
    state = state.split(":")[0]
    if not state.isalpha() or len(state) > 8:
        return None
    values = {}
    for f in fields:
        key, sep, value = f.partition(":")
        if not sep:
            return None
        values[key] = value
    try:
        mpos, wpos, wco = (_xyz(values[k]) if k in values else None
                           for k in ("MPos", "WPos", "WCO"))
        buffer = _pair(values["Bf"]) if "Bf" in values else None
    except ValueError:
        return None
    if mpos is None and wpos is None:
        return None
    return StatusReport(state, mpos, wpos, wco, buffer)


def _xyz(text: str) -> XYZ:
    parts = text.split(",")
    if len(parts) < 3 or not all(NUMBER.match(p) for p in parts):
        raise ValueError(text)
    x, y, z = (float(p) for p in parts[:3])
    if not all(math.isfinite(v) for v in (x, y, z)):
        raise ValueError(text)
    return (x, y, z)


def _pair(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) != 2 or not all(p.isdigit() and len(p) <= 6 for p in parts):
        raise ValueError(text)
    return (int(parts[0]), int(parts[1]))


def describe(kind: str, code: int | None) -> str:
    """`error:15 (travel exceeded)`, or the same for an unreadable code."""
    table = ERRORS if kind == "error" else ALARMS
    if code is None:
        return f"{kind} with an unreadable code"
    return f"{kind}:{code} ({table.get(code, 'see the GRBL documentation')})"
