"""Writes the example machine files in this folder (run it after changing a layout).

The layouts are `machine.standard_layout`: trays of two columns beside the board (Black's
pieces on White's left, White's on the right), the outer column first so the inner one
never blocks it, and the crowning reserve in a row behind each player's back row.

The GRBL examples are the gantry of robot/README.md's setup guide: an Arduino Uno with a
CNC shield, two steppers on GT2 belts (80 steps/mm: 200 steps x 16 microsteps / 40 mm
per turn), the same 660 x 580 mm travel as our firmware's config.h, and its `$` settings.
"""

from pathlib import Path

from damas.robot.machine import Controller, save_machine, standard_layout

HERE = Path(__file__).parent
TRAVEL = (660.0, 580.0)
PULLOFF = 2.0
ORIGIN = (126.0, 86.0)  # the board's corner, mm from the carriage's origin corner
GRBL_MACHINE = {100: 80, 101: 80, 110: 6000, 111: 6000, 120: 800, 121: 800, 32: 0}
GRBL_HOMED = {**GRBL_MACHINE, 20: 1, 21: 1, 22: 1, 23: 3, 24: 300, 25: 3000, 26: 25,
              27: PULLOFF, 130: TRAVEL[0] + PULLOFF, 131: TRAVEL[1] + PULLOFF}


if __name__ == "__main__":
    save_machine(standard_layout("10x10 magnet gantry", "gantry-magnet", 10,
                                 tool_on="M3", tool_off="M5"), HERE / "gantry-10x10.json")
    save_machine(standard_layout("8x8 magnet gantry", "gantry-magnet", 8,
                                 tool_on="M3", tool_off="M5"), HERE / "gantry-8x8.json")
    save_machine(standard_layout("10x10 pick-and-place arm", "arm", 10, kings="stack",
                                 reserve_count=8,
                                 heights={"travel": 30.0, "board": 2.0, "piece": 6.0},
                                 tool_on="M3", tool_off="M5"), HERE / "arm-10x10.json")
    # homed toward the minimum corner ($23=3), GRBL's machine space is [-$130, 0]: MPos =
    # mm from the origin corner + $27 - $130 = mm from the corner - travel
    homed_origin = (ORIGIN[0] - TRAVEL[0], ORIGIN[1] - TRAVEL[1])
    save_machine(standard_layout(
        "10x10 magnet gantry, stock GRBL 1.1h built for XY homing", "gantry-magnet", 10,
        origin=homed_origin, tool_on="M8", tool_off="M9",
        controller=Controller("grbl", "$H", "machine", GRBL_HOMED)),
        HERE / "grbl-gantry-10x10.json")
    # no switches: the carriage is pushed to the origin corner before powering up
    save_machine(standard_layout(
        "8x8 magnet gantry, stock GRBL 1.1h, no homing", "gantry-magnet", 8,
        tool_on="M3 S1000", tool_off="M5",
        controller=Controller("grbl", "none", "machine",
                              {**GRBL_MACHINE, 20: 0, 21: 0, 22: 0, 30: 1000, 31: 0})),
        HERE / "grbl-gantry-8x8.json")
