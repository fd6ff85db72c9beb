"""The LED grid under the squares: shows a move or the squares of an irregularity.

One WS2812 LED per dark square, chained in square-number order (LED i is square i + 1).
Our firmware's M-codes: `M150 [I<led>] R<r> U<g> B<b>` sets one LED (all without I) in a
frame buffer, `M151` shows the frame. Showing turns interrupts off for a moment, so every
line waits for its `ok` (send-and-wait), never character counting. Stock GRBL has no LED
commands: the LED grid runs our firmware, and a grid on a GRBL controller is refused.
"""

from __future__ import annotations

import time

from damas.rules import Move

from .errors import RobotError
from .grbl import GrblDriver

RGB = tuple[int, int, int]
COLOURS: dict[str, RGB] = {
    "from": (0, 0, 255),  # blue: the piece to move
    "path": (0, 160, 160),  # cyan: landing squares on the way
    "to": (0, 255, 0),  # green: where it ends
    "remove": (255, 0, 0),  # red: pieces to take off the board
    "irregular": (255, 120, 0),  # orange: squares that must change
}
OFF: RGB = (0, 0, 0)


def move_frame(move: Move) -> dict[int, RGB]:
    frame = {sq: COLOURS["path"] for sq in move.path[1:-1]}
    frame.update({sq: COLOURS["remove"] for sq in move.captured})
    frame[move.start] = COLOURS["from"]
    frame[move.end] = COLOURS["to"]  # a capture may end where it began: the end wins
    return frame


class LedGrid:
    def __init__(self, driver: GrblDriver, squares: int):
        if driver.firmware == "grbl":
            raise RobotError(f"the controller on {driver.url} runs stock GRBL ({driver.build}), "
                             "which has no LED commands (M150/M151 answer error:20): the LED "
                             "grid runs the damas firmware (firmware/README.md); flash it to "
                             "the LED board's Arduino and give that port")
        self.driver = driver
        self.squares = squares
        self.frame: dict[int, RGB] = {}

    def show(self, frame: dict[int, RGB]) -> None:
        lines = ["M150 R0 U0 B0"]
        for square, (r, g, b) in sorted(frame.items()):
            if not 1 <= square <= self.squares:
                raise ValueError(f"square {square} is not on the board")
            lines.append(f"M150 I{square - 1} R{r} U{g} B{b}")
        lines.append("M151")
        for line in lines:
            self.driver.command(line)
        self.frame = dict(frame)

    def show_move(self, move: Move) -> None:
        self.show(move_frame(move))

    def show_irregular(self, squares) -> None:
        self.show({sq: COLOURS["irregular"] for sq in squares})

    def clear(self) -> None:
        self.show({})

    def blink(self, times: int = 3, period: float = 0.5) -> None:
        """Flash the current frame; leaves it shown."""
        frame = self.frame
        for _ in range(times):
            self.show({})
            time.sleep(period / 2)
            self.show(frame)
            time.sleep(period / 2)
