"""Rigs: a machine simulator - the Python one, or our firmware in simavr - with its
physical board (physics.World) and a driver connected to it.

The firmware needs the AVR toolchain and simavr: without them its tests skip, unless
DAMAS_REQUIRE_FIRMWARE=1 (CI), where they fail.
"""

import os

import pytest

from damas.robot.grbl import GrblDriver
from damas.robot.machine import example_machine
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
