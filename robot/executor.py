"""Runs planned steps on a machine and says exactly which were done.

A step counts as done when its block's closing `$G` is acknowledged in its place (after
the `G4 P0` that waits for the motion to end; gcode.py). When the line drops, the
controller resets or raises an alarm, or the acknowledgements stop matching what was
sent, execution stops, the controller is reset (on the open line, else on a re-opened
one) and homed again, and the report names the steps done, the step that was interrupted
(its piece may stand anywhere along its path: vision or the simulator must look) and the
last known position.
"""

from __future__ import annotations

import math
import time
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
    if driver.max_rate is not None:  # never plan faster than the controller goes
        machine = machine.with_feeds_at_most(driver.max_rate)
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
        began = time.monotonic()
        recovered = recover(driver, reconnect_attempts, began + driver.timeout)
        spent = time.monotonic() - began  # said: the give-up's whole time is true
        error = (f"{e}; {'the machine came back' if recovered else 'reconnecting failed'} "
                 f"after {spent:.0f} s more")
        return Execution(tuple(done), interrupted, error, recovered, last)
    return Execution(tuple(done), last_status=driver.last_status)


def recover(driver: GrblDriver, attempts: int, deadline: float = math.inf) -> bool:
    """Stop whatever still runs (a soft reset first: queued lines must not run on), then
    home again: on the open line if it still works, else on a re-opened one. False if the
    machine stays unreachable; the caller pauses and tries again later. No new attempt
    begins after `deadline` (the driver's timeout after the failure)."""
    if driver.port is not None:
        try:
            driver.resync()
            return True
        except RobotError:
            pass
    for _ in range(max(attempts, 1)):
        if time.monotonic() > deadline:
            break
        try:
            driver.connect()
            return True
        except RobotError:
            continue
    driver.close()
    return False
