"""Writes the example machine files in this folder (run it after changing a layout).

The layouts: trays of two columns beside the board (Black's pieces on White's left,
White's on the right), the outer column first so the inner one never blocks it, and the
crowning reserve in a row behind each player's back row. Everything keeps a piece's
width from the lane that runs around the board.
"""

from pathlib import Path

from damas.robot.machine import Machine, save_machine

HERE = Path(__file__).parent


def layout(name, kind, size, kings, reserve_count, heights, tool_on, tool_off):
    p, d = 40.0, 34.0
    side = size * p
    rows = [p / 2 + p * k for k in range(size)]
    black_tray = [(-96.0, v) for v in rows] + [(-56.0, v) for v in rows]
    white_tray = [(side + 96.0, v) for v in rows] + [(side + 56.0, v) for v in rows]
    white_reserve = [(p / 2 + p * k, -56.0) for k in range(reserve_count)]
    black_reserve = [(side - p / 2 - p * k, side + 56.0) for k in range(reserve_count)]
    return Machine(
        name=name, kind=kind, board_size=size, pitch=p, piece_diameter=d,
        board_to_machine=((1.0, 0.0, 126.0), (0.0, 1.0, 86.0)),
        workspace=(-116.0, -76.0, side + 116.0, side + 76.0),
        trays={"white": tuple(white_tray), "black": tuple(black_tray)},
        reserve={"white": tuple(white_reserve), "black": tuple(black_reserve)},
        kings=kings, heights=heights, tool_on=tool_on, tool_off=tool_off,
    )


if __name__ == "__main__":
    gantry = {"travel": 0.0}
    save_machine(layout("10x10 magnet gantry", "gantry-magnet", 10, "flat", 6, gantry,
                        "M3", "M5"), HERE / "gantry-10x10.json")
    save_machine(layout("8x8 magnet gantry", "gantry-magnet", 8, "flat", 6, gantry,
                        "M3", "M5"), HERE / "gantry-8x8.json")
    arm = {"travel": 30.0, "board": 2.0, "piece": 6.0}
    save_machine(layout("10x10 pick-and-place arm", "arm", 10, "stack", 8, arm, "M3", "M5"),
                 HERE / "arm-10x10.json")
