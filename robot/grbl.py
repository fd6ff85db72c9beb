"""A host driver for controllers that speak GRBL 1.1 over a serial line.

Works with stock GRBL 1.1 gantries, our firmware (in simavr or on an Arduino) and the
Python machine simulator. At every connection it resets the controller, reads its build
info (`$I`) and settings (`$$`, and the work offsets `$#` on GRBL), refuses a machine
file the settings contradict - before anything moves - and homes or unlocks as the
machine file says.

Lines stream with character counting against GRBL's 128-byte receive buffer, and every
acknowledgement is checked against what was sent: a block of work ends with `G4 P0` (its
`ok` comes once the motion has ended) and `$G`, whose `[GC:...]` report must come
exactly when every line before it has been acknowledged; nothing after a `$G` is sent
before it is. A lost, doubled or garbled `ok` breaks that count. Stock GRBL itself now
and then sends up to a buffer's worth of old output again (a race in its transmit
interrupt: `serial_write` sets UDRIE0 by a read-modify-write the interrupt can slip
into), which doubles replies though every line ran. So on a mismatch the driver first
recounts (`_Exchange.recount`): once the controller has answered a query whose answer
cannot be an old one (the parser state after a tool number not set in a while), every
line sent was answered at least once unless one was lost. If none was, the stream goes
on; otherwise it stops with `AckMismatch`, and the caller resets and homes again. No
wait is open-ended: the next acknowledgement must come within the machine time of what
is still queued (from the controller's `$110`/`$120` rates) plus the timeout, however
many status reports come meanwhile; a controller that has sent no status report since
the last acknowledgement (silence, or only noise) is given the timeout alone.

Every failure becomes one of the errors below, one line that says what to do.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import serial

from .errors import RobotError
from .machine import Controller, Machine
from .replies import ALARMS, Reply, describe, parse_reply

RX_BUFFER = 128
POLL_SECONDS = 0.2  # GRBL asks for at most 5 status reports a second
FRAME = "$G"  # ends a block of work: its [GC:...] report frames the acknowledgements
RESET_TO_CONTINUE = "[MSG:Reset to continue]"
MAX_PENDING_BYTES = 16384  # a "line" longer than this without an end is noise
WORD = re.compile(r"([A-Z])(-?\d*\.?\d*)")
SETTING_NAMES = {
    20: "soft limits", 21: "hard limits", 22: "homing", 23: "homing direction mask",
    27: "homing pull-off, mm", 30: "maximum spindle speed (full PWM)",
    31: "minimum spindle speed", 32: "laser mode", 100: "X steps/mm", 101: "Y steps/mm",
    110: "X maximum rate, mm/min", 111: "Y maximum rate, mm/min",
    120: "X acceleration, mm/s^2", 121: "Y acceleration, mm/s^2",
    130: "X maximum travel, mm", 131: "Y maximum travel, mm",
}
# settings that fix where the machine's coordinates are: a machine file built for other
# values would put every square elsewhere
GEOMETRY = (100, 101, 130, 131)
HOMING = (23, 27)


class DriverError(RobotError):
    """The controller said no (error:N), or did something a host cannot accept."""


class AlarmError(DriverError):
    def __init__(self, code: int | None, note: str = ""):
        meaning = ALARMS.get(code, "see the GRBL documentation") if code is not None else \
            "with an unreadable code"
        super().__init__(f"controller alarm {code if code is not None else '?'}: {meaning}"
                         + (f". {note}" if note else ""))
        self.code = code


class LinkLost(DriverError):
    """The serial line went away, or the controller stopped answering."""


class ControllerReset(DriverError):
    """The controller restarted (its banner came again) while work was under way."""


class AckMismatch(DriverError):
    """The acknowledgements do not match what was sent (lost, doubled or garbled)."""


class SettingsMismatch(RobotError):
    """The controller's settings contradict the machine file."""


@dataclass(frozen=True)
class Status:
    state: str  # Idle, Run, Hold, Home, Alarm, ...
    position: tuple[float, float, float]  # in the machine file's coordinates, mm
    mpos: tuple[float, float, float] | None = None
    wpos: tuple[float, float, float] | None = None


@dataclass
class _Sent:
    index: int
    text: str
    size: int
    seconds: float  # machine time it may take at most
    framed: bool  # a FRAME line
    sync: bool  # the controller answers it only once queued motion has ended
    report_seen: bool = False


class GrblDriver:
    def __init__(self, url: str, *, timeout: float = 10.0, baudrate: int = 115200,
                 home: bool | None = None, send_and_wait: bool = False,
                 machine: Machine | None = None):
        """machine: the machine file, checked against the controller's settings at every
        connection (and its homing and coordinates used). home: False only unlocks (an
        LED board, doctor); by default the machine file says. send_and_wait: one line at
        a time, for controllers whose buffer is unknown."""
        self.url = url
        self.send_and_wait = send_and_wait
        self.timeout = timeout
        self.baudrate = baudrate
        self.machine = machine
        self.check_reach = True  # calibration turns it off: it is fitting where things are
        self.controller = machine.controller if machine is not None else Controller()
        self.home = (self.controller.homing == "$H") if home is None else home
        self.port: serial.SerialBase | None = None
        self.version: str | None = None  # from the banner, e.g. "1.1h"
        self.build: str = ""  # [VER:...] of $I
        self.options: str = ""  # [OPT:...] of $I
        self.settings: dict[int, float] = {}
        self.wco = (0.0, 0.0, 0.0)  # work coordinate offset: WPos = MPos - WCO
        self.last_status: Status | None = None
        self.lines_sent = 0  # every line streamed since the driver was made
        self.messages: deque[str] = deque(maxlen=200)  # pushed lines and noise, for the log
        self._buffer = b""
        self._stray: str | None = None  # an acknowledgement that came for no line
        self._critical = False  # GRBL raised a limit alarm: it waits for its message
        self._motion = _Motion()
        self._marker = 0  # the tool number of the last recount's query
        self.recounts = 0  # mismatches a recount showed were only repeated replies

    # --- what is connected ----------------------------------------------------------------

    @property
    def firmware(self) -> str:
        """'damas' (our firmware), 'grbl' (stock GRBL 1.1), or '' before connecting."""
        if not self.build:
            return ""
        return "damas" if ".damas" in self.build else "grbl"

    @property
    def max_rate(self) -> float | None:
        """mm/min: the slower of GRBL's X and Y maximum rates ($110, $111)."""
        rates = [self.settings[k] for k in (110, 111) if self.settings.get(k, 0) > 0]
        return min(rates) if rates else None

    @property
    def acceleration(self) -> float | None:
        accels = [self.settings[k] for k in (120, 121) if self.settings.get(k, 0) > 0]
        return min(accels) if accels else None

    # --- the link ---------------------------------------------------------------------

    def connect(self) -> None:
        """Open the port (again), reset the controller, read what it is and how it is set
        up, check that against the machine file, then home or unlock."""
        self.open()
        self.resync()

    def open(self) -> None:
        """Open the port (again); nothing is sent."""
        self.close()
        try:
            self.port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05,
                                              write_timeout=self.timeout)
        except (serial.SerialException, ValueError, OSError) as e:
            raise LinkLost(f"cannot open {self.url}: {e}. Check the cable and the port name "
                           "(damas doctor lists the ports)") from None
        self._buffer = b""

    def resync(self) -> None:
        """On the open port: reset (honouring GRBL's wait for `Reset to continue` after a
        limit alarm), read the build info and settings, check them, home or unlock."""
        self._stray = None
        self.soft_reset()
        self.identify()
        if self.machine is not None:
            problems = check_settings(self.machine, self)
            if problems:
                raise SettingsMismatch(
                    f"the controller on {self.url} does not match the machine file "
                    f"({self.machine.name}): {'; '.join(problems)}. Nothing was moved")
        self._motion = _Motion(self.max_rate, self.acceleration)
        if self.home:
            self._home()
        else:
            self.command("$X")
        self.status()

    def identify(self) -> None:
        """Build info ($I), settings ($$) and, on GRBL, the work offsets ($#)."""
        reports = [r.shown for r in self._ask("$I") if r.kind == "report"]
        self.build = next((t for t in reports if t.startswith("[VER:")), "")
        self.options = next((t for t in reports if t.startswith("[OPT:")), "")
        if not self.build.startswith("[VER:1.1"):
            seen = self.build[5:] if self.build else (reports[0][1:] if reports else "")
            raise DriverError(f"the controller on {self.url} runs "
                              f"{seen.rstrip(':]')[:24] or 'no version it tells'}; damas speaks "
                              "GRBL 1.1: flash GRBL 1.1h or the damas firmware")
        self.settings = {r.setting[0]: r.setting[1] for r in self._ask("$$")
                         if r.setting is not None}
        self.wco = (0.0, 0.0, 0.0)
        if self.firmware == "grbl":
            offsets = {}
            for r in self._ask("$#"):
                match = re.match(r"^\[(G54|G92):(-?[\d.]+),(-?[\d.]+),(-?[\d.]+)", r.text)
                if match:
                    offsets[match.group(1)] = [float(v) for v in match.groups()[1:]]
            g54, g92 = offsets.get("G54", [0.0] * 3), offsets.get("G92", [0.0] * 3)
            (x, y, z) = (a + b for a, b in zip(g54, g92, strict=True))
            self.wco = (x, y, z)

    def _home(self) -> None:
        try:
            self.command("$H", timeout=self._homing_seconds())
        except AlarmError as e:
            if self.firmware == "grbl" and e.code in (8, 9):
                raise AlarmError(e.code, "Stock GRBL homes Z first (HOMING_CYCLE_0 in its "
                                 "config.h) and fails on a gantry without a Z switch: flash "
                                 "a GRBL built for XY homing (robot/README.md), or set "
                                 '"homing": "none" and move the carriage to the origin '
                                 "before powering up") from None
            raise
        except DriverError as e:
            if "error:5" in str(e):
                raise DriverError("the controller refused $H: homing is off on it ($22=0); "
                                  "send $22=1, or set \"homing\": \"none\" in the machine "
                                  "file") from None
            raise

    def _homing_seconds(self) -> float:
        seek = self.settings.get(25, 500.0) or 500.0
        travel = max([self.settings.get(k, 0.0) for k in (130, 131, 132)] + [200.0])
        # each cycle searches 1.5 x the travel; Z, then X and Y, then the slow locate
        return max(self.timeout, 60.0) + 3 * 1.5 * travel / seek * 60

    def close(self) -> None:
        if self.port is not None:
            try:
                self.port.close()
            except (serial.SerialException, OSError):
                pass
        self.port = None

    def soft_reset(self) -> None:
        """Ctrl-X: stops everything at once; the controller answers with its banner.
        After a hard or soft limit alarm GRBL prints `Reset to continue` and drops any
        reset that came before that message: so wait for it first."""
        if self._critical:
            self._await(RESET_TO_CONTINUE, time.monotonic() + self.timeout)
        else:
            self._drain()
        self._critical = False
        self._write(b"\x18")
        deadline = time.monotonic() + min(self.timeout, 5.0)  # an Uno's boot takes ~1 s
        while True:
            reply = parse_reply(self._readline(
                deadline, f"no banner from {self.url} after a reset: is this a GRBL "
                          "controller at 115200 baud?"))
            if reply.kind == "banner":
                self.version = reply.version
                return
            if reply.text == RESET_TO_CONTINUE:  # an alarm came just as we reset
                self._write(b"\x18")

    def _await(self, text: str, deadline: float) -> None:
        while True:
            try:
                if self._readline(deadline, "") == text:
                    return
            except LinkLost:
                if self.port is None:
                    raise
                return  # not coming: reset anyway

    def _drain(self) -> None:
        """Reads what the controller already sent (at most a second's worth): a limit
        alarm's `Reset to continue` among it means GRBL now takes a reset."""
        end = time.monotonic() + 1.0
        while True:
            try:
                line = self._readline(min(end, time.monotonic() + 0.05), "")
            except LinkLost:
                if self.port is None:
                    raise
                return
            if line.startswith("ALARM:1") or line.startswith("ALARM:2"):
                self._await(RESET_TO_CONTINUE, time.monotonic() + self.timeout)
                return
            if line == RESET_TO_CONTINUE:
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
            if len(self._buffer) > MAX_PENDING_BYTES:
                raw, self._buffer = self._buffer, b""
                return raw[:300].decode("ascii", "replace")
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
        """Send one line and wait for its answer (send-and-wait)."""
        self.stream([line], timeout=timeout)

    def _ask(self, line: str) -> list[Reply]:
        """Send a `$` query; the lines it answers before its `ok`."""
        answers: list[Reply] = []
        self.stream([line], collect=answers)
        return answers

    def stream(self, lines: Iterable[str], on_ack: Callable[[int], None] | None = None,
               timeout: float | None = None, collect: list[Reply] | None = None) -> None:
        """Send lines with character counting; `on_ack(i)` runs when line i is
        acknowledged (a FRAME line: once its report came in its place too), after the next
        lines are on their way, so a slow on_ack never holds the machine up. Stops at the
        first error, alarm, reset, acknowledgement mismatch or silence. `timeout`: how much
        longer than the machine time still queued an acknowledgement may take."""
        if self._stray is not None:
            stray, self._stray = self._stray, None
            raise AckMismatch(f"an acknowledgement ({stray}) came from {self.url} for no line "
                              "sent: the count of acknowledgements cannot be trusted")
        exchange = _Exchange(self, list(lines), timeout or self.timeout, collect)
        try:
            while exchange.todo or exchange.pending:
                exchange.send_more()
                exchange.tell(on_ack)
                try:
                    exchange.take(exchange.next_reply())
                except AckMismatch:
                    if not exchange.recount():
                        raise
        finally:  # acknowledged lines are told even when the stream then fails
            exchange.tell(on_ack)

    def _pushed(self, reply: Reply) -> None:
        if reply.kind == "alarm":
            self._critical = self.firmware == "grbl" and reply.code in (1, 2)
            raise AlarmError(reply.code)
        if reply.kind == "banner":
            raise ControllerReset(f"the controller on {self.url} restarted; its position is "
                                  "lost until it is homed again")
        if reply.kind == "status":
            self.last_status = self._in_frame(reply.status)
        elif reply.kind in ("ok", "error"):
            self._stray = reply.shown
        elif reply.kind != "empty":
            self.messages.append(reply.shown)

    def _in_frame(self, report) -> Status:
        """A status report in the machine file's coordinates (MPos or WPos)."""
        if report.wco is not None:
            self.wco = report.wco
        wco = self.wco
        mpos = report.mpos or tuple(w + o for w, o in zip(report.wpos, wco, strict=True))
        wpos = report.wpos or tuple(m - o for m, o in zip(report.mpos, wco, strict=True))
        position = wpos if self.controller.coordinates == "work" else mpos
        return Status(report.state, position, mpos, wpos)

    # --- status and real-time commands ----------------------------------------------------

    def status(self) -> Status:
        self._write(b"?")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = parse_reply(self._readline(deadline, f"no status from {self.url}"))
            self._pushed(reply)
            if reply.kind == "status":
                assert self.last_status is not None  # _pushed has just recorded it
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


class _Exchange:
    """One stream of lines: what is sent and not yet acknowledged, and the checks."""

    def __init__(self, driver: GrblDriver, lines: list[str], margin: float,
                 collect: list[Reply] | None):
        self.driver = driver
        self.todo = deque(enumerate(lines))
        self.single = len(lines) == 1
        self.pending: deque[_Sent] = deque()
        self.acked: list[int] = []  # acknowledged, not yet told
        self.queued = 0  # bytes in the controller's receive buffer
        self.in_flight = 0.0  # machine seconds of what was sent and may not have run yet
        self.margin = margin
        self.collect = collect
        self.last_progress = time.monotonic()
        self.heard = False  # a status report came since the last acknowledgement
        self.next_poll = self.last_progress + POLL_SECONDS
        # lines go and are acknowledged in order: counts say which
        self.sent = 0
        self.acked_count = 0
        self.answered = 0  # acknowledgements (ok or error) counted, whatever they matched

    def send_more(self) -> None:
        """As many lines as the receive buffer takes; a FRAME is a barrier: the next
        step's lines wait until it is verified, so a mismatch never finds a later step
        begun."""
        driver, pending = self.driver, self.pending
        while self.todo and not (driver.send_and_wait and pending) and \
                not (pending and pending[-1].framed):
            text = self.todo[0][1].strip()
            data = (text + "\n").encode("ascii", "replace")
            if pending and self.queued + len(data) > RX_BUFFER - 1:
                return
            index, _ = self.todo.popleft()
            driver._write(data)
            driver.lines_sent += 1
            self.sent += 1
            sent = _Sent(index, text, len(data), driver._motion.seconds(text),
                         text == FRAME, _is_sync(text))
            pending.append(sent)
            self.queued += sent.size
            self.in_flight += sent.seconds

    def tell(self, on_ack) -> None:
        while self.acked and on_ack:
            on_ack(self.acked.pop(0))

    def next_reply(self) -> Reply:
        """The next line from the controller, asking for status now and then; LinkLost when
        no acknowledgement comes within the machine time queued and the margin."""
        driver = self.driver
        while True:
            now = time.monotonic()
            # the machine time queued counts only once the controller shows it is there
            # (a status report): a line of noise gives up at the timeout, as it says
            deadline = self.last_progress + self.margin + (self.in_flight if self.heard
                                                           else 0.0)
            if now > deadline:
                head = self.pending[0]
                raise LinkLost(
                    f"no acknowledgement of line {head.index + 1} (`{head.text[:30]}`) from "
                    f"{driver.url} in {now - self.last_progress:.0f} s"
                    + (", although it answers status requests: an acknowledgement was lost"
                       if self.heard else ": it stopped answering"))
            if now >= self.next_poll:  # a long move answers late: keep asking how it goes
                driver._write(b"?")
                self.next_poll = now + POLL_SECONDS
            try:
                return parse_reply(driver._readline(min(self.next_poll, deadline),
                                                    f"{driver.url} stopped answering"))
            except LinkLost:
                if driver.port is None:
                    raise

    def take(self, reply: Reply) -> None:
        if reply.kind in ("ok", "error"):
            self.answered += 1
            self._acknowledged(reply)
        elif reply.kind == "report" and reply.text.startswith("[GC:"):
            head = self.pending[0] if self.pending else None
            if head is None or not head.framed or head.report_seen:
                where = f"line {head.index + 1} (`{head.text[:30]}`)" if head else "no line"
                raise AckMismatch(f"{self.driver.url} sent a parser-state report while "
                                  f"{where} was still unacknowledged: an acknowledgement was "
                                  "lost or garbled")
            head.report_seen = True
        else:
            self.heard |= reply.kind == "status"
            self.driver._pushed(reply)
            if self.collect is not None and reply.kind in ("report", "setting", "message"):
                self.collect.append(reply)

    def _acknowledged(self, reply: Reply) -> None:
        url = self.driver.url
        if not self.pending:
            raise AckMismatch(f"an acknowledgement ({reply.shown}) came from {url} for no "
                              "line sent")
        sent = self.pending.popleft()
        self.queued -= sent.size
        self.last_progress = time.monotonic()
        self.heard = False
        if sent.framed and not sent.report_seen:
            raise AckMismatch(f"{url} acknowledged line {sent.index + 1} ({FRAME}) before its "
                              "report: an extra acknowledgement came earlier")
        if reply.kind == "error":
            which = f"`{sent.text[:30]}`" if self.single else \
                f"line {sent.index + 1} (`{sent.text[:30]}`)"
            raise DriverError(f"the controller on {url} refused {which}: "
                              f"{describe('error', reply.code)}")
        if sent.sync:  # the controller answers it once the motion queued before has run
            self.in_flight = sum(p.seconds for p in self.pending)
        self.acked.append(sent.index)
        self.acked_count += 1

    def recount(self) -> bool:
        """After a mismatch: True when every line sent was answered `ok` (so every line
        ran, and only replies were repeated); then the stream goes on as if all were
        acknowledged in their place. False when one may be lost (the mismatch stands).
        The controller is let come to rest, then asked for its parser state after a tool
        number (`T`, which moves nothing) not set in a while: that report cannot be an
        old one sent again, and every reply for the lines before it has come before it."""
        driver = self.driver
        marker = driver._marker % 255 + 1
        deadline = time.monotonic() + self.in_flight + self.margin
        try:
            idle = 0
            while idle < 2:  # the receive buffer has room for the query only at rest
                driver._write(b"?")
                until = time.monotonic() + POLL_SECONDS
                while True:
                    if time.monotonic() > deadline:
                        return False
                    try:
                        reply = parse_reply(driver._readline(until, ""))
                    except LinkLost:
                        if driver.port is None:
                            raise
                        break
                    if not self._counted(reply):
                        return False
                    if reply.status is not None:
                        idle = idle + 1 if reply.status.state == "Idle" else 0
            driver._marker = marker
            driver._write(f"T{marker}\n{FRAME}\n".encode("ascii"))
            while True:
                reply = parse_reply(driver._readline(deadline, ""))
                if reply.kind == "report" and reply.text.startswith("[GC:") and \
                        f" T{marker} " in reply.text:
                    break
                if not self._counted(reply):
                    return False
            if self.answered - 1 < self.sent:  # the tool number's own ok is counted
                return False
            reply = parse_reply(driver._readline(deadline, ""))
            if reply.kind != "ok":
                return False
        except LinkLost:
            if driver.port is None:
                raise
            return False
        # every line sent ran: each is acknowledged in its place
        self.acked.extend(range(self.acked_count, self.sent))
        self.acked_count = self.sent
        self.pending.clear()
        self.queued = 0
        self.in_flight = 0.0
        self.last_progress = time.monotonic()
        self.heard = False
        driver.recounts += 1
        driver.messages.append(f"replies from {driver.url} were repeated; every line was "
                               "acknowledged, so the stream went on")
        return True

    def _counted(self, reply: Reply) -> bool:
        """A reply while recounting: acknowledgements counted, an error means a line
        was refused (False), alarms and restarts raise as ever."""
        if reply.kind == "ok":
            self.answered += 1
        elif reply.kind == "error":
            return False
        elif reply.kind in ("alarm", "banner"):
            self.driver._pushed(reply)
        elif reply.status is not None:
            self.driver.last_status = self.driver._in_frame(reply.status)
        return True


def _is_sync(text: str) -> bool:
    return bool(re.match(r"^G4(\D|$)", text.upper().replace(" ", "")))


class _Motion:
    """How long a line may take on the machine, at most: moves from rest to rest at the
    controller's rates ($110/$111 for G0, F for G1, never above the rate limit) and
    acceleration ($120/$121); dwells; a generous bound for homing."""

    def __init__(self, max_rate: float | None = None, acceleration: float | None = None):
        self.rate = max_rate or 6000.0
        self.acceleration = acceleration or 100.0
        self.here = [0.0, 0.0, 0.0]
        self.known = False  # the position is unknown until a move with every axis
        self.absolute = True
        self.feed = self.rate

    def seconds(self, text: str) -> float:
        line = text.upper().replace(" ", "")
        if line.startswith("$H"):
            return 0.0  # command() gives homing its own timeout
        if line.startswith("$"):
            return 0.0
        words: dict[str, list[float]] = {}
        for letter, number in WORD.findall(line):
            try:
                words.setdefault(letter, []).append(float(number))
            except ValueError:
                return 0.0
        codes = {f"{k}{v:g}" for k in "GM" for v in words.get(k, [])}
        if "G90" in codes:
            self.absolute = True
        if "G91" in codes:
            self.absolute = False
        if "F" in words:
            self.feed = words["F"][0]
        if "G4" in codes:
            return max(words.get("P", [0.0])[0], 0.0)
        target = list(self.here)
        moved = False
        for i, axis in enumerate("XYZ"):
            if axis in words:
                value = words[axis][0]
                target[i] = value if self.absolute else target[i] + value
                moved = True
        if not moved:
            return 0.0
        distance = math.dist(self.here, target) if self.known else 2000.0
        self.here = target
        self.known = self.known or self.absolute and all(a in words for a in "XY")
        rate = self.rate if "G1" not in codes else min(self.feed, self.rate)
        return _ramp_seconds(distance, max(rate, 1.0) / 60, self.acceleration) + 0.1


def _ramp_seconds(distance: float, speed: float, accel: float) -> float:
    """Seconds to cover `distance` from rest to rest at most `speed` (mm/s)."""
    ramp = speed * speed / accel
    if distance >= ramp:
        return 2 * speed / accel + (distance - ramp) / speed
    return 2 * math.sqrt(distance / accel)


def configure(driver: GrblDriver, machine: Machine) -> list[str]:
    """Sends a stock GRBL the machine file's `$` settings that it lacks (they stay in its
    EEPROM), then checks them; returns the lines sent. Nothing moves."""
    driver.open()
    driver.soft_reset()
    driver.identify()
    if driver.firmware != "grbl":
        raise RobotError(f"the controller on {driver.url} runs the damas firmware, whose "
                         "settings are built in (firmware/damas/config.h): nothing to send")
    lines = settings_to_send(machine, driver.settings)
    for line in lines:
        driver.command(line)
    driver.identify()
    problems = check_settings(machine, driver)
    if problems:
        raise SettingsMismatch(f"after sending the settings, the controller on {driver.url} "
                               f"still does not match the machine file: {'; '.join(problems)}")
    return lines


def settings_to_send(machine: Machine, settings: dict[int, float]) -> list[str]:
    """The `$` lines that give a GRBL the machine file's settings, in an order GRBL takes:
    homing ($22) before soft limits ($20), which it refuses without homing."""
    lines = []
    for key in sorted(machine.controller.settings, key=lambda k: (k != 22, k)):
        want = machine.controller.settings[key]
        if key not in settings or not math.isclose(settings[key], want, abs_tol=1e-3):
            lines.append(f"${key}={want:g}")
    return lines


def describe_settings(settings: dict[int, float]) -> str:
    """GRBL's settings that matter to a board robot, in words."""
    def axis(letter: str, k: int) -> str:
        return (f"{letter} {settings.get(100 + k, 0):g} steps/mm, "
                f"{settings.get(110 + k, 0):g} mm/min, {settings.get(120 + k, 0):g} mm/s^2, "
                f"travel {settings.get(130 + k, 0):g} mm")

    def switch(k: int) -> str:
        return {1.0: "on", 0.0: "off"}.get(settings[k], "?") if k in settings else "?"

    return (f"homing {switch(22)} ($22), soft limits "
            f"{switch(20)} ($20), hard limits {switch(21)}"
            f" ($21); {axis('X', 0)}; {axis('Y', 1)}; status reports "
            f"{'MPos' if int(settings.get(10, 1)) & 1 else 'WPos'} ($10)")


def check_settings(machine: Machine, driver: GrblDriver) -> list[str]:
    """What in the controller contradicts the machine file, each with the line to send."""
    wanted = machine.controller
    if driver.firmware != wanted.firmware:
        name = {"damas": "the damas firmware", "grbl": "stock GRBL"}
        return [f"the controller runs {name[driver.firmware]} ({driver.build}) but the "
                f'machine file says "firmware": "{wanted.firmware}": fix the machine file']
    if driver.firmware != "grbl":
        return []
    have = driver.settings
    problems = []

    def differs(key: int, want: float, why: str = "") -> None:
        if key in have and not math.isclose(have[key], want, abs_tol=1e-3):
            name = SETTING_NAMES.get(key, "")
            problems.append(f"${key}={have[key]:g}{f' ({name})' if name else ''} but the "
                            f"machine {why or 'file says'} {want:g}: send ${key}={want:g}")

    for key in GEOMETRY + (HOMING if wanted.homing == "$H" else ()):
        if key in wanted.settings:
            differs(key, wanted.settings[key])
    differs(22, 1.0 if wanted.homing == "$H" else 0.0,
            f'file homes with "{wanted.homing}", so $22 must be')
    soft = have.get(20, 0.0) == 1
    if soft and wanted.homing == "none":
        problems.append("soft limits are on ($20=1) but the machine is not homed: send $20=0")
    tool = machine.tool_on.upper().split()
    if tool and tool[0] in ("M3", "M4"):
        differs(32, 0.0, "switches its tool with M3, which laser mode only powers while "
                "moving: $32 must be")
        s = next((float(w[1:]) for w in tool if w.startswith("S") and _is_number(w[1:])), None)
        if machine.servo_angles is None and s is not None and have.get(30, s) > s:
            problems.append(f"$30={have[30]:g} (maximum spindle speed) gives {machine.tool_on}"
                            f" only {s / have[30]:.0%} of full power: send $30={s:g}")
        for key in (30, 31):
            if machine.servo_angles is not None and key in wanted.settings:
                differs(key, wanted.settings[key])
    if wanted.coordinates == "machine" and any(abs(o) > 1e-3 for o in driver.wco[:2]):
        x, y = driver.wco[:2]
        problems.append(f"GRBL's work offset is X{x:g} Y{y:g} but the machine file uses machine "
                        "coordinates: send G10 L2 P1 X0 Y0 and G92.1 (or set \"coordinates\": "
                        '"work")')
    if soft and not problems and driver.check_reach:
        problems += _outside_soft_limits(machine, driver)
    return problems


def _outside_soft_limits(machine: Machine, driver: GrblDriver) -> list[str]:
    """With soft limits on, GRBL refuses targets outside [-$130, 0] x [-$131, 0] in machine
    coordinates ([0, travel] on an axis homed toward its minimum when built with
    HOMING_FORCE_SET_ORIGIN, option Z of $I)."""
    have = driver.settings
    offset = driver.wco if machine.controller.coordinates == "work" else (0.0, 0.0, 0.0)
    problems = []
    for axis, key in ((0, 130), (1, 131)):
        travel = have.get(key, 0.0)
        positive = "Z" in driver.options.split(",")[0] and \
            int(have.get(23, 0)) & (1 << axis)
        low, high = (0.0, travel) if positive else (-travel, 0.0)
        values = [p[axis] + offset[axis] for p in machine.reach()]
        letter = "XY"[axis]
        if min(values) < low - 1e-6 or max(values) > high + 1e-6:
            need = math.ceil(max(abs(v) for v in values))
            fits = (min(values) >= 0) if positive else (max(values) <= 0)
            fix = f"send ${key}={need}" if fits else "run damas calibrate robot"
            problems.append(f"the machine file sends the carriage to {letter} "
                            f"{min(values):.1f} .. {max(values):.1f} (machine coordinates) but "
                            f"GRBL's soft limits allow {letter} {low:g} .. {high:g}: {fix}")
    return problems


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
