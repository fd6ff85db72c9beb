"""What carries the engine's moves onto the board: the robot itself, or a person guided
by the LED grid under the squares. The play session talks to both the same way."""

from __future__ import annotations

from damas.robot.errors import PlanError, RobotError
from damas.rules import Move, Position


class RobotMover:
    """The arm or gantry makes the move, and puts the board right when the camera shows
    something else (a slip, an interrupted move)."""

    name = "robot"
    acts = True  # it moves the pieces itself

    def __init__(self, session):
        self.session = session  # robot.session.RobotSession

    def play(self, move: Move) -> None:
        self.session.play(move)

    def moved_by_hand(self, move: Move) -> None:
        self.session.moved_by_hand(move)

    def correct(self, seen: dict[int, str], wanted: Position) -> bool:
        """True when the robot put the board right; False when a person must (a king
        or a man it has no spare of is missing)."""
        try:
            self.session.correct(seen, wanted)
        except PlanError:
            return False
        return True

    def reset(self, position: Position) -> None:
        self.session.reset(position)

    def show(self, squares, message: str) -> None:
        pass  # the screen and the web page say it; the robot has no lights

    def clear(self) -> None:
        pass

    def reconnect(self) -> None:
        self.session.reconnect()

    def close(self) -> None:
        self.session.close()


class LedMover:
    """The LED grid lights the engine's move and a person makes it; a difference is lit
    until the board is right."""

    name = "leds"
    acts = False

    def __init__(self, grid, driver):
        self.grid = grid  # robot.leds.LedGrid
        self.driver = driver

    def play(self, move: Move) -> None:
        self.grid.show_move(move)

    def moved_by_hand(self, move: Move) -> None:
        self.grid.clear()

    def correct(self, seen: dict[int, str], wanted: Position) -> bool:
        return False  # only a person can: `show` lights the squares

    def reset(self, position: Position) -> None:
        raise PlanError("an LED grid cannot set the pieces up: a person does")

    def show(self, squares, message: str) -> None:
        self.grid.show_irregular(squares)

    def clear(self) -> None:
        self.grid.clear()

    def reconnect(self) -> None:
        self.driver.connect()
        self.grid.show(self.grid.frame)  # the controller forgot its lights when it reset

    def close(self) -> None:
        try:
            self.grid.clear()
        except RobotError:
            pass
        self.driver.close()
