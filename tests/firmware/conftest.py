"""Fixtures that build the firmware, run it in the simavr harness and talk to it.

Tests use the fixtures only (no "from conftest import"), so they work in any pytest
import mode next to other test folders.

The tests talk to the firmware only as a host would (pyserial on the harness's
pseudo-terminal) and check the machine only as the harness sees it from the pins.

Missing toolchain: the tests skip, unless DAMAS_REQUIRE_FIRMWARE=1, where they fail.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

try:
    import serial
except ImportError:  # reported by the toolchain fixture: skip, or fail when required
    serial = None

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"
BANNER = "Grbl 1.1h ['$' for help]"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"
STEPS_PER_MM = 80.0  # firmware/damas/config.h
ONE_STEP_MM = 1 / STEPS_PER_MM


def missing_toolchain() -> list[str]:
    missing = [] if serial is not None else ["pyserial"]
    tools = ("make", "cc", "avr-gcc", "avr-objcopy")
    missing += [tool for tool in tools if shutil.which(tool) is None]
    for header in (
        "/usr/include/simavr/sim_avr.h",
        "/usr/include/simavr/parts/uart_pty.h",
        "/usr/lib/avr/include/avr/io.h",
    ):
        if not Path(header).exists():
            missing.append(header)
    return missing


@pytest.fixture(scope="session")
def toolchain() -> None:
    missing = missing_toolchain()
    if not missing:
        return
    message = (
        f"firmware toolchain not installed ({', '.join(missing)}); "
        f"run firmware/install-deps.sh as root"
    )
    if os.environ.get("DAMAS_REQUIRE_FIRMWARE") == "1":
        pytest.fail(message + " [DAMAS_REQUIRE_FIRMWARE=1]", pytrace=False)
    pytest.skip(message)


_build_lock = threading.Lock()
_built: dict[tuple, Path] = {}


def build_variant(**variables: str) -> Path:
    """Runs make for one variant (MCU=, KINEMATICS=, LEDS=, ZMODE=); returns its build folder."""
    key = tuple(sorted(variables.items()))
    with _build_lock:
        if key not in _built:
            args = [f"{name}={value}" for name, value in sorted(variables.items())]
            result = subprocess.run(
                ["make", "-C", str(FIRMWARE_DIR), *args],
                capture_output=True,
                text=True,
                timeout=300,
            )
            if result.returncode != 0:
                pytest.fail(
                    f"make {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}",
                    pytrace=False,
                )
            settings = dict(MCU="atmega328p", KINEMATICS="cartesian", LEDS="50", ZMODE="servo")
            settings.update(variables)
            folder = (
                FIRMWARE_DIR / "build" / "{MCU}-{KINEMATICS}-{LEDS}leds-z{ZMODE}".format(**settings)
            )
            assert (folder / "damas.elf").exists() and (folder / "damas-sim").exists()
            _built[key] = folder
        return _built[key]


@dataclass
class Event:
    """One harness line, e.g. 'POS t=1.2 x=3.0 ...' -> kind='POS', fields={'t': '1.2', ...}."""

    kind: str
    fields: dict[str, str]
    words: list[str] = field(default_factory=list)  # the fields without '=' (LED colours)
    raw: str = ""

    def num(self, name: str) -> float:
        return float(self.fields[name])


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


class Firmware:
    """The firmware running in damas-sim: a serial client plus the harness's event stream."""

    def __init__(self, folder: Path, workdir: Path, start: tuple[float, float] = (30.0, 25.0),
                 speed: float = 0):
        self.step_log = workdir / "steps.log"
        self.stderr = open(workdir / "sim.stderr", "w")
        self.proc = subprocess.Popen(
            [
                str(folder / "damas-sim"),
                "--wait-start",
                "--timeout",
                "300",
                "--start",
                f"{start[0]},{start[1]}",
                "--step-log",
                str(self.step_log),
                "--speed",
                str(speed),
                str(folder / "damas.elf"),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            bufsize=1,
        )
        self.events: list[Event] = []
        self.lines: queue.Queue[str] = queue.Queue()
        self.received: list[str] = []  # every serial line, for failure messages
        self._events_changed = threading.Condition()
        self.port = None
        first = self.proc.stdout.readline().split()
        if first[:1] != ["PTY"]:
            self.close()
            raise RuntimeError(f"damas-sim did not announce its pty: {first}")
        self.pty = first[1]
        threading.Thread(target=self._read_events, daemon=True).start()
        self.port = serial.Serial(self.pty, 115200, timeout=0.05)
        self._reading = True
        threading.Thread(target=self._read_serial, daemon=True).start()

    # ---- harness side ----
    def _read_events(self) -> None:
        for raw in self.proc.stdout:
            words = raw.split()
            if not words:
                continue
            fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            event = Event(words[0], fields, [w for w in words[1:] if "=" not in w], raw.strip())
            with self._events_changed:
                self.events.append(event)
                self._events_changed.notify_all()

    def query(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait_event(
        self, kind: str, predicate=lambda e: True, since: int = 0, timeout: float = 10.0
    ) -> Event:
        deadline = time.monotonic() + timeout
        with self._events_changed:
            while True:
                for event in self.events[since:]:
                    if event.kind == kind and predicate(event):
                        return event
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    recent = [e.raw for e in self.events[-10:]]
                    raise AssertionError(f"no {kind} event in {timeout}s; last events: {recent}")
                self._events_changed.wait(remaining)

    def events_of(self, kind: str, since: int = 0) -> list[Event]:
        with self._events_changed:
            return [e for e in self.events[since:] if e.kind == kind]

    def mark(self) -> int:
        """Index to pass as since= to look only at events after this point."""
        with self._events_changed:
            return len(self.events)

    def position(self) -> Event:
        """Where the carriage is, from the pins (a POS event answered right now)."""
        since = self.mark()
        self.query("pos")
        return self.wait_event("POS", lambda e: e.fields.get("why") == "query", since)

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
        pending = b""
        while self._reading:
            try:
                chunk = self.port.read(256)
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
        self.query("start")
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
        self.port.write(data)

    def send(self, line: str) -> None:
        self.port.write(line.encode("ascii") + b"\n")

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
        if self.port is not None:
            self.port.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()


@pytest.fixture(scope="session")
def default_build(toolchain) -> Path:
    return build_variant()


@pytest.fixture
def make_firmware(tmp_path, toolchain):
    """Factory: make_firmware(start=(x, y), power_up=True, speed=0, **make_variables).

    start is where the carriage is at power-up, in mm from the machine origin. With
    power_up=False the harness runs but the AVR waits for fw.power_up() (or "start").
    The harness runs the machine's work as fast as it can; speed=1 keeps it to the wall
    clock, for tests that must act while a move is under way."""
    running: list[Firmware] = []

    def start(start=(30.0, 25.0), power_up=True, speed=0, **variables) -> Firmware:
        folder = build_variant(**variables)
        workdir = tmp_path / f"sim{len(running)}"
        workdir.mkdir()
        fw = Firmware(folder, workdir, start, speed)
        running.append(fw)
        if power_up:
            fw.power_up()
        return fw

    yield start
    for fw in running:
        fw.close()


@pytest.fixture
def fw(make_firmware, default_build) -> Firmware:
    """Default build (Uno, Cartesian, 50 LEDs, Z servo), powered up and showing its banner."""
    return make_firmware()
