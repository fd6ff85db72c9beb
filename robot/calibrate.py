"""Robot calibration: jog the tool over reference squares, fit board → machine.

The fit is a least-squares affine map from board-frame points to the machine positions
the tool was jogged to - in the coordinates the machine file uses (GRBL's MPos or WPos),
the ones the driver then sends; with four reference squares it also tells, per square,
how far the fitted map misses (the residual), so a badly jogged square stands out.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from .errors import RobotError
from .grbl import AlarmError, GrblDriver
from .machine import Machine, load_machine, save_machine
from .ports import opener

JOG = re.compile(r"^([xyz])\s*([+-]|=)\s*(-?\d+(?:\.\d+)?)$")


def default_squares(size: int) -> list[int]:
    """The outermost square of each corner of the playing area's rows: well spread."""
    per_row = size // 2
    last = size * size // 2
    return [last - per_row + 1, last, per_row, 1]


def fit_transform(board_points, machine_points):
    """((a, b, c), (d, e, f)) with x = a u + b v + c, y = d u + e v + f, and residuals."""
    if len(board_points) < 3:
        raise RobotError("at least three reference squares are needed")
    uv = np.array(board_points, dtype=float)
    xy = np.array(machine_points, dtype=float)
    design = np.hstack([uv, np.ones((len(uv), 1))])
    if np.linalg.matrix_rank(design) < 3:
        raise RobotError("the reference squares lie on one line: choose squares that span "
                         "the board")
    coef, *_ = np.linalg.lstsq(design, xy, rcond=None)
    fitted = design @ coef
    residuals = np.linalg.norm(fitted - xy, axis=1)
    transform = tuple(tuple(float(v) for v in coef[:, k]) for k in range(2))
    return transform, [float(r) for r in residuals]


def jog_to_square(driver: GrblDriver, square: int, read=input, say=print) -> tuple[float, float]:
    say(f"Jog the tool over the centre of square {square}: x+10, y-0.5, x=120 (mm), "
        "then 'ok'.")
    while True:
        try:
            text = read().strip().lower()
        except EOFError:
            raise RobotError("calibration stopped: no more input") from None
        if text == "ok":
            status = driver.status()
            return status.position[0], status.position[1]
        if text in ("quit", "q"):
            raise RobotError("calibration stopped; nothing was saved")
        match = JOG.match(text.replace(" ", ""))
        if not match:
            say("  ? type e.g. x+10, y-0.5, x=120 or ok")
            continue
        axis, how, value = match.groups()
        try:
            if how == "=":
                driver.stream([f"G90 G0 {axis.upper()}{value}", "G4 P0"])
            else:
                driver.stream([f"G91 G0 {axis.upper()}{how}{value}", "G90", "G4 P0"])
        except AlarmError as e:  # e.g. a jog beyond the soft limits: say so, home, go on
            say(f"  ! {e}; homing again")
            driver.resync()
        x, y, z = driver.status().position
        say(f"  at X{x:.2f} Y{y:.2f} Z{z:.2f}")


def calibrate(machine: Machine, driver: GrblDriver, squares: list[int], read=input,
              say=print) -> tuple[Machine, list[float]]:
    board, measured = [], []
    for square in squares:
        measured.append(jog_to_square(driver, square, read, say))
        board.append(machine.square_centre(square))
    transform, residuals = fit_transform(board, measured)
    return machine.with_transform(transform), residuals


def calibrate_interactively(args) -> int:
    machine = load_machine(args.machine)
    squares = default_squares(machine.board_size) if not args.squares else \
        [int(s) for s in args.squares.split(",")]
    simulator = None
    port = args.port
    make = opener(port)
    if make is not None:  # a simulated machine that nobody watches
        simulator = make(machine, None, 50.0)
        port = simulator.start()
    driver = GrblDriver(port, machine=machine)
    driver.check_reach = False  # the board's place is what is being fitted
    try:
        driver.connect()
        fitted, residuals = calibrate(machine, driver, squares,
                                      read=lambda: sys.stdin.readline() or _eof())
    finally:
        driver.close()
        if simulator is not None:
            simulator.stop()
    print("square  residual (mm)")
    for square, r in zip(squares, residuals, strict=True):
        print(f"{square:>6}  {r:.3f}")
    save_machine(fitted, args.machine)
    print(f"saved the fitted transform to {args.machine}")
    return 0


def _eof():
    raise EOFError
