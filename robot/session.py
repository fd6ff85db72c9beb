"""A machine, its planner and its record of the board, playing moves: what the app and
`damas robot play-pdn` use. The machine is a real port, our firmware in simavr
(`sim-firmware`), stock GRBL 1.1h in simavr (`sim-grbl`, set up as the machine file's
GRBL settings say) or the Python simulator (`sim-python`), each a port name that opens a
simulated machine (robot/ports.py); with one, the physical board is known independently
from the pins or the simulated tool (physics.World). On a real port only the planner's
record is known."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from damas.rules import Move, Position

from .errors import RobotError
from .executor import Execution, execute
from .grbl import GrblDriver
from .machine import Machine
from .physics import World
from .planner import Planner, Transfer
from .ports import SimulatedMachine, opener
from .state import PhysicalState


class ExecutionFailed(RobotError):
    def __init__(self, run: Execution, homes: bool = True):
        done = ", ".join(str(s) for s in run.done) or "none"
        again = ("The machine is homed again." if homes else
                 "The machine is unlocked; it has no homing, so check that the carriage is "
                 "where GRBL counts it.")
        super().__init__(f"{run.error}. Steps done: {done}. Interrupted: {run.interrupted}. "
                         + (again if run.recovered else
                            "The machine is not reachable: check the cable and power."))
        self.run = run


class RobotSession:
    def __init__(self, machine: Machine, driver: GrblDriver, state: PhysicalState,
                 world: World | None = None, simulator: SimulatedMachine | None = None):
        self.machine = machine
        self.planner = Planner(machine)
        self.driver = driver
        self.state = state
        self.world = world
        self.simulator = simulator

    @classmethod
    def open(cls, machine: Machine, port: str, start: Position, speedup: float = 200.0,
             timeout: float = 10.0,
             make_simulator: Callable[[World], SimulatedMachine] | None = None
             ) -> RobotSession:
        """`port`: a serial device, a pyserial URL or the name of a simulated machine
        (robot/ports.py); make_simulator(world) makes that machine otherwise than its name
        would (a test's start position, settings...)."""
        state = PhysicalState.at_start(machine, start)
        world: World | None = None
        simulator: SimulatedMachine | None = None
        make = make_simulator
        named = opener(port)
        if make is None and named is not None:
            make = partial(named, machine, speedup=speedup)
        if make is not None:
            world = World.from_state(machine, state)
            simulator = make(world)
            try:
                port = simulator.start()
            except BaseException:
                simulator.stop()
                raise
        driver = GrblDriver(port, timeout=timeout, machine=machine)
        session = cls(machine, driver, state, world, simulator)
        try:
            driver.connect()
        except BaseException:
            session.close()
            raise
        return session

    def play(self, move: Move) -> Execution:
        return self.run(self.planner.plan_move(self.state, move))

    def run(self, steps: list[Transfer]) -> Execution:
        result = execute(self.driver, self.machine, steps, on_done=self.state.apply)
        if not result.complete:
            raise ExecutionFailed(result, self.driver.home)
        return result

    def reset(self, position: Position) -> Execution:
        """Set `position` up from whatever is on the board and in the trays."""
        return self.run(self.planner.plan_reset(self.state, position))

    def correct(self, seen: dict[int, str], position: Position) -> Execution:
        """Bring the board back to `position` from what the camera sees (`seen`: square ->
        'w' or 'b'; a camera may not tell a king from a man). The record takes the
        camera's word for every square, keeping a king where its colour is still seen."""
        board = {}
        for square, colour in seen.items():
            known = self.state.board.get(square)
            board[square] = known if known and known.lower() == colour else colour
        seen_state = self.state.copy()
        seen_state.board = board
        steps = self.planner.plan_correction(seen_state, position)
        # only now: after a PlanError the record keeps its kings for the next attempt
        self.state.board = board
        return self.run(steps)

    def reconnect(self) -> None:
        """Open the port again and home (RobotError while the machine is still gone)."""
        self.driver.connect()

    def moved_by_hand(self, move: Move) -> None:
        """A person made `move` on the board: the record has the captured pieces in the
        trays and a crowned man swapped or stacked from the reserve, where the robot
        would have put them (and the person is asked to), so it stays true."""
        for step in self.planner.plan_move(self.state, move):
            self.state.apply(step)

    def carriage_board_point(self) -> tuple[float, float]:
        if self.world is not None:
            x, y, _ = self.world.position
            return self.world.to_board(x, y)
        return (0.0, 0.0)

    @property
    def sees_board(self) -> bool:
        """True when a simulator reports the physical board (from its pins); on a real
        port nothing here sees the board, only the planner's record is known."""
        return self.world is not None

    def report(self) -> dict:
        """Where the pieces are: seen by the simulator when there is one (`"seen":
        true`), else the planner's record (`"seen": false`)."""
        if self.world is not None and self.simulator is not None:
            self.simulator.sync()  # every event the simulator saw is in the world
            layout = self.world.layout()
            travel = self.world.travel_mm
        else:
            squares = {str(n): self.state.board.get(n, "e")
                       for n in range(1, self.machine.board_size ** 2 // 2 + 1)}
            layout = {"squares": squares,
                      "trays": {c: [o or "e" for o in s] for c, s in self.state.trays.items()},
                      "reserve": {c: [o or "e" for o in s]
                                  for c, s in self.state.reserve.items()},
                      "stray": []}
            travel = 0.0
        seconds = self.simulator.sim_seconds if self.simulator is not None else 0.0
        return {**layout, "seen": self.sees_board, "travel_mm": round(travel, 1),
                "sim_seconds": round(seconds, 2)}

    def close(self) -> None:
        self.driver.close()
        if self.simulator is not None:
            self.simulator.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
