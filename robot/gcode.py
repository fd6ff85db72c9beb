"""Transfers as G-code blocks in the GRBL 1.1 dialect.

Each block ends with `G4 P0`: GRBL answers a dwell only once every motion queued before
it has finished, so its `ok` means the piece is really there. Then `$G`: its report
comes only after every line before it was acknowledged, so the driver can check that no
`ok` was lost or doubled (grbl.py). That is what lets the driver report exactly which
steps of a move were done: a step is done when its `$G` is acknowledged in its place.
"""

from __future__ import annotations

from .grbl import FRAME
from .machine import Machine
from .planner import Transfer

SYNC = "G4 P0"
GRIP_SECONDS = 0.15


def _xy(machine: Machine, point) -> str:
    x, y = machine.to_machine(point)
    return f"X{x:.3f} Y{y:.3f}"


def transfer_block(machine: Machine, step: Transfer) -> list[str]:
    if machine.slides:
        return _slide(machine, step)
    return _lift(machine, step)


def _slide(machine: Machine, step: Transfer) -> list[str]:
    lines = [f"G0 {_xy(machine, step.path[0])}", machine.tool_on, f"G4 P{GRIP_SECONDS}"]
    lines += [f"G1 {_xy(machine, p)} F{machine.feed_carry:.0f}" for p in step.path[1:]]
    lines += [machine.tool_off, SYNC, FRAME]
    return lines


def _lift(machine: Machine, step: Transfer) -> list[str]:
    h = machine.heights
    travel, board, piece = h.get("travel", 30.0), h.get("board", 0.0), h.get("piece", 5.0)
    # the gripper closes round the lowest piece it lifts: the top man of a stack when
    # uncrowning, else the whole object; a crowning man is set down on the man below
    grab = board + (piece if step.reason == "uncrown" else 0.0)
    drop = board + (piece if step.reason == "crown" else 0.0)
    return [
        f"G0 Z{travel:.3f}", f"G0 {_xy(machine, step.path[0])}", f"G0 Z{grab:.3f}",
        machine.tool_on, f"G4 P{GRIP_SECONDS}", f"G0 Z{travel:.3f}",
        f"G0 {_xy(machine, step.path[-1])}", f"G0 Z{drop:.3f}", machine.tool_off,
        f"G4 P{GRIP_SECONDS}", f"G0 Z{travel:.3f}", SYNC, FRAME,
    ]


def program(machine: Machine, steps: list[Transfer]) -> list[list[str]]:
    """One block per step, in order; absolute coordinates are set by the first."""
    blocks = [transfer_block(machine, s) for s in steps]
    if blocks:
        blocks[0] = ["G90", *blocks[0]]
    return blocks
