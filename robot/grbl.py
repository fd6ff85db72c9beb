"""A host driver for controllers that speak GRBL 1.1 over a serial line.

Works with our firmware (in simavr or on an Arduino), real GRBL gantries and the Python
machine simulator. It opens a port or a pyserial URL, resets the controller and waits for
its banner, unlocks or homes it, and streams lines with character counting against the
128-byte receive buffer. Pushed messages (ALARM, [MSG:...]) are noticed wherever they
arrive. Every failure becomes one of the errors below, with a message that says what to
do; the link is never left half-open.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import serial

from .errors import RobotError

RX_BUFFER = 128
BANNER = re.compile(r"^Grbl (\S+)")
STATUS = re.compile(r"^<([A-Za-z]+)(?::\d)?\|MPos:(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)")
POLL_SECONDS = 0.2  # GRBL asks for at most 5 status reports a second

# GRBL 1.1's own wording for the codes a board robot can meet
ERRORS = {
    1: "expected a command letter", 2: "bad number format", 3: "invalid $ statement",
    4: "negative value", 5: "homing is disabled", 8: "$ command only valid when idle",
    9: "G-code locked out during alarm or jog", 11: "line too long",
    14: "line too long for the buffer", 15: "travel exceeded",
    20: "unsupported or invalid command", 21: "two commands of one modal group",
    22: "feed rate undefined", 23: "value must be an integer",
    24: "two commands need the axis words", 25: "a word repeated in the line",
    26: "no axis words", 28: "value word missing", 36: "unused value words",
    38: "LED index or colour above its maximum",  # our firmware's M150 (GRBL: tool number)
}
ALARMS = {
    1: "hard limit: a limit switch was hit while moving; check for an obstacle, then home",
    2: "soft limit: a move would leave the machine's travel",
    3: "reset while in motion: position lost, home again",
    6: "reset while homing: home again",
    8: "homing failed: the pull-off did not clear the switch",
    9: "homing failed: no limit switch was found",
}


class DriverError(RobotError):
    """The controller said no (error:N), or did something a host cannot accept."""


class AlarmError(DriverError):
    def __init__(self, code: int):
        super().__init__(f"controller alarm {code}: {ALARMS.get(code, 'see the GRBL docs')}")
        self.code = code


class LinkLost(DriverError):
    """The serial line went away, or the controller stopped answering."""


class ControllerReset(DriverError):
    """The controller restarted (its banner came again) while work was under way."""


@dataclass(frozen=True)
class Status:
    state: str  # Idle, Run, Hold, Home, Alarm, ...
    position: tuple[float, float, float]  # machine position, mm


class GrblDriver:
    def __init__(self, url: str, *, timeout: float = 10.0, baudrate: int = 115200,
                 home: bool = True, send_and_wait: bool = False):
        """send_and_wait: one line at a time, for controllers whose buffer is unknown;
        by default lines stream with character counting against GRBL's 128 bytes."""
        self.url = url
        self.send_and_wait = send_and_wait
        self.timeout = timeout
        self.baudrate = baudrate
        self.home = home
        self.port: serial.SerialBase | None = None
        self.version: str | None = None
        self.last_status: Status | None = None
        self.messages: list[str] = []  # [MSG:...] and other pushed lines, for the log
        self._buffer = b""

    # --- the link ---------------------------------------------------------------------

    def connect(self) -> None:
        """Open the port, reset the controller, wait for its banner, then home or unlock."""
        self.close()
        try:
            self.port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05,
                                              write_timeout=self.timeout)
        except (serial.SerialException, ValueError, OSError) as e:
            raise LinkLost(f"cannot open {self.url}: {e}. Check the cable and the port name "
                           "(damas doctor lists the ports)") from None
        self._buffer = b""
        self.soft_reset()
        if self.home:
            self.command("$H", timeout=max(self.timeout, 60.0))
        else:
            self.command("$X")

    def close(self) -> None:
        if self.port is not None:
            try:
                self.port.close()
            except (serial.SerialException, OSError):
                pass
        self.port = None

    def soft_reset(self) -> None:
        """Ctrl-X: stops everything at once; the controller answers with its banner."""
        self._write(b"\x18")
        deadline = time.monotonic() + self.timeout
        while True:
            line = self._readline(deadline, f"no banner from {self.url} after a reset: is "
                                            "this a GRBL controller at 115200 baud?")
            match = BANNER.match(line)
            if match:
                self.version = match.group(1)
                return

    def _write(self, data: bytes) -> None:
        if self.port is None:
            raise LinkLost(f"{self.url} is not open")
        try:
            self.port.write(data)
        except (serial.SerialException, OSError) as e:
            self.close()
            raise LinkLost(f"lost the line to {self.url} while writing: {e}") from None

    def _readline(self, deadline: float, silence: str) -> str:
        """The next line, or LinkLost when the port dies or nothing comes by `deadline`."""
        while b"\n" not in self._buffer:
            if time.monotonic() > deadline:
                raise LinkLost(silence)
            if self.port is None:
                raise LinkLost(f"{self.url} is not open")
            try:
                chunk = self.port.read(self.port.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError) as e:
                self.close()
                raise LinkLost(f"lost the line to {self.url}: {e}") from None
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\n", 1)
        return raw.decode("ascii", "replace").strip()

    # --- lines --------------------------------------------------------------------------

    def command(self, line: str, timeout: float | None = None) -> None:
        """Send one line and wait for its answer (send-and-wait, for $ settings)."""
        self.stream([line], timeout=timeout)

    def stream(self, lines: Iterable[str], on_ack: Callable[[int], None] | None = None,
               timeout: float | None = None) -> None:
        """Send lines with character counting; `on_ack(i)` runs when line i is
        acknowledged. Stops at the first error, alarm, reset or silence."""
        pending: deque[tuple[int, int]] = deque()  # (index, bytes) not yet acknowledged
        queued = 0
        limit = timeout or self.timeout
        last_heard = time.monotonic()
        next_poll = last_heard + POLL_SECONDS
        todo = deque(enumerate(lines))
        while todo or pending:
            while todo and queued + len(todo[0][1]) + 1 <= RX_BUFFER - 1 and not (
                    self.send_and_wait and pending):
                index, line = todo.popleft()
                data = (line.strip() + "\n").encode("ascii")
                self._write(data)
                pending.append((index, len(data)))
                queued += len(data)
            if not pending:
                continue
            now = time.monotonic()
            if now >= next_poll:  # a long move answers late: keep asking how it goes
                self._write(b"?")
                next_poll = now + POLL_SECONDS
            try:
                line = self._readline(min(next_poll, last_heard + limit),
                                      f"{self.url} stopped answering")
            except LinkLost:
                if self.port is None or time.monotonic() > last_heard + limit:
                    raise
                continue
            last_heard = time.monotonic()
            if not line:
                continue
            if line == "ok" or line.startswith("error:"):
                index, size = pending.popleft()
                queued -= size
                if line != "ok":
                    code = int(line[6:]) if line[6:].isdigit() else -1
                    raise DriverError(f"the controller refused line {index + 1}: error:{code} "
                                      f"({ERRORS.get(code, 'see the GRBL docs')})")
                if on_ack:
                    on_ack(index)
            else:
                self._pushed(line)

    def _pushed(self, line: str) -> None:
        if line.startswith("ALARM:"):
            code = int(line[6:]) if line[6:].isdigit() else -1
            raise AlarmError(code)
        if BANNER.match(line):
            raise ControllerReset(f"the controller on {self.url} restarted; its position is "
                                  "lost until it is homed again")
        match = STATUS.match(line)
        if match:
            state, x, y, z = match.groups()
            self.last_status = Status(state, (float(x), float(y), float(z)))
        elif line:
            self.messages.append(line)

    # --- status and real-time commands ----------------------------------------------------

    def status(self) -> Status:
        self._write(b"?")
        deadline = time.monotonic() + self.timeout
        before = self.last_status
        while True:
            line = self._readline(deadline, f"no status from {self.url}")
            self._pushed(line)
            if self.last_status is not before and line.startswith("<"):
                return self.last_status

    def wait_idle(self) -> Status:
        deadline = time.monotonic() + max(self.timeout, 120.0)
        while True:
            status = self.status()
            if status.state == "Idle":
                return status
            if status.state == "Alarm":
                raise DriverError("the controller is in alarm: home it ($H) or unlock ($X)")
            if time.monotonic() > deadline:
                raise LinkLost(f"{self.url} never came to rest")
            time.sleep(POLL_SECONDS)

    def feed_hold(self) -> None:
        self._write(b"!")

    def resume(self) -> None:
        self._write(b"~")
