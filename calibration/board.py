"""The board calibration: where the board lies in the image (camera pose in square units),
which side White sits on, which squares the set is played on, and the colour model
learned from a known position. Saved as
`board.json` in a calibration folder, next to the optional `camera.json`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .camera import Camera, Intrinsics
from .colour import ColourModel
from .errors import CalibrationError
from .store import load_json, save_json

BOARD_FILE = "board.json"
CAMERA_FILE = "camera.json"
BOARD_KIND, BOARD_VERSION = "damas.board", 1
CAMERA_KIND, CAMERA_VERSION = "damas.camera", 1


@dataclass
class BoardCalibration:
    variant: str
    size: int
    camera: Camera  # pose of the board (world in squares) and the lens used
    white_at: tuple[float, float]  # unit image vector from the board centre to White
    colour: ColourModel
    known_fen: str = ""
    stack: dict | None = None  # men's size and height (damas.vision.height.StackModel)
    playing: str = "dark"  # the squares the set is played on: dark, or light

    def to_dict(self) -> dict:
        return {"variant": self.variant, "size": self.size,
                "intrinsics": self.camera.intrinsics.to_dict(),
                "R": np.round(self.camera.R, 9).tolist(),
                "t": np.round(self.camera.t, 9).tolist(),
                "white_at": [round(v, 6) for v in self.white_at],
                "colour_model": self.colour.to_dict(), "known_fen": self.known_fen,
                "stack": self.stack, "playing": self.playing}

    @classmethod
    def from_dict(cls, d: dict, where: str = "board calibration") -> BoardCalibration:
        try:
            cam = Camera(Intrinsics.from_dict(d["intrinsics"]), np.array(d["R"], float),
                         np.array(d["t"], float))
            playing = str(d.get("playing", "dark"))
            if playing not in ("dark", "light"):
                raise ValueError(f"playing squares {playing!r}")
            return cls(str(d["variant"]), int(d["size"]), cam,
                       (float(d["white_at"][0]), float(d["white_at"][1])),
                       ColourModel.from_dict(d["colour_model"]), str(d.get("known_fen", "")),
                       d.get("stack"), playing)
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise CalibrationError(f"{where}: damaged or incomplete ({e}): calibrate "
                                   "again") from None


@dataclass
class CameraCalibration:
    intrinsics: Intrinsics
    rms: float  # reprojection error of the pattern corners, pixels
    images: int

    def to_dict(self) -> dict:
        return {"intrinsics": self.intrinsics.to_dict(), "rms": round(self.rms, 4),
                "images": self.images}


def save_board(folder, calibration: BoardCalibration) -> Path:
    return save_json(Path(folder) / BOARD_FILE, BOARD_KIND, BOARD_VERSION,
                     calibration.to_dict())


def load_board(folder) -> BoardCalibration:
    path = Path(folder) / BOARD_FILE
    return BoardCalibration.from_dict(load_json(path, BOARD_KIND, BOARD_VERSION), str(path))


def save_camera(folder, calibration: CameraCalibration) -> Path:
    return save_json(Path(folder) / CAMERA_FILE, CAMERA_KIND, CAMERA_VERSION,
                     calibration.to_dict())


def load_camera(folder) -> CameraCalibration | None:
    """The camera calibration in `folder`, or None when it has none."""
    path = Path(folder) / CAMERA_FILE
    if not path.exists():
        return None
    d = load_json(path, CAMERA_KIND, CAMERA_VERSION)
    try:
        return CameraCalibration(Intrinsics.from_dict(d["intrinsics"]), float(d["rms"]),
                                 int(d["images"]))
    except (KeyError, TypeError, ValueError) as e:
        raise CalibrationError(f"{path}: damaged or incomplete ({e}): calibrate "
                               "again") from None
