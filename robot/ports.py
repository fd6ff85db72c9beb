"""Ports that are not serial devices. A name registered under the entry-point group
`damas.ports` (pyproject.toml) opens a simulated machine, in the way pyserial's URL
handlers (`loop://`, `spy://`) open ports that are not devices: the session asks for a
port by its name and never names a simulator. `damas.sim.machines` registers
`sim-python`, `sim-firmware` and `sim-grbl`.

A registered opener is called as `opener(machine, world, speedup)`, where `world` is the
physics.World the simulated machine moves pieces in (None for a machine nobody watches),
and returns a simulator: `start()` (the pseudo-terminal to open), `stop()`, `sync()` and
`sim_seconds`."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Protocol

from .machine import Machine
from .physics import World

GROUP = "damas.ports"


class SimulatedMachine(Protocol):
    sim_seconds: float

    def start(self) -> str: ...

    def stop(self) -> None: ...

    def sync(self) -> None: ...


class Opener(Protocol):
    def __call__(self, machine: Machine, world: World | None,
                 speedup: float) -> SimulatedMachine: ...


def opener(port: str) -> Opener | None:
    """What opens `port` when it is a registered name, else None (a serial device)."""
    for entry in entry_points(group=GROUP):
        if entry.name == port:
            return entry.load()
    return None


def registered() -> list[str]:
    return sorted(entry.name for entry in entry_points(group=GROUP))
