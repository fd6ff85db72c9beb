"""Our firmware running in simavr, as the machine behind `--port sim-firmware`.

`FirmwareSimulator(machine, world)` builds the firmware for the machine's board
(`make -C firmware LEDS=50` or `LEDS=32`), starts the `damas-sim` harness with the AVR's
UART on a pseudo-terminal (pyserial opens it like a USB port), and turns the harness's
events - read from the AVR's pins only - into the physical board of `physics.World`:

- the carriage from `POS` events: the firmware moves in straight lines that start and
  end at rest, and the harness reports every point where the carriage stops (`rest`, and
  `pause` between two queued moves), so the path is the polyline through those points;
- the magnet from `MAG` events (they carry the carriage position), Z from `Z` events;
- LED frames from `LED` events, decoded from the WS2812 data pin.

Faults a test can cause, as on a real machine: `power_cycle()` (the reset button or a DTR
pulse), `drop_line()` (the controller loses power: the harness ends, the pty goes away),
`hit_limit()` (a limit switch closes while the carriage moves), `send_garbage()` (noise on
the line toward the host).

Simulated time: the harness skips the AVR's sleeping time while the machine works and
follows the wall clock while it idles, so a slide of several seconds takes a fraction of
that; `speed` caps it (simulated seconds per wall second) for tests that must act while a
move is under way. `sim_seconds` is the AVR's clock.

`Harness` is the harness process alone (start, its event lines as `Event`s, `wait_event`,
`mark`, `position`, the faults above), with no machine and no world: the firmware tests
run every build variant on it, `FirmwareSimulator` and `grblsim.GrblSimulator` add the
machine.
"""

from __future__ import annotations

import fcntl
import math
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .errors import RobotError
from .machine import Machine
from .physics import World

FIRMWARE_DIR = Path(__file__).resolve().parents[1] / "firmware"
BANNER = b"Grbl "
UNLOCK_HINT = b"[MSG:'$H'|'$X' to unlock]"
RGB = tuple[int, int, int]


class FirmwareUnavailable(RobotError):
    """The firmware or its simulator cannot be built or started here."""


def missing_toolchain() -> list[str]:
    """What `make -C firmware` and the harness need that this system lacks."""
    missing = [tool for tool in ("make", "cc", "avr-gcc", "avr-objcopy")
               if shutil.which(tool) is None]
    for header in ("/usr/include/simavr/sim_avr.h", "/usr/include/simavr/parts/uart_pty.h",
                   "/usr/lib/avr/include/avr/io.h"):
        if not Path(header).exists():
            missing.append(header)
    return missing


def build(leds: int = 50, *, mcu: str = "atmega328p", kinematics: str = "cartesian",
          zmode: str = "servo") -> Path:
    """Builds (if needed) the firmware and harness for a board with `leds` dark squares
    (and the firmware Makefile's other variables); returns the build folder."""
    if not (FIRMWARE_DIR / "Makefile").exists():
        raise FirmwareUnavailable(f"sim-firmware needs the firmware sources ({FIRMWARE_DIR} "
                                  "is missing): run from a checkout, or use --port sim-python")
    missing = missing_toolchain()
    if missing:
        raise FirmwareUnavailable(f"sim-firmware needs the AVR toolchain and simavr (missing: "
                                  f"{', '.join(missing)}): run firmware/install-deps.sh as "
                                  "root, or use --port sim-python")
    variables = [f"MCU={mcu}", f"KINEMATICS={kinematics}", f"LEDS={leds}", f"ZMODE={zmode}"]
    (FIRMWARE_DIR / "build").mkdir(exist_ok=True)
    with open(FIRMWARE_DIR / "build" / ".make.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two sessions must not build one folder at once
        done = subprocess.run(["make", "-C", str(FIRMWARE_DIR), *variables],
                              capture_output=True, text=True, timeout=600)
    folder = FIRMWARE_DIR / "build" / f"{mcu}-{kinematics}-{leds}leds-z{zmode}"
    if done.returncode != 0 or not (folder / "damas.elf").exists() \
            or not (folder / "damas-sim").exists():
        raise FirmwareUnavailable(f"make -C firmware {' '.join(variables)} failed:\n"
                                  + (done.stdout + done.stderr)[-2000:])
    return folder


@dataclass(frozen=True)
class Event:
    """One harness line, e.g. `MAG t=1.25 on=1 x=30.0 y=40.0`."""

    kind: str
    fields: dict[str, str] = field(default_factory=dict)
    words: tuple[str, ...] = ()  # values without a name (the LED colours)
    raw: str = ""  # the line as printed, for messages

    @classmethod
    def parse(cls, line: str) -> Event:
        kind, *rest = line.split()
        fields = dict(w.split("=", 1) for w in rest if "=" in w)
        return cls(kind, fields, tuple(w for w in rest if "=" not in w), line.strip())

    @property
    def t(self) -> float:
        return float(self.fields.get("t", "nan"))

    def num(self, name: str) -> float:
        return float(self.fields[name])


class Harness:
    """The `damas-sim` process: its queries on stdin, its events on stdout (kept in
    `events`, in order), the AVR's UART on the pseudo-terminal `port`.

    The harness ends with the thread that started it (PR_SET_PDEATHSIG): start it from a
    thread that outlives it, as the main thread."""

    def __init__(self, *, speed: float = 0.0) -> None:
        self.speed = speed
        self.events: list[Event] = []
        self.port: str | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._stderr: IO[str] | None = None
        self._reader: threading.Thread | None = None
        self._changed = threading.Condition()
        self._last_t = 0.0

    # --- life -------------------------------------------------------------------------

    def launch(self, program: Path, args: Sequence[str], stderr: IO[str] | None = None) -> str:
        """Starts `program` (a damas-sim) with `args` (the ELF last), the AVR unpowered
        until `power_on()`; returns the pty. `stderr` (opened for reading and writing)
        keeps what the harness prints there; a temporary file by default."""
        self._stderr = stderr if stderr is not None else tempfile.TemporaryFile("w+")
        proc = self._proc = subprocess.Popen(
            [str(program), "--wait-start", "--speed", str(self.speed), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True,
            bufsize=1)
        assert proc.stdout is not None  # stdout=PIPE
        first = proc.stdout.readline().split()
        if first[:1] != ["PTY"]:
            self.stop()
            raise FirmwareUnavailable(f"damas-sim did not start: {self._harness_output()}")
        self.port = first[1]
        self._reader = threading.Thread(target=self._read_events, args=(proc.stdout,),
                                        daemon=True)
        self._reader.start()
        return self.port

    def power_on(self) -> None:
        """Powers the AVR up (it waits for this since `launch`)."""
        self.query("start")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if self._reader is not None:
                self._reader.join(timeout=5)
            for pipe in (proc.stdin, proc.stdout):
                try:
                    if pipe is not None:
                        pipe.close()
                except OSError:
                    pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    @property
    def process(self) -> subprocess.Popen[str]:
        """The harness process (for tests that signal it)."""
        if self._proc is None:
            raise RobotError("damas-sim is not running")
        return self._proc

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # --- what the harness reports -------------------------------------------------------

    def _read_events(self, stdout: IO[str]) -> None:
        for line in stdout:
            if not line.strip():
                continue
            event = Event.parse(line)
            self._apply(event)
            with self._changed:
                self.events.append(event)
                self._changed.notify_all()

    def _apply(self, event: Event) -> None:
        """Takes in one event before anyone waiting for it sees it."""
        if not math.isnan(event.t):
            self._last_t = event.t

    def wait_event(self, kind: str, predicate: Callable[[Event], bool] = lambda e: True,
                   since: int = 0, timeout: float = 10.0) -> Event:
        """The first event of `kind` after index `since` that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for event in self.events[since:]:
                    if event.kind == kind and predicate(event):
                        return event
                remaining = deadline - time.monotonic()
                ended = self._reader is None or not self._reader.is_alive()
                if remaining <= 0 or ended:
                    raise RobotError(f"damas-sim sent no {kind} event "
                                     f"({'it ended' if ended else f'in {timeout:.0f} s'}; "
                                     f"last: {[e.raw for e in self.events[-5:]]}); "
                                     f"{self._harness_output()}")
                self._changed.wait(min(remaining, 0.5))

    def events_of(self, kind: str, since: int = 0) -> list[Event]:
        """Every event of `kind` so far after index `since`."""
        with self._changed:
            return [e for e in self.events[since:] if e.kind == kind]

    def mark(self) -> int:
        """An index for `wait_event(since=...)`: only events after this point."""
        with self._changed:
            return len(self.events)

    def position(self) -> Event:
        """Where the carriage is now, from the pins: a POS event answered at once."""
        since = self.mark()
        self.query("pos")
        return self.wait_event("POS", lambda e: e.fields.get("why") == "query", since)

    def sync(self) -> None:
        """Returns once every event up to now has been taken in (a `pos` query is
        answered after everything the harness printed before it)."""
        if self.running:
            self.position()
        elif self._reader is not None:
            self._reader.join(timeout=5)

    @property
    def sim_seconds(self) -> float:
        """The AVR's clock: simulated seconds since power-up. It includes the time the
        machine waited for the host (which runs at the wall clock's pace)."""
        if self.running:
            self.sync()
        return self._last_t

    def set_speed(self, speed: float) -> None:
        """Caps simulated seconds per wall second from now on (0: no cap)."""
        self.speed = speed
        self._acknowledged(f"speed {speed}", "SPEED")

    # --- faults -------------------------------------------------------------------------

    def power_cycle(self) -> None:
        """Hardware reset (the reset button, a DTR pulse, a brown-out): the firmware
        restarts locked, the magnet drops, the carriage stays where it is."""
        self._acknowledged("reset", "RESET")

    def drop_line(self) -> None:
        """The controller loses power (a USB-powered board whose cable is pulled): the
        harness ends, the pty goes away, the magnet drops where the carriage stands."""
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(timeout=5)
        if self._reader is not None:
            self._reader.join(timeout=5)

    def hit_limit(self, axis: str = "X") -> None:
        """A limit switch closes for a moment while the carriage next moves (an obstacle,
        electrical noise): hard limits stop the motors and raise ALARM:1."""
        self._acknowledged(f"trip {axis}", "TRIP")

    def send_garbage(self, data: bytes) -> None:
        """Bytes reach the host as if the firmware had sent them (line noise), between
        two of its lines (the one it is sending ends first); whatever it sends afterwards
        comes after them."""
        self._acknowledged("noise " + data.hex(), "NOISE")

    # --- plumbing -----------------------------------------------------------------------

    def _acknowledged(self, query: str, kind: str) -> None:
        since = self.mark()
        self.query(query)
        self.wait_event(kind, since=since)

    def query(self, text: str) -> None:
        """Sends the harness one query line (`pos`, `reset`, `trip X`, ...)."""
        proc = self._proc
        if proc is None or proc.poll() is not None or proc.stdin is None:
            raise RobotError(f"damas-sim is not running; {self._harness_output()}")
        try:
            proc.stdin.write(text + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise RobotError(f"damas-sim stopped; {self._harness_output()}") from None

    def _harness_output(self) -> str:
        text = ""
        if self._stderr is not None and not self._stderr.closed:
            self._stderr.seek(0)
            text = self._stderr.read()[-500:].strip()
        return f"its errors: {text}" if text else "it printed no error"


class FirmwareSimulator(Harness):
    """Our firmware, built for `machine`'s board, moving `world` as its pins say."""

    def __init__(self, machine: Machine, world: World | None = None, *, speed: float = 0.0,
                 start: tuple[float, float] = (0.0, 0.0),
                 on_leds: Callable[[list[RGB]], None] | None = None):
        super().__init__(speed=speed)
        self.machine = machine
        self.world = world
        self.start_point = start
        self.on_leds = on_leds
        self.leds = machine.board_size ** 2 // 2
        self.frames: list[list[RGB]] = []  # every LED frame shown, as decoded from the pin
        self._z = 0.0
        self._carriage = (0.0, 0.0)
        self.tool_on = False

    def start(self) -> str:
        """Builds what is needed, starts the harness and powers the AVR up; returns the
        pty for the driver."""
        harness, args = self._harness()
        port = self.launch(harness, args)
        self._power_up()
        return port

    def _harness(self) -> tuple[Path, list[str]]:
        """The harness to run and its arguments (the firmware's ELF last)."""
        folder = build(self.leds)
        x, y = self.start_point
        return folder / "damas-sim", ["--start", f"{x},{y}", str(folder / "damas.elf")]

    def _power_up(self) -> None:
        """Powers the AVR up with our end of the pty open and reads its first lines, so
        the host that opens the port next sees nothing stale."""
        import serial

        with serial.Serial(self.port, 115200, timeout=0.1) as link:
            self.power_on()
            seen = b""
            deadline = time.monotonic() + 10
            while UNLOCK_HINT not in seen:
                if time.monotonic() > deadline:
                    self.stop()
                    raise FirmwareUnavailable(f"the firmware printed no banner, only {seen!r}")
                seen += link.read(256)

    def __enter__(self) -> FirmwareSimulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- the pins, as the physical board sees them --------------------------------------

    def _apply(self, event: Event) -> None:
        super()._apply(event)
        world = self.world
        if event.kind == "LED":
            frame = [(int(w[0:2], 16), int(w[2:4], 16), int(w[4:6], 16)) for w in event.words]
            self.frames.append(frame)
            if self.on_leds:
                self.on_leds(frame)
        z = float(event.fields.get("z", "nan"))  # nan before the servo's first pulse
        if not math.isnan(z):
            self._z = z
        if event.kind in ("POS", "MAG", "Z", "PWM"):
            self._carriage = self.to_frame(event.num("x"), event.num("y"))
        tool = self._tool_event(event)
        if event.kind == "EXIT":
            tool = False  # no power, no magnet
        if tool is not None:
            self.tool_on = tool
        if world is None:
            return
        if event.kind in ("POS", "MAG", "Z", "PWM"):
            world.carriage(*self._carriage, self._z)
        if tool is not None:
            world.tool(tool)

    def to_frame(self, x: float, y: float) -> tuple[float, float]:
        """Machine coordinates (as the machine file has them) of a point the harness
        reports; our firmware's are the harness's own."""
        return (x, y)

    def _tool_event(self, event: Event) -> bool | None:
        """The tool's new state if `event` switched it, else None."""
        return event.fields["on"] == "1" if event.kind == "MAG" else None

    def carriage(self) -> tuple[float, float, bool]:
        """Where the carriage is now (machine coordinates) and whether the tool holds."""
        pos = self.position()
        x, y = self.to_frame(pos.num("x"), pos.num("y"))
        return x, y, self.tool_on
