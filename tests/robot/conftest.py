import pytest

from damas.robot.grbl import GrblDriver
from damas.robot.machine import example_machine
from damas.robot.physics import World
from damas.robot.simulator import Config, MachineSimulator
from damas.robot.state import PhysicalState
from damas.rules import Position


class Rig:
    """A machine simulator with its physical board, and a driver connected to it."""

    def __init__(self, machine, position, speedup=400.0):
        self.machine = machine
        self.state = PhysicalState.at_start(machine, position)
        self.world = World.from_state(machine, self.state)
        self.sim = MachineSimulator(Config(speedup=speedup, leds=machine.board_size ** 2 // 2),
                                    on_carriage=self.world.carriage, on_tool=self.world.tool,
                                    on_leds=self.frames_append)
        self.frames = []
        self.port = self.sim.start()
        self.driver = GrblDriver(self.port, timeout=5.0)

    def frames_append(self, frame):
        self.frames.append(frame)

    def close(self):
        self.driver.close()
        self.sim.stop()


@pytest.fixture
def rig():
    made = []

    def make(variant="english", fen=None, kind="gantry-magnet", connect=True):
        size = 10 if variant == "international" else 8
        machine = example_machine(size, kind)
        pos = Position.from_fen(fen, variant) if fen else Position.start(variant)
        r = Rig(machine, pos)
        made.append(r)
        if connect:
            r.driver.connect()
        return r

    yield make
    for r in made:
        r.close()
