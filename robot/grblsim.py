"""A stock GRBL 1.1h gantry in simavr: the machine most hobby builds run, as a test oracle.

GRBL itself is built from its exact source (`../shared/vendor/grbl-1.1h`, GPLv3, never
copied into this project; `DAMAS_GRBL_SOURCE` may point elsewhere) with Debian's avr-gcc
in a temporary copy, once per source and variant: the ELF is cached in
`firmware/build/grbl/<variant>-<hash of the source>/`. Variants:

- `stock`: GRBL as shipped. Its homing cycle moves Z first, so `$H` fails (ALARM:9) on a
  gantry without a Z switch.
- `xy-homing`: the one change a gantry with homing needs, made the way GRBL documents
  it: its config.h, which says "the following are two examples to setup homing for 2-axis
  machines", with `HOMING_CYCLE_0` set to X and Y together and no second cycle.

`GrblSimulator(machine, world)` runs it in our harness (`damas-sim --grbl`, see
firmware/README.md) with the machine built as the machine file's GRBL settings say
(steps/mm `$100`, travel `$130` less the pull-off `$27`, the switches `$27` beyond each
end), powers it up with a blank EEPROM, and sets GRBL up as a user would once: the `$`
lines of the machine file (what `damas doctor` prints), and the G54 work offset when the
machine uses work coordinates. The physical board is then placed where the machine file
says: GRBL's machine coordinates are the harness's physical ones shifted by what GRBL's
conventions make them (after homing toward the minimum, MPos = physical + `$27` -
`$130`; without homing, MPos is 0 where the carriage stood at power-up), and work
coordinates subtract the offset. What the pins show - steps, and the tool pin GRBL
drives (A3 for `M8`, the PWM on D11 for `M3 S...`) - moves the world.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .errors import RobotError
from .machine import Machine
from .physics import World
from .simavr import FIRMWARE_DIR, Event, FirmwareSimulator, FirmwareUnavailable, build

SOURCE_ENV = "DAMAS_GRBL_SOURCE"
VARIANTS = ("stock", "xy-homing")
CACHE = FIRMWARE_DIR / "build" / "grbl"
BANNER = "Grbl 1.1h ['$' for help]"
PULLOFF = 2.0  # mm: where the switches trip when the machine has no homing settings


def grbl_source() -> Path:
    """GRBL 1.1h's source: $DAMAS_GRBL_SOURCE, else shared/vendor/grbl-1.1h beside the
    checkout (or beside one of its parent folders)."""
    if os.environ.get(SOURCE_ENV):
        return Path(os.environ[SOURCE_ENV])
    repo = FIRMWARE_DIR.parent
    for folder in (repo, *repo.parents):
        candidate = folder.parent / "shared" / "vendor" / "grbl-1.1h"
        if (candidate / "grbl" / "config.h").exists():
            return candidate
    return repo.parent / "shared" / "vendor" / "grbl-1.1h"


def source_hash(source: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted((source / "grbl").rglob("*")) + [source / "Makefile"]:
        if path.is_file():
            digest.update(str(path.relative_to(source)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def xy_homing(config: str) -> str:
    """GRBL's config.h with homing for a 2-axis machine, as its own example shows."""
    cycles = re.compile(r"^#define HOMING_CYCLE_[012]\b.*$", re.M)
    if len(cycles.findall(config)) != 2:
        raise FirmwareUnavailable("GRBL's config.h does not define HOMING_CYCLE_0 and _1 as "
                                  "1.1h does: is this GRBL 1.1h?")
    first = True

    def one(match):
        nonlocal first
        line, first = ("#define HOMING_CYCLE_0 ((1<<X_AXIS)|(1<<Y_AXIS))" if first else ""), False
        return line

    return cycles.sub(one, config)


def build_grbl(variant: str = "xy-homing") -> Path:
    """The ELF of GRBL 1.1h for `variant`, built once per source (under a file lock)."""
    if variant not in VARIANTS:
        raise ValueError(f"GRBL variant {variant!r}: choose from {VARIANTS}")
    source = grbl_source()
    if not (source / "grbl" / "config.h").exists():
        raise FirmwareUnavailable(f"the GRBL 1.1h source is not at {source}: set "
                                  f"{SOURCE_ENV} to its folder")
    if shutil.which("avr-gcc") is None or shutil.which("make") is None:
        raise FirmwareUnavailable("building GRBL needs make and avr-gcc: run "
                                  "firmware/install-deps.sh as root")
    folder = CACHE / f"{variant}-{source_hash(source)}"
    elf = folder / "grbl.elf"
    if elf.exists():
        return elf
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time; the others then reuse it
        if elf.exists():
            return elf
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=CACHE))
        try:
            copy = work / "grbl-1.1h"
            shutil.copytree(source, copy)
            for path in copy.rglob("*"):  # the source may be read-only
                path.chmod(path.stat().st_mode | 0o200)
            (copy / "build").mkdir(exist_ok=True)
            if variant == "xy-homing":
                config = copy / "grbl" / "config.h"
                config.write_text(xy_homing(config.read_text()))
            done = subprocess.run(["make", "-C", str(copy)], capture_output=True, text=True,
                                  timeout=600)
            if done.returncode != 0 or not (copy / "build" / "main.elf").exists():
                raise FirmwareUnavailable(f"building GRBL 1.1h ({variant}) failed:\n"
                                          + (done.stdout + done.stderr)[-2000:])
            shutil.copy2(copy / "build" / "main.elf", work / "grbl.elf")
            shutil.rmtree(copy)
            work.rename(folder)
        finally:
            if work.exists():
                shutil.rmtree(work, ignore_errors=True)
    return elf


class GrblSimulator(FirmwareSimulator):
    """Stock GRBL 1.1h (or its XY-homing build) on a simulated CNC-shield gantry.

    settings: the `$` settings the user sent once (default: the machine file's);
    start: where the carriage stands at power-up, physical mm (without homing the machine
    file's origin is there: the user moved the carriage to it); work_offset: the G54 offset
    the user set, in machine coordinates (default with work coordinates: the physical
    origin, so work coordinates are physical ones)."""

    def __init__(self, machine: Machine, world: World | None = None, *, speed: float = 0.0,
                 settings: dict[int, float] | None = None,
                 start: tuple[float, float] = (0.0, 0.0),
                 work_offset: tuple[float, float] | None = None, variant: str | None = None):
        super().__init__(machine, world, speed=speed, start=start)
        controller = machine.controller
        self.settings = dict(controller.settings if settings is None else settings)
        self.homing = controller.homing == "$H"
        self.variant = variant or ("xy-homing" if self.homing else "stock")
        built = controller.settings  # the mechanics are as the machine file says
        self.pulloff = built.get(27, PULLOFF) if self.homing else PULLOFF
        self.steps = (built.get(100, 80.0), built.get(101, 80.0))
        self.travel = tuple(max(built.get(k, 660.0) - (self.pulloff if self.homing else 0),
                                1.0) for k in (130, 131))
        have = {**built, **self.settings}  # what GRBL was told
        if self.homing:  # homed toward the minimum ($23=3): machine space [-$130, 0]
            mpos_offset = tuple(have.get(27, 1.0) - have.get(k, 200.0) for k in (130, 131))
        else:
            mpos_offset = (-start[0], -start[1])
        if controller.coordinates == "work":
            self.work_offset = work_offset if work_offset is not None else mpos_offset
        else:
            self.work_offset = (0.0, 0.0)
        self.offset = tuple(m - w for m, w in zip(mpos_offset, self.work_offset, strict=True))
        self.tool = _tool_of(machine)
        self._tool_on = False

    def _harness(self) -> tuple[Path, list[str]]:
        folder = build(50)  # the Uno harness; GRBL's settings describe the machine
        elf = build_grbl(self.variant)
        x, y = self.start_point
        return folder / "damas-sim", [
            "--grbl", "--steps-per-mm", f"{self.steps[0]},{self.steps[1]}",
            "--travel", f"{self.travel[0]},{self.travel[1]}", "--pulloff", str(self.pulloff),
            "--start", f"{x},{y}", str(elf)]

    def _power_up(self) -> None:
        """Powers GRBL up (blank EEPROM: error:7 and the defaults first), then sends the
        user's one-time setup, each line answered `ok`."""
        import serial

        with serial.Serial(self.port, 115200, timeout=0.1) as link:
            self.power_on()
            self._expect(link, lambda line: line == BANNER, "its banner")
            lines = [f"${k}={v:g}" for k, v in sorted(self.settings.items(), key=_order)]
            if any(abs(o) > 0 for o in self.work_offset):
                lines.append(f"G10 L2 P1 X{self.work_offset[0]:.3f} Y{self.work_offset[1]:.3f}")
            for line in lines:
                link.write(line.encode("ascii") + b"\n")
                answer = self._expect(link, lambda s: s == "ok" or s.startswith("error:"),
                                      f"an answer to {line}")
                if answer != "ok":
                    self.stop()
                    raise RobotError(f"GRBL answered {answer} to the setup line {line}")

    def _expect(self, link, wanted, what: str) -> str:
        seen, deadline = b"", time.monotonic() + 20
        while True:
            while b"\n" in seen:
                raw, seen = seen.split(b"\n", 1)
                line = raw.decode("ascii", "replace").strip()
                if wanted(line):
                    return line
            if time.monotonic() > deadline:
                self.stop()
                raise FirmwareUnavailable(f"GRBL in simavr sent no {what}; "
                                          f"{self._harness_output()}")
            seen += link.read(256)

    # --- what the pins say, in the machine file's coordinates ------------------------

    def to_frame(self, x: float, y: float) -> tuple[float, float]:
        return (x + self.offset[0], y + self.offset[1])

    def _tool_event(self, event: Event) -> bool | None:
        if event.kind == "MAG" and self.tool[0] == "coolant":
            return event.fields["on"] == "1"
        if event.kind == "PWM" and self.tool[0] == "pwm":
            return event.num("duty") >= self.tool[1]
        return None


def _tool_of(machine: Machine) -> tuple[str, float]:
    """Which pin the machine file's tool_on drives on GRBL, and for the PWM the duty above
    which the magnet holds (half way between tool_on's and tool_off's)."""
    on = machine.tool_on.upper().split()
    if on[:1] == ["M8"]:
        return ("coolant", 0.0)
    settings = machine.controller.settings
    top, bottom = settings.get(30, 1000.0), settings.get(31, 0.0)

    def duty(words) -> float:
        if words[:1] != ["M3"]:
            return 0.0
        s = next((float(w[1:]) for w in words if w.startswith("S")), 0.0)
        return min(max((s - bottom) / (top - bottom), 0.0), 1.0)

    return ("pwm", (duty(on) + duty(machine.tool_off.upper().split())) / 2)


def _order(item) -> tuple[int, int]:
    """$22 (homing) before $20 (soft limits, which GRBL refuses without homing)."""
    key = item[0]
    return (0 if key == 22 else 1, key)
