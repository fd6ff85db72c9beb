"""The simulated machines behind the port names `sim-python`, `sim-firmware` and
`sim-grbl` (registered in pyproject.toml under `damas.ports`, see robot/ports.py)."""

from __future__ import annotations

from damas.robot.machine import Machine
from damas.robot.physics import World


def python_machine(machine: Machine, world: World | None, speedup: float):
    """The Python GRBL simulator; it moves the world's pieces when there is one."""
    from damas.robot.simulator import Config, MachineSimulator

    if world is None:
        return MachineSimulator(Config(speedup=speedup))
    return MachineSimulator(Config(speedup=speedup, leds=machine.board_size ** 2 // 2),
                            on_carriage=world.carriage, on_tool=world.tool)


def firmware_machine(machine: Machine, world: World | None, speedup: float):
    """Our firmware in simavr (the world follows its pins); runs as fast as it can."""
    from damas.robot.simavr import FirmwareSimulator

    return FirmwareSimulator(machine, world)


def grbl_machine(machine: Machine, world: World | None, speedup: float):
    """Stock GRBL 1.1h in simavr, set up as the machine file's GRBL settings say."""
    from damas.robot.grblsim import GrblSimulator

    return GrblSimulator(machine, world)
