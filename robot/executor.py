"""Runs planned steps on a machine and says exactly which were done.

A step counts as done when the `ok` of its block's closing dwell arrives: the controller
sends it only after the motion has ended. When the line drops, the controller resets or
raises an alarm, execution stops, the link is re-opened and the machine homed again, and
the report names the steps done, the step that was interrupted (its piece may stand
anywhere along its path: vision or the simulator must look) and the last known position.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .errors import RobotError
from .gcode import program
from .grbl import DriverError, GrblDriver, Status
from .machine import Machine
from .planner import Transfer


@dataclass(frozen=True)
class Execution:
    done: tuple[Transfer, ...]
    interrupted: Transfer | None = None
    error: str | None = None
    recovered: bool = True  # the machine is connected and homed again
    last_status: Status | None = None

    @property
    def complete(self) -> bool:
        return self.interrupted is None and self.error is None


def execute(driver: GrblDriver, machine: Machine, steps: list[Transfer],
            on_done: Callable[[Transfer], None] | None = None,
            reconnect_attempts: int = 3) -> Execution:
    blocks = program(machine, steps)
    lines = [line for block in blocks for line in block]
    ends = {}
    count = 0
    for k, block in enumerate(blocks):
        count += len(block)
        ends[count - 1] = k
    done: list[Transfer] = []

    def acked(index: int) -> None:
        if index in ends:
            step = steps[ends[index]]
            done.append(step)
            if on_done:
                on_done(step)

    try:
        driver.stream(lines, on_ack=acked)
    except DriverError as e:
        interrupted = steps[len(done)] if len(done) < len(steps) else None
        last = driver.last_status
        recovered = recover(driver, reconnect_attempts)
        return Execution(tuple(done), interrupted, str(e), recovered, last)
    return Execution(tuple(done), last_status=driver.last_status)


def recover(driver: GrblDriver, attempts: int) -> bool:
    """Stop whatever still runs, then reconnect and home. False if the machine stays
    unreachable; the caller pauses and tries again later."""
    for _ in range(max(attempts, 1)):
        try:
            driver.connect()  # a soft reset first: queued lines must not run on
            return True
        except RobotError:
            continue
    driver.close()
    return False
