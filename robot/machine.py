"""The machine description: what the robot is and where everything is.

Positions are in the *board frame*, millimetres: origin at the outer corner of the
playing area on White's left, u to White's right, v away from White. A square's centre
is ((col + 0.5) * pitch, (size - row - 0.5) * pitch). Trays and the crowning reserve are
given in the same frame, so they move with the board; `board_to_machine` (an affine map,
fitted by `damas calibrate robot`) turns board-frame points into machine coordinates.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from damas.calibration.store import FileFormatError, load_versioned_json, save_versioned_json
from damas.rules import geometry

from .errors import MachineFileError

FORMAT = "damas-machine"
VERSION = 1
KINDS = ("gantry-magnet", "arm")
FIRMWARES = ("damas", "grbl")
HOMINGS = ("$H", "none")
COORDINATES = ("machine", "work")
Point = tuple[float, float]
SETTING = re.compile(r"^\$(\d{1,3})$")
TOOL_LINE = re.compile(r"^[A-Za-z0-9 .+-]{1,60}$")


@dataclass(frozen=True)
class Controller:
    """What the machine's controller runs and how it is set up.

    firmware: "damas" (our firmware, firmware/) or "grbl" (a stock GRBL 1.1).
    homing: "$H" homes at every connection; "none" means the carriage stands at the
      origin when the controller powers up (the user moved it there): stock GRBL homes Z
      first and fails (ALARM:9) on a gantry without a Z switch, so "$H" needs a GRBL built
      for XY homing (robot/README.md).
    coordinates: "machine" (GRBL's MPos) or "work" (WPos, the G54 work coordinates).
    settings: GRBL's `$` settings this machine is built and set up for ({100: 80.0, ...}).
    """

    firmware: str = "damas"
    homing: str = "$H"
    coordinates: str = "machine"
    settings: dict[int, float] = field(default_factory=dict)

    def __post_init__(self):
        for name, value, choices in (("firmware", self.firmware, FIRMWARES),
                                     ("homing", self.homing, HOMINGS),
                                     ("coordinates", self.coordinates, COORDINATES)):
            if value not in choices:
                raise MachineFileError(f"controller {name} {value!r}: choose from "
                                       f"{', '.join(repr(c) for c in choices)}")
        if self.firmware == "damas" and self.coordinates != "machine":
            raise MachineFileError('our firmware has only machine coordinates: set '
                                   '"coordinates": "machine"')

    def to_json(self) -> dict:
        return {"firmware": self.firmware, "homing": self.homing,
                "coordinates": self.coordinates,
                "settings": {f"${k}": v for k, v in sorted(self.settings.items())}}


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
    controller: Controller = field(default_factory=Controller)
    servo_angles: tuple[float, float] | None = None  # a servo lifts the magnet: on, off (deg)

    def __post_init__(self):
        if self.servo_angles is not None:  # a servo on GRBL's PWM: S is the angle, $30=180
            on, off = self.servo_angles
            object.__setattr__(self, "tool_on", f"M3 S{on:g}")
            object.__setattr__(self, "tool_off", f"M3 S{off:g}")
        if self.kind not in KINDS:
            raise MachineFileError(f"machine kind {self.kind!r}: choose from {', '.join(KINDS)}")
        if self.board_size not in (8, 10):
            raise MachineFileError(f"board_size {self.board_size}: 8 or 10")
        if self.kind == "gantry-magnet" and self.kings != "flat":
            raise MachineFileError("a magnet gantry slides pieces and cannot stack them: "
                                   'set "kings": "flat"')
        if self.kings not in ("flat", "stack"):
            raise MachineFileError(f'kings {self.kings!r}: choose "flat" or "stack"')
        if self.piece_diameter >= self.pitch:
            raise MachineFileError("piece_diameter must be smaller than the square pitch")
        u0, v0, u1, v1 = self.workspace
        if not (u0 < u1 and v0 < v1):
            raise MachineFileError("workspace is [u_min, v_min, u_max, v_max] with min < max")
        for name in ("trays", "reserve"):
            if set(getattr(self, name)) != {"white", "black"}:
                raise MachineFileError(f'{name} must list slots for "white" and "black"')
        for name in ("tool_on", "tool_off"):
            if not TOOL_LINE.match(getattr(self, name)):
                raise MachineFileError(f"{name} must be one short G-code line, not "
                                       f"{getattr(self, name)!r}")
        if self.controller.firmware == "grbl":
            self._check_grbl_tool()

    def _check_grbl_tool(self) -> None:
        words = self.tool_on.upper().split()
        if words and words[0] in ("M3", "M4") and not any(w.startswith("S") for w in words):
            raise MachineFileError(
                f'tool_on "{self.tool_on}": on GRBL 1.1, M3 with no S word leaves the spindle '
                'output at 0 and the magnet never switches on: use "M3 S1000" (full PWM with '
                '$30=1000) and "M5", or the coolant pin (A3) with "M8" and "M9"')
        if self.servo_angles is not None:
            settings = self.controller.settings
            if settings.get(30) != 180 or settings.get(31, 0) != 0:
                raise MachineFileError('servo_angles need "$30": 180 and "$31": 0 in the '
                                       "controller's settings (S is then the angle in degrees)")

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

    def reach(self) -> list[Point]:
        """Machine coordinates of the places the planner may send the carriage to: the
        workspace's corners, every tray and reserve slot (all within the workspace)."""
        u0, v0, u1, v1 = self.workspace
        points = [(u0, v0), (u1, v0), (u0, v1), (u1, v1)]
        for slots in (*self.trays.values(), *self.reserve.values()):
            points += list(slots)
        return [self.to_machine(p) for p in points]

    def with_feeds_at_most(self, rate: float) -> Machine:
        """This machine, its feeds no faster than `rate` mm/min (the controller's limit)."""
        return replace(self, feed_travel=min(self.feed_travel, rate),
                       feed_carry=min(self.feed_carry, rate))

    # --- files --------------------------------------------------------------------

    def to_json(self) -> dict:
        tool = ({"servo_angles": {"on": self.servo_angles[0], "off": self.servo_angles[1]}}
                if self.servo_angles is not None else
                {"tool_on": self.tool_on, "tool_off": self.tool_off})
        body = {
            "name": self.name, "kind": self.kind, "board_size": self.board_size,
            "pitch": self.pitch, "piece_diameter": self.piece_diameter,
            "board_to_machine": [list(r) for r in self.board_to_machine],
            "workspace": list(self.workspace),
            "trays": {k: [list(p) for p in v] for k, v in self.trays.items()},
            "reserve": {k: [list(p) for p in v] for k, v in self.reserve.items()},
            "kings": self.kings, "heights": self.heights, **tool,
            "feed_travel": self.feed_travel, "feed_carry": self.feed_carry,
        }
        if self.controller != Controller():
            body["controller"] = self.controller.to_json()
        return body

    @classmethod
    def from_json(cls, body: dict, source: str = "machine") -> Machine:
        """A machine from a file's body; anything missing, of the wrong type or out of
        range is a MachineFileError that names the field."""
        try:
            return _from_json(cls, body)
        except MachineFileError as e:
            raise MachineFileError(f"{source}: {e}") from None

    def with_transform(self, transform) -> Machine:
        body = self.to_json()
        body["board_to_machine"] = [list(r) for r in transform]
        return Machine.from_json(body)


def _from_json(cls, body) -> Machine:
    if not isinstance(body, dict):
        raise MachineFileError("not a JSON object")
    known = {"name", "kind", "board_size", "pitch", "piece_diameter", "board_to_machine",
             "workspace", "trays", "reserve", "kings", "heights", "tool_on", "tool_off",
             "feed_travel", "feed_carry", "controller", "servo_angles"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise MachineFileError(f"unknown field {unknown[0]!r}")
    servo = None
    tool_on, tool_off = _text(body, "tool_on", "M3"), _text(body, "tool_off", "M5")
    if "servo_angles" in body:
        if "tool_on" in body or "tool_off" in body:
            raise MachineFileError("give servo_angles or tool_on/tool_off, not both")
        angles = body["servo_angles"]
        if not isinstance(angles, dict) or set(angles) != {"on", "off"}:
            raise MachineFileError('servo_angles must be {"on": degrees, "off": degrees}')
        servo = (_number(angles["on"], "servo_angles.on", 0, 180),
                 _number(angles["off"], "servo_angles.off", 0, 180))
    heights = body.get("heights", {})
    if not isinstance(heights, dict) or not all(isinstance(k, str) for k in heights):
        raise MachineFileError("heights must be an object of millimetres")
    return cls(
        name=_text(body, "name"), kind=_text(body, "kind"),
        board_size=_integer(_required(body, "board_size"), "board_size"),
        pitch=_number(_required(body, "pitch"), "pitch", positive=True),
        piece_diameter=_number(_required(body, "piece_diameter"), "piece_diameter",
                               positive=True),
        board_to_machine=tuple(_numbers(row, "board_to_machine row", 3) for row in
                               _list(_required(body, "board_to_machine"), "board_to_machine",
                                     2)),
        workspace=_numbers(_required(body, "workspace"), "workspace", 4),
        trays=_slots(_required(body, "trays"), "trays"),
        reserve=_slots(_required(body, "reserve"), "reserve"),
        kings=_text(body, "kings", "flat"),
        heights={k: _number(v, f"heights.{k}") for k, v in heights.items()},
        tool_on=tool_on, tool_off=tool_off,
        feed_travel=_number(body.get("feed_travel", 6000.0), "feed_travel", positive=True),
        feed_carry=_number(body.get("feed_carry", 2000.0), "feed_carry", positive=True),
        controller=_controller(body.get("controller", {})),
        servo_angles=servo,
    )


def _required(body: dict, key: str):
    if key not in body:
        raise MachineFileError(f"missing field {key!r}")
    return body[key]


def _text(body: dict, key: str, default: str | None = None) -> str:
    value = body.get(key, default) if default is not None else _required(body, key)
    if not isinstance(value, str):
        raise MachineFileError(f"{key} must be a string, not {_kind(value)}")
    return value


def _kind(value) -> str:
    return "null" if value is None else type(value).__name__


def _number(value, name: str, low: float | None = None, high: float | None = None,
            positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MachineFileError(f"{name} must be a number, not {_kind(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise MachineFileError(f"{name} is far too large") from None
    if not math.isfinite(number) or abs(number) > 1e6:
        raise MachineFileError(f"{name} must be a finite number of at most 1e6")
    if positive and number <= 0:
        raise MachineFileError(f"{name} must be above 0")
    if (low is not None and number < low) or (high is not None and number > high):
        raise MachineFileError(f"{name} must be between {low:g} and {high:g}")
    return number


def _integer(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MachineFileError(f"{name} must be a whole number, not {_kind(value)}")
    return value


def _list(value, name: str, length: int | None = None) -> list:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        count = f" of {length}" if length is not None else ""
        raise MachineFileError(f"{name} must be a list{count}, not {_kind(value)}"
                               + (f" of {len(value)}" if isinstance(value, list) else ""))
    return value


def _point(value, name: str) -> Point:
    u, v = _numbers(value, name, 2)
    return u, v


def _numbers(value, name: str, length: int) -> tuple[float, ...]:
    return tuple(_number(x, name) for x in _list(value, name, length))


def _slots(value, name: str) -> dict[str, tuple[Point, ...]]:
    if not isinstance(value, dict) or set(value) != {"white", "black"}:
        raise MachineFileError(f'{name} must be an object with "white" and "black" lists of '
                               f"[u, v] points, not {_kind(value)}")
    return {colour: tuple(_point(p, f"{name}.{colour} point")
                          for p in _list(points, f"{name}.{colour}"))
            for colour, points in value.items()}


def _controller(value) -> Controller:
    if not isinstance(value, dict):
        raise MachineFileError(f"controller must be an object, not {_kind(value)}")
    unknown = sorted(set(value) - {"firmware", "homing", "coordinates", "settings"})
    if unknown:
        raise MachineFileError(f"unknown controller field {unknown[0]!r}")
    settings = value.get("settings", {})
    if not isinstance(settings, dict):
        raise MachineFileError(f"controller settings must be an object, not {_kind(settings)}")
    parsed = {}
    for key, number in settings.items():
        match = SETTING.match(key)
        if not match:
            raise MachineFileError(f'controller setting {key[:20]!r}: write GRBL\'s name, '
                                   'e.g. "$100"')
        parsed[int(match.group(1))] = _number(number, f"setting {key}")
    for key in ("firmware", "homing", "coordinates"):
        if key in value and not isinstance(value[key], str):
            raise MachineFileError(f"controller {key} must be a string, not "
                                   f"{_kind(value[key])}")
    return Controller(firmware=value.get("firmware", "damas"),
                      homing=value.get("homing", "$H"),
                      coordinates=value.get("coordinates", "machine"), settings=parsed)


def standard_layout(name: str, kind: str, size: int, *, pitch: float = 40.0,
                    piece_diameter: float = 34.0, origin: Point = (126.0, 86.0),
                    kings: str = "flat", reserve_count: int = 6,
                    heights: dict[str, float] | None = None, **fields) -> Machine:
    """The layout of the shipped examples, for any square size: trays of two columns
    beside the board (Black's pieces on White's left, White's on the right), the outer
    column first so the inner one never blocks it, and the crowning reserve in a row behind
    each player's back row; everything a piece's width from the lane around the board.
    `origin`: where the board's corner is in machine coordinates; `fields`: the rest of
    Machine's fields (tool, feeds, controller...)."""
    k = pitch / 40.0
    side = size * pitch
    rows = [pitch / 2 + pitch * i for i in range(size)]
    black_tray = [(-96.0 * k, v) for v in rows] + [(-56.0 * k, v) for v in rows]
    white_tray = [(side + 96.0 * k, v) for v in rows] + [(side + 56.0 * k, v) for v in rows]
    white_reserve = [(pitch / 2 + pitch * i, -56.0 * k) for i in range(reserve_count)]
    black_reserve = [(side - pitch / 2 - pitch * i, side + 56.0 * k)
                     for i in range(reserve_count)]
    return Machine(
        name=name, kind=kind, board_size=size, pitch=pitch, piece_diameter=piece_diameter,
        board_to_machine=((1.0, 0.0, origin[0]), (0.0, 1.0, origin[1])),
        workspace=(-116.0 * k, -76.0 * k, side + 116.0 * k, side + 76.0 * k),
        trays={"white": tuple(white_tray), "black": tuple(black_tray)},
        reserve={"white": tuple(white_reserve), "black": tuple(black_reserve)},
        kings=kings, heights=heights if heights is not None else {"travel": 0.0}, **fields)


def load_machine(path: str | Path) -> Machine:
    try:
        body = load_versioned_json(path, FORMAT, VERSION)
    except FileFormatError as e:
        raise MachineFileError(str(e)) from None
    return Machine.from_json(body, str(path))


def save_machine(machine: Machine, path: str | Path) -> None:
    save_versioned_json(path, FORMAT, VERSION, machine.to_json())


EXAMPLES = Path(__file__).parent / "machines"


def example_machine(board_size: int, kind: str = "gantry-magnet",
                    firmware: str = "damas") -> Machine:
    """The shipped example for a board size, kind and controller firmware
    (robot/machines/*.json)."""
    name = {("gantry-magnet", 10, "damas"): "gantry-10x10.json",
            ("gantry-magnet", 8, "damas"): "gantry-8x8.json",
            ("arm", 10, "damas"): "arm-10x10.json",
            ("gantry-magnet", 10, "grbl"): "grbl-gantry-10x10.json",
            ("gantry-magnet", 8, "grbl"): "grbl-gantry-8x8.json"}.get((kind, board_size, firmware))
    if name is None:
        raise MachineFileError(f"no example {kind} machine for {board_size}x{board_size} on "
                               f"{firmware}")
    return load_machine(EXAMPLES / name)
