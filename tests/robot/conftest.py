"""Rigs: a machine simulator - the Python one, our firmware in simavr, or stock GRBL 1.1h
in simavr - with its physical board (physics.World) and a driver connected to it.

The firmware needs the AVR toolchain and simavr, GRBL its source too
(../shared/vendor/grbl-1.1h): without them their tests skip, unless
DAMAS_REQUIRE_FIRMWARE=1 (CI), where they fail.

GRBL machines in the tests are fast (grbl_machine): GRBL runs in simavr at a few times
real time at best (it never sleeps), so the tests give it a small board (25 mm squares),
20 steps/mm (12 kHz at the top rate, GRBL goes to 30), 600 mm/s rapids at 10000 mm/s^2
and 300 mm/s slides.
"""

import os

import pytest

from damas.robot.grbl import GrblDriver
from damas.robot.machine import Controller, example_machine, standard_layout
from damas.robot.physics import World
from damas.robot.simulator import Config, MachineSimulator
from damas.robot.state import PhysicalState
from damas.rules import Position

STEP_MM = 1 / 80  # the firmware's resolution (config.h): pin-derived positions are this exact


def require_firmware() -> None:
    from damas.robot.simavr import missing_toolchain

    missing = missing_toolchain()
    if not missing:
        return
    message = (f"firmware toolchain not installed ({', '.join(missing)}); "
               "run firmware/install-deps.sh as root")
    if os.environ.get("DAMAS_REQUIRE_FIRMWARE") == "1":
        pytest.fail(message + " [DAMAS_REQUIRE_FIRMWARE=1]", pytrace=False)
    pytest.skip(message)


@pytest.fixture
def firmware():
    """Marks a test as needing the firmware in simavr (skips or fails as above)."""
    require_firmware()


@pytest.fixture(scope="session")
def grbl():
    """Needs GRBL 1.1h in simavr: builds both variants once per run (they are cached by
    the hash of GRBL's source, so later runs reuse them)."""
    require_firmware()
    from damas.robot.grblsim import build_grbl, grbl_source
    from damas.robot.simavr import build

    if not (grbl_source() / "grbl" / "config.h").exists():
        message = f"the GRBL 1.1h source is not at {grbl_source()} (set DAMAS_GRBL_SOURCE)"
        if os.environ.get("DAMAS_REQUIRE_FIRMWARE") == "1":
            pytest.fail(message + " [DAMAS_REQUIRE_FIRMWARE=1]", pytrace=False)
        pytest.skip(message)
    build(50)
    return {variant: build_grbl(variant) for variant in ("stock", "xy-homing")}


PULLOFF = 2.0
FAST = {100: 20, 101: 20, 110: 36000, 111: 36000, 120: 10000, 121: 10000, 32: 0}
BOARD_AT = (75.0, 50.0)  # the board's corner, mm from the carriage's origin corner


def fast_grbl_machine(size=8, homing="$H", coordinates="machine", tool="coolant",
                      report="mpos", settings=None):
    """A small, fast gantry on stock GRBL, its machine file as damas calibrate robot
    would fit it: the board's corner BOARD_AT mm from the carriage's origin corner, which
    is MPos -travel after homing toward it ($23=3), MPos 0 without homing (the carriage
    stands there at power-up), and work coordinates 0 (the G54 offset set there)."""
    travel = (400.0, 350.0) if size == 10 else (350.0, 300.0)
    have = {**FAST, 10: 1 if report == "mpos" else 0}
    if homing == "$H":
        have.update({20: 1, 21: 1, 22: 1, 23: 3, 24: 600, 25: 6000, 26: 25, 27: PULLOFF,
                     130: travel[0] + PULLOFF, 131: travel[1] + PULLOFF})
        origin = (BOARD_AT[0] - travel[0], BOARD_AT[1] - travel[1])
    else:
        have.update({20: 0, 21: 0, 22: 0})
        origin = BOARD_AT
    if coordinates == "work":
        origin = BOARD_AT
    tools = {"coolant": {"tool_on": "M8", "tool_off": "M9"},
             "spindle": {"tool_on": "M3 S1000", "tool_off": "M5"},
             "servo": {"servo_angles": (80.0, 10.0)}}[tool]
    if tool == "servo":
        have.update({30: 180, 31: 0})
    have.update(settings or {})
    return standard_layout(f"fast {size}x{size} GRBL gantry", "gantry-magnet", size,
                           pitch=25.0, piece_diameter=21.25, origin=origin,
                           feed_travel=36000.0, feed_carry=18000.0,
                           controller=Controller("grbl", homing, coordinates, have), **tools)


@pytest.fixture
def grbl_machine(grbl):
    """Factory: grbl_machine(size, homing, coordinates, tool, report, settings)."""
    return fast_grbl_machine


class Rig:
    """A machine simulator with its physical board, and a driver for it.

    speed: the Python simulator's speed-up, or the firmware harness's cap on simulated
    seconds per wall second (0: as fast as it goes)."""

    def __init__(self, machine, position, simulator="python", speed=0.0):
        self.machine = machine
        self.simulator = simulator
        self.state = PhysicalState.at_start(machine, position)
        self.world = World.from_state(machine, self.state)
        self._frames = []
        if simulator == "python":
            self.sim = MachineSimulator(Config(speedup=speed or 400.0,
                                               leds=machine.board_size ** 2 // 2),
                                        on_carriage=self.world.carriage,
                                        on_tool=self.world.tool, on_leds=self._frames.append)
        else:
            from damas.robot.simavr import FirmwareSimulator

            self.sim = FirmwareSimulator(machine, self.world, speed=speed)
        self.port = self.sim.start()
        self.driver = GrblDriver(self.port, timeout=5.0)
        self.unread = b""  # bytes a test read from the port beyond the lines it wanted

    @property
    def frames(self):
        """LED frames shown so far (from the data pin, for the firmware)."""
        self.sim.sync()
        return self.sim.frames if self.simulator == "firmware" else self._frames

    def layout(self):
        """Where the pieces physically are (World.layout), once every event is in."""
        self.sim.sync()
        return self.world.layout()

    def close(self):
        self.driver.close()
        self.sim.stop()


@pytest.fixture(params=["python", "firmware"])
def simulator(request):
    if request.param == "firmware":
        require_firmware()
    return request.param


@pytest.fixture
def rig(simulator):
    """Factory: rig(variant, fen=None, kind=..., connect=True, speed=0) on each simulator."""
    made = []

    def make(variant="english", fen=None, kind="gantry-magnet", connect=True, speed=0.0):
        size = 10 if variant == "international" else 8
        machine = example_machine(size, kind)
        pos = Position.from_fen(fen, variant) if fen else Position.start(variant)
        r = Rig(machine, pos, simulator, speed)
        made.append(r)
        if connect:
            r.driver.connect()
        return r

    yield make
    for r in made:
        r.close()
