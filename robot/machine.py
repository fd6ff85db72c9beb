"""The machine description: what the robot is and where everything is.

Positions are in the *board frame*, millimetres: origin at the outer corner of the
playing area on White's left, u to White's right, v away from White. A square's centre
is ((col + 0.5) * pitch, (size - row - 0.5) * pitch). Trays and the crowning reserve are
given in the same frame, so they move with the board; `board_to_machine` (an affine map,
fitted by `damas calibrate robot`) turns board-frame points into machine coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from damas.calibration.store import FileFormatError, load_versioned_json, save_versioned_json
from damas.rules import geometry

from .errors import MachineFileError

FORMAT = "damas-machine"
VERSION = 1
KINDS = ("gantry-magnet", "arm")
Point = tuple[float, float]


@dataclass(frozen=True)
class Machine:
    name: str
    kind: str  # "gantry-magnet": a magnet under the board slides pieces; "arm": lifts them
    board_size: int
    pitch: float  # square size, mm
    piece_diameter: float
    board_to_machine: tuple[tuple[float, float, float], tuple[float, float, float]]
    workspace: tuple[float, float, float, float]  # reachable u_min, v_min, u_max, v_max
    trays: dict[str, tuple[Point, ...]]  # "white"/"black": slots for pieces off the board
    reserve: dict[str, tuple[Point, ...]]  # "white"/"black": crowning pieces, full at start
    kings: str = "flat"  # "flat": a king is its own piece; "stack": a man on a man
    heights: dict[str, float] = field(default_factory=lambda: {"travel": 0.0})
    tool_on: str = "M3"
    tool_off: str = "M5"
    feed_travel: float = 6000.0  # mm/min, tool off
    feed_carry: float = 2000.0  # mm/min, carrying a piece

    def __post_init__(self):
        if self.kind not in KINDS:
            raise MachineFileError(f"machine kind {self.kind!r}: choose from {', '.join(KINDS)}")
        if self.kind == "gantry-magnet" and self.kings != "flat":
            raise MachineFileError("a magnet gantry slides pieces and cannot stack them: "
                                   'set "kings": "flat"')
        if self.piece_diameter >= self.pitch:
            raise MachineFileError("piece_diameter must be smaller than the square pitch")
        for name in ("trays", "reserve"):
            if set(getattr(self, name)) != {"white", "black"}:
                raise MachineFileError(f'{name} must list slots for "white" and "black"')

    # --- geometry -----------------------------------------------------------------

    def square_centre(self, square: int) -> Point:
        row, col = geometry(self.board_size).row_col(square)
        return ((col + 0.5) * self.pitch, (self.board_size - row - 0.5) * self.pitch)

    def to_machine(self, point: Point) -> Point:
        (a, b, c), (d, e, f) = self.board_to_machine
        u, v = point
        return (a * u + b * v + c, d * u + e * v + f)

    @property
    def slides(self) -> bool:
        return self.kind == "gantry-magnet"

    # --- files --------------------------------------------------------------------

    def to_json(self) -> dict:
        return {
            "name": self.name, "kind": self.kind, "board_size": self.board_size,
            "pitch": self.pitch, "piece_diameter": self.piece_diameter,
            "board_to_machine": [list(r) for r in self.board_to_machine],
            "workspace": list(self.workspace),
            "trays": {k: [list(p) for p in v] for k, v in self.trays.items()},
            "reserve": {k: [list(p) for p in v] for k, v in self.reserve.items()},
            "kings": self.kings, "heights": self.heights,
            "tool_on": self.tool_on, "tool_off": self.tool_off,
            "feed_travel": self.feed_travel, "feed_carry": self.feed_carry,
        }

    @classmethod
    def from_json(cls, body: dict, source: str = "machine") -> Machine:
        try:
            return cls(
                name=str(body["name"]), kind=body["kind"], board_size=int(body["board_size"]),
                pitch=float(body["pitch"]), piece_diameter=float(body["piece_diameter"]),
                board_to_machine=tuple(tuple(float(x) for x in row)
                                       for row in body["board_to_machine"]),
                workspace=tuple(float(x) for x in body["workspace"]),
                trays={k: tuple((float(p[0]), float(p[1])) for p in v)
                       for k, v in body["trays"].items()},
                reserve={k: tuple((float(p[0]), float(p[1])) for p in v)
                         for k, v in body["reserve"].items()},
                kings=body.get("kings", "flat"), heights=dict(body.get("heights", {})),
                tool_on=body.get("tool_on", "M3"), tool_off=body.get("tool_off", "M5"),
                feed_travel=float(body.get("feed_travel", 6000)),
                feed_carry=float(body.get("feed_carry", 2000)),
            )
        except MachineFileError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise MachineFileError(f"{source}: missing or malformed field ({e!r})") from None

    def with_transform(self, transform) -> Machine:
        body = self.to_json()
        body["board_to_machine"] = [list(r) for r in transform]
        return Machine.from_json(body)


def load_machine(path: str | Path) -> Machine:
    try:
        body = load_versioned_json(path, FORMAT, VERSION)
    except FileFormatError as e:
        raise MachineFileError(str(e)) from None
    return Machine.from_json(body, str(path))


def save_machine(machine: Machine, path: str | Path) -> None:
    save_versioned_json(path, FORMAT, VERSION, machine.to_json())


EXAMPLES = Path(__file__).parent / "machines"


def example_machine(board_size: int, kind: str = "gantry-magnet") -> Machine:
    """The shipped example for a board size and kind (robot/machines/*.json)."""
    name = {("gantry-magnet", 10): "gantry-10x10.json", ("gantry-magnet", 8): "gantry-8x8.json",
            ("arm", 10): "arm-10x10.json"}.get((kind, board_size))
    if name is None:
        raise MachineFileError(f"no example {kind} machine for {board_size}x{board_size}")
    return load_machine(EXAMPLES / name)
