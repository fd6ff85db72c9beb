"""A machine simulator in Python that speaks the same GRBL dialect as our firmware, on a
pseudo-terminal: pyserial opens its path like a USB port.

For machines without the AVR toolchain (the demo's fallback); the tests use the real
firmware in simavr. Motion runs on a simulated clock with constant-acceleration ramps,
played `speedup` times faster than real time so a host can still poll it mid-move and
tests can cut the line mid-move. What a machine would do to the pieces is reported to
`on_carriage(x, y, z)` and `on_tool(on)` (see physics.World), LED frames to `on_leds`.
"""

from __future__ import annotations

import math
import os
import re
import select
import threading
import time
import tty
from collections import deque
from dataclasses import dataclass

BANNER = b"\r\nGrbl 1.1h ['$' for help]\r\n"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"
WORD = re.compile(r"([A-Z])\s*([-+]?\d*\.?\d*)")


@dataclass
class Config:
    travel: tuple[float, float] = (660.0, 580.0)  # mm; homing puts the carriage at 0, 0
    max_rate: float = 6000.0  # mm/min, also G0
    acceleration: float = 800.0  # mm/s^2
    z_rate: float = 100.0  # mm/s (a servo)
    leds: int = 50
    speedup: float = 20.0
    sample_mm: float = 2.0  # how finely the carriage path is reported


class MachineSimulator:
    def __init__(self, config: Config | None = None, on_carriage=None, on_tool=None,
                 on_leds=None, acks=None):
        """acks(n, reply) -> bytes: what reaches the host instead of the n-th (from 0)
        acknowledgement `reply` (b"ok\\r\\n" or b"error:N\\r\\n"): a flaky line that loses,
        doubles or garbles it. Everything else (status, reports, alarms) goes as sent."""
        self.config = config or Config()
        self.acks = acks
        self.acks_sent = 0
        self.on_carriage = on_carriage or (lambda x, y, z: None)
        self.on_tool = on_tool or (lambda on: None)
        self.on_leds = on_leds or (lambda frame: None)
        self.position = [0.0, 0.0, 0.0]
        self.sim_seconds = 0.0
        self.tool_on = False
        self.absolute = True
        self.feed: float | None = None
        self.tool_number = 0  # the T word of the last block, as GRBL reports it
        self.state = "Alarm"  # homing is required after power-up, as GRBL with $22=1
        self.leds: list[tuple[int, ...]] = [(0, 0, 0)] * self.config.leds
        self.shown = list(self.leds)
        self._hold = threading.Event()
        self._abort = threading.Event()
        self._stop = threading.Event()
        self._lines: deque[str] = deque()
        self._wake = threading.Condition()
        self._master = self._slave = -1
        self._threads: list[threading.Thread] = []
        self._out_lock = threading.Lock()
        self._garbled = False

    # --- life -------------------------------------------------------------------------

    def start(self) -> str:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        for target in (self._reader, self._executor):
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self._threads.append(t)
        self._send(BANNER)  # power-up: locked until homed or unlocked, as our firmware
        self._reply(UNLOCK_HINT)
        return self.port

    def stop(self) -> None:
        self._stop.set()
        self._abort.set()
        with self._wake:
            self._wake.notify_all()
        for t in self._threads:  # before closing: a thread blocked on the fd keeps it open
            if t is not threading.current_thread():
                t.join(timeout=5)
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self._master = self._slave = -1

    def sync(self) -> None:
        """Nothing to wait for: what the machine did is reported before its reply."""

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    # --- faults a test can cause --------------------------------------------------------

    def drop_line(self) -> None:
        """The cable is pulled: the host's port fails; the machine stops where it is."""
        self._abort.set()
        self.stop()

    def replug(self) -> str:
        """The cable goes back in after `drop_line`: the controller powers up afresh (it
        must be homed) on a new pty, whose name it returns (a real port keeps its name)."""
        self._stop.clear()
        self._abort.clear()
        self._threads = []
        self._lines.clear()
        self.state = "Alarm"
        return self.start()

    def power_cycle(self) -> None:
        """The controller resets by itself (brown-out, watchdog): locked, as at power-up."""
        self._reset(power_up=True)

    def hit_limit(self) -> None:
        self._alarm(1)

    def send_garbage(self, data: bytes) -> None:
        self._send(data)

    def garble_line(self) -> None:
        """Noise on the line from now on (a wrong baud rate, a damaged cable): everything
        the controller sends arrives as garbage; what it is sent still arrives."""
        self._garbled = True

    # --- serial -------------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        if self._garbled:  # every byte changed, each line still a line
            data = b"".join(b"\xfe#" + bytes(b ^ 0x55 for b in line) + b"\r\n"
                            for line in data.splitlines() if line)
        with self._out_lock:
            try:
                os.write(self._master, data)
            except OSError:
                pass

    def _reply(self, text: str) -> None:
        self._send(text.encode("ascii") + b"\r\n")

    def _ack(self, text: str) -> None:
        data = text.encode("ascii") + b"\r\n"
        if self.acks is not None:
            data = self.acks(self.acks_sent, data)
        self.acks_sent += 1
        self._send(data)

    def _reader(self) -> None:
        line = b""
        while not self._stop.is_set():
            try:  # never block for long: stop() must be able to close the pty at once
                if not select.select([self._master], [], [], 0.05)[0]:
                    continue
                data = os.read(self._master, 256)
            except (OSError, ValueError):
                return
            if not data:
                return
            for byte in data:
                c = bytes([byte])
                if c == b"?":
                    self._reply(self._status())
                elif c == b"!":
                    if self.state == "Run":
                        self._hold.set()
                        self.state = "Hold"
                elif c == b"~":
                    if self._hold.is_set():
                        self._hold.clear()
                        self.state = "Run"
                elif c == b"\x18":
                    self._reset()
                    line = b""
                elif c in b"\r\n":
                    if line.strip():
                        with self._wake:
                            self._lines.append(line.decode("ascii", "replace"))
                            self._wake.notify_all()
                    elif c == b"\n":
                        self._ack("ok")
                    line = b""
                else:
                    line += c

    def _status(self) -> str:
        x, y, z = self.position
        state = "Hold:0" if self.state == "Hold" else self.state
        return f"<{state}|MPos:{x:.3f},{y:.3f},{z:.3f}|FS:{self.feed or 0:.0f},0>"

    def _reset(self, power_up: bool = False) -> None:
        """Soft reset (0x18), or a restart with power_up. As the firmware: motion stopped
        abruptly loses the position, so ALARM:3 (6 while homing) comes before the banner,
        and a locked machine says how to unlock after it."""
        alarm = None if power_up else {"Run": 3, "Home": 6}.get(self.state)
        self._abort.set()
        with self._wake:
            self._lines.clear()
            self._wake.notify_all()
        self._hold.clear()
        self._set_tool(False)
        self.absolute = True
        if alarm:
            self._reply(f"ALARM:{alarm}")
        if alarm or power_up:
            self.state = "Alarm"
        elif self.state != "Alarm":
            self.state = "Idle"
        self._send(BANNER)
        if self.state == "Alarm":
            self._reply(UNLOCK_HINT)

    def _alarm(self, code: int) -> None:
        self._abort.set()
        with self._wake:
            self._lines.clear()
        self._set_tool(False)
        self.state = "Alarm"
        self._reply(f"ALARM:{code}")

    # --- execution ------------------------------------------------------------------------

    def _executor(self) -> None:
        while not self._stop.is_set():
            with self._wake:
                while not self._lines and not self._stop.is_set():
                    self._wake.wait(0.1)
                if self._stop.is_set():
                    return
                line = self._lines.popleft()
            self._abort.clear()
            status = self._execute(line.strip().upper())
            if self._abort.is_set():
                continue  # a reset or alarm answered for this line already
            self._ack("ok" if status == 0 else f"error:{status}")

    def _execute(self, line: str) -> int:
        if line.startswith("$"):
            return self._system(line)
        if self.state == "Alarm":
            return 9
        line = re.sub(r"\(.*?\)|;.*", "", line).replace(" ", "")
        words = WORD.findall(line)
        if not words or any(v == "" for _k, v in words):
            return 1 if not words else 2
        consumed = sum(len(k) + len(v) for k, v in words)
        if consumed != len(line):
            return 1
        values: dict[str, float] = {}
        codes: list[tuple[str, float]] = []
        for letter, text in words:
            try:
                number = float(text)
            except ValueError:
                return 2
            if letter in "GM":
                codes.append((letter, number))
            elif letter in values:
                return 25
            else:
                values[letter] = number
        motion = None
        for letter, number in codes:
            code = f"{letter}{number:g}"
            if code in ("G0", "G1"):
                motion = code
            elif code == "G90":
                self.absolute = True
            elif code == "G91":
                self.absolute = False
            elif code == "G4":
                if "P" not in values:
                    return 28
                self._dwell(values["P"])
            elif code == "G28":
                self._home()
            elif code in ("M3", "M4", "M8"):
                self._set_tool(True)
            elif code in ("M5", "M9"):
                self._set_tool(False)
            elif code == "M150":
                return self._led_set(values)
            elif code == "M151":
                self.shown = list(self.leds)
                self.on_leds(list(self.shown))
            elif code in ("G17", "G21", "G54", "G94", "M2", "M30"):
                pass
            else:
                return 20
        if "F" in values:
            self.feed = values["F"]
        # GRBL only tracks the tool number, and every block without a T sets it to 0
        self.tool_number = int(values.get("T", 0))
        if any(a in values for a in "XYZ"):
            if motion is None:
                motion = "G0"
            if motion == "G1" and not self.feed:
                return 22
            return self._move(values, motion)
        return 0

    def _system(self, line: str) -> int:
        if line == "$H":
            self._home()
            return 0 if not self._abort.is_set() else 0
        if line == "$X":
            if self.state == "Alarm":
                self.state = "Idle"
                self._reply("[MSG:Caution: Unlocked]")
            return 0
        if line == "$G":
            self._reply(f"[GC:G0 G54 G17 G21 {'G90' if self.absolute else 'G91'} G94 "
                        f"{'M3' if self.tool_on else 'M5'} M9 T{self.tool_number} "
                        f"F{self.feed or 0:.0f} S0]")
            return 0
        if line == "$I":
            self._reply("[VER:1.1h.damas:]")
            self._reply("[OPT:HL,8,127]")
            return 0
        if line == "$$":
            c = self.config
            for key, value in ((20, 1), (21, 1), (22, 1), (100, 80), (101, 80),
                               (110, c.max_rate), (111, c.max_rate), (120, c.acceleration),
                               (121, c.acceleration), (130, c.travel[0]), (131, c.travel[1])):
                self._reply(f"${key}={value:.3f}" if key >= 100 else f"${key}={value}")
            return 0
        if line == "$":
            return 0
        return 3

    def _led_set(self, values: dict[str, float]) -> int:
        """M150 as the firmware checks it: index, then red, green, blue; each an integer
        (error:23), not negative (error:4), not above its maximum (error:38)."""
        words = []
        for key, top in (("I", len(self.leds) - 1), ("R", 255), ("U", 255), ("B", 255)):
            v = values.get(key, 0)
            if v < 0:
                return 4
            if v != int(v):
                return 23
            if v > top:
                return 38
            words.append(int(v))
        index, *rgb = words
        if "I" in values:
            self.leds[index] = tuple(rgb)
        else:
            self.leds = [tuple(rgb)] * len(self.leds)
        return 0

    def _set_tool(self, on: bool) -> None:
        if on != self.tool_on:
            self.tool_on = on
            self.on_tool(on)

    def _dwell(self, seconds: float) -> None:
        self._wait(seconds)

    def _home(self) -> None:
        self.state = "Home"
        self._travel((0.0, 0.0, self.position[2]), self.config.max_rate / 2)
        if not self._abort.is_set():
            self.state = "Idle"

    def _move(self, values: dict[str, float], motion: str) -> int:
        target = list(self.position)
        for i, axis in enumerate("XYZ"):
            if axis in values:
                target[i] = values[axis] if self.absolute else target[i] + values[axis]
        tx, ty = self.config.travel
        if not (-1e-6 <= target[0] <= tx + 1e-6 and -1e-6 <= target[1] <= ty + 1e-6):
            # soft limit, as GRBL: the alarm is pushed, the line refused, nothing moves
            self.state = "Alarm"
            self._reply("ALARM:2")
            return 15
        if motion == "G0":
            rate = self.config.max_rate
        else:
            assert self.feed is not None  # a G1 without a feed rate was refused (error:22)
            rate = min(self.feed, self.config.max_rate)
        self.state = "Run"
        self._travel(tuple(target), rate)
        if not self._abort.is_set():
            self.state = "Idle"
        return 0

    def _travel(self, target, rate_mm_min: float) -> None:
        """Moves along a straight line with a trapezoid speed profile, reporting the path."""
        start = list(self.position)
        distance = math.dist(start[:2], target[:2])
        z_time = abs(target[2] - start[2]) / self.config.z_rate
        duration = max(_trapezoid_time(distance, rate_mm_min / 60, self.config.acceleration),
                       z_time)
        steps = max(1, int(distance / self.config.sample_mm))
        for k in range(1, steps + 1):
            if self._abort.is_set():
                return
            while self._hold.is_set() and not self._abort.is_set():
                time.sleep(0.01)
            f = k / steps
            self.position = [a + (b - a) * f for a, b in zip(start, target, strict=True)]
            self.on_carriage(*self.position)
            self._wait(duration / steps)

    def _wait(self, seconds: float) -> None:
        self.sim_seconds += seconds
        end = time.monotonic() + seconds / self.config.speedup
        while time.monotonic() < end and not self._abort.is_set():
            time.sleep(min(0.005, max(0.0, end - time.monotonic())))


def _trapezoid_time(distance: float, speed: float, accel: float) -> float:
    """Seconds to cover `distance` from rest to rest at most `speed`, accelerating at
    `accel`."""
    if distance <= 0:
        return 0.0
    ramp = speed * speed / accel  # distance to accelerate and decelerate
    if distance >= ramp:
        return 2 * speed / accel + (distance - ramp) / speed
    return 2 * math.sqrt(distance / accel)
