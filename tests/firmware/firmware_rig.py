"""What the firmware tests talk to: the harness (`damas.robot.simavr.Harness`) running one
build variant, plus a host's raw serial line to it. Imported by name from the fixtures in
conftest.py (a conftest is never imported: two folders' conftests would be one module).

The tests talk to the firmware only as a host would (pyserial on the harness's
pseudo-terminal) and check the machine only as the harness sees it from the pins.
"""

from __future__ import annotations

import functools
import queue
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from damas.robot.simavr import FirmwareUnavailable, Harness, build

BANNER = "Grbl 1.1h ['$' for help]"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"


@functools.cache
def build_variant(**variables: str) -> Path:
    """The build folder of one variant (MCU=, KINEMATICS=, LEDS=, ZMODE=), built once."""
    settings = {name.lower(): value for name, value in variables.items()}
    try:
        return build(int(settings.pop("leds", "50")), **settings)
    except FirmwareUnavailable as failed:
        pytest.fail(str(failed), pytrace=False)


@dataclass
class Status:
    state: str
    mpos: tuple[float, float, float]
    feed: float
    raw: str


STATUS_RE = re.compile(
    r"^<(?P<state>[A-Za-z]+(?::\d)?)\|MPos:(?P<x>-?\d+\.\d{3}),(?P<y>-?\d+\.\d{3}),"
    r"(?P<z>-?\d+\.\d{3})\|FS:(?P<f>\d+),(?P<s>\d+)>$"
)


def parse_status(line: str) -> Status:
    match = STATUS_RE.match(line)
    assert match, f"not a GRBL status report: {line!r}"
    return Status(
        match["state"],
        (float(match["x"]), float(match["y"]), float(match["z"])),
        float(match["f"]),
        line,
    )


class Firmware(Harness):
    """One build of the firmware in damas-sim, the AVR unpowered until `power_up()`, with
    a serial line open on its pty from the start (so a test sees its very first bytes)."""

    def __init__(self, folder: Path, workdir: Path, start: tuple[float, float] = (30.0, 25.0),
                 speed: float = 0):
        import serial

        super().__init__(speed=speed)
        self.step_log = workdir / "steps.log"
        self.launch(folder / "damas-sim",
                    ["--timeout", "300", "--start", f"{start[0]},{start[1]}",
                     "--step-log", str(self.step_log), str(folder / "damas.elf")],
                    stderr=open(workdir / "sim.stderr", "w+"))
        self.lines: queue.Queue[str] = queue.Queue()
        self.received: list[str] = []  # every serial line, for failure messages
        self.serial = serial.Serial(self.port, 115200, timeout=0.05)
        self._reading = True
        threading.Thread(target=self._read_serial, daemon=True).start()

    def step_times(self, motor: int | None = None) -> list[tuple[int, int, int]]:
        """(cycle, motor, direction) of every step so far; flushed when the carriage rests."""
        steps = []
        for line in self.step_log.read_text().splitlines():
            cycle, m, direction = (int(v) for v in line.split())
            if motor is None or m == motor:
                steps.append((cycle, m, direction))
        return steps

    # ---- serial side ----
    def _read_serial(self) -> None:
        import serial

        pending = b""
        while self._reading:
            try:
                chunk = self.serial.read(256)
            except (serial.SerialException, OSError, TypeError):
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                text = line.decode("ascii", "replace").rstrip("\r")
                if text:
                    self.received.append(text)
                    self.lines.put(text)

    def power_up(self) -> list[str]:
        """Starts the AVR; returns its first lines: the banner and, homing being on by
        default, the unlock hint (the machine starts locked, as GRBL with $22=1)."""
        self.power_on()
        lines = self.expect_banner()
        lines.append(self.next_line())
        assert lines[-1] == UNLOCK_HINT, lines
        return lines

    def expect_banner(self, timeout: float = 5.0) -> list[str]:
        before = []
        while True:
            line = self.next_line(timeout)
            before.append(line)
            if line == BANNER:
                return before

    def next_line(self, timeout: float = 5.0) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no line from the firmware in {timeout}s; last: {self.received[-5:]}"
            ) from None

    def write(self, data: bytes) -> None:
        self.serial.write(data)

    def send(self, line: str) -> None:
        self.serial.write(line.encode("ascii") + b"\n")

    def reply(self, timeout: float = 10.0) -> tuple[str, list[str]]:
        """Waits for the next 'ok' / 'error:N'; returns it and the lines pushed before it."""
        pushed = []
        while True:
            line = self.next_line(timeout)
            if line == "ok" or line.startswith("error:"):
                return line, pushed
            pushed.append(line)

    def command(self, line: str, timeout: float = 10.0) -> str:
        """Sends a line and returns its reply ('ok' or 'error:N')."""
        self.send(line)
        return self.reply(timeout)[0]

    def ok(self, line: str, timeout: float = 10.0) -> None:
        answer = self.command(line, timeout)
        assert answer == "ok", f"{line!r} -> {answer}"

    def status(self, timeout: float = 5.0) -> Status:
        """Sends '?' and returns the report (asserting GRBL's format)."""
        self.write(b"?")
        return self.read_status(timeout)

    def read_status(self, timeout: float = 5.0) -> Status:
        while True:
            line = self.next_line(timeout)
            if line.startswith("<"):
                return parse_status(line)

    def wait_status(self, predicate, timeout: float = 20.0, what: str = "") -> Status:
        """Polls '?' (at 20 Hz, as a host would) until predicate(status) holds."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.status()
            if predicate(status):
                return status
            if time.monotonic() > deadline:
                raise AssertionError(f"still {status.raw} after {timeout}s, waiting for {what}")
            time.sleep(0.05)

    def wait_state(self, *states: str, timeout: float = 20.0) -> Status:
        return self.wait_status(lambda s: s.state in states, timeout, f"state in {states}")

    def unlock(self, soft_limits: bool = True) -> None:
        self.ok("$X")
        if not soft_limits:
            self.ok("$20=0")

    def close(self) -> None:
        self._reading = False
        self.serial.close()
        self.stop()
