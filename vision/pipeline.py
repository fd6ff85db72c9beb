"""The board reader: composes locator, orientation and square reader into one object
that turns frames into Readings, keeping the pose between frames (following a bumped
board or camera, finding it afresh when it moved far) and, with a calibration, the
set's colours through slow changes of the light."""

from __future__ import annotations

import numpy as np

from damas.calibration.camera import Intrinsics
from damas.calibration.colour import PieceColours
from damas.rules import Position

from .board import BoardPose
from .errors import BoardNotFound, OrientationUnknown, VisionError
from .fit import DIAGONALS, checker_corners
from .locate import Location, locate, track
from .occupancy import OccupancyModel, load
from .read import Observation, Reading, SquareReader, decide

SIDES = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}


class PiecesOnLightSquares(VisionError):
    """The pieces stand on the light squares."""


def side_of(direction: np.ndarray) -> str:
    return max(SIDES, key=lambda s: float(np.dot(SIDES[s], direction)))


def position_labels(position: Position) -> list[str]:
    """e/w/b per dark square (kings count as their colour)."""
    n = position.variant.squares
    return [(position.piece(s) or "e").lower() for s in range(1, n + 1)]


def start_labels(size: int) -> list[str]:
    per_side = (size // 2 - 1) * size // 2
    total = size * size // 2
    return ["b"] * per_side + ["e"] * (total - 2 * per_side) + ["w"] * per_side


class BoardReader:
    """Reads frames of one board.

    size: 8 or 10. colours: the set's colours from a calibration (else each frame's
    pieces are split into two colours by themselves). white_at: "bottom", "top", "left"
    or "right" of the image, or a unit image vector (from a calibration); without it
    (and without damas' own markers) the start position or `known` tells, else White's
    side is a guess, said so in the reading's notes. playing: "dark" (the rules) or
    "light" (a set played on the light squares)."""

    def __init__(self, size: int, colours: PieceColours | None = None,
                 intrinsics: Intrinsics | None = None, white_at=None,
                 known: Position | None = None, pose: BoardPose | None = None,
                 adapt: bool = True, playing: str = "dark",
                 model: OccupancyModel | None = None):
        if playing not in ("dark", "light"):
            raise VisionError(f"playing squares must be dark or light, not {playing!r}")
        self.size = size
        self.colours = colours
        self.intrinsics = intrinsics
        self.white_dir = (np.array(SIDES[white_at]) if isinstance(white_at, str)
                          else None if white_at is None else np.asarray(white_at, float))
        self.known = known
        self.adapt = adapt
        self.playing = playing
        self.model = model or load()
        self.pose: BoardPose | None = None
        self.squares: SquareReader | None = None
        self.relocations = 0
        self.guessed_side = False
        self.last: Observation | None = None
        self._corner_reference: float | None = None
        if pose is not None:
            self.set_pose(pose)

    @classmethod
    def from_calibration(cls, folder, size: int, known: Position | None = None,
                         **options) -> BoardReader:
        """A reader set up from a calibration folder (`damas calibrate board`, and
        `camera` when there): the set's colours, White's side, the playing squares, the
        lens, and the board's pose to start from."""
        from damas.calibration.board import load_board, load_camera
        from damas.calibration.errors import CalibrationError

        board = load_board(folder)
        if board.size != size:
            raise CalibrationError(
                f"{folder}: calibrated for a {board.size}x{board.size} board, not "
                f"{size}x{size}: check the variant or calibrate again")
        camera = load_camera(folder)
        pose = BoardPose(size, board.camera, "calibration")
        reader = cls(size, colours=board.colours,
                     intrinsics=camera.intrinsics if camera else None,
                     white_at=board.white_at, known=known, playing=board.playing, **options)
        reader.set_pose(pose.turned(1) if board.playing == "light" else pose)
        return reader

    # --- pose -------------------------------------------------------------------------

    def set_pose(self, pose: BoardPose, frame: np.ndarray | None = None) -> None:
        self.pose = pose
        self.squares = SquareReader(pose, self.model)
        n = pose.size
        corners = np.array([(i - n / 2, j - n / 2) for j in range(1, n) for i in range(1, n)])
        pts = np.vstack([np.column_stack([corners + d, np.zeros(len(corners))])
                         for d in DIAGONALS])
        pix = pose.project(pts).astype(np.float32)
        self._corner_maps = (pix[:, 0].reshape(1, -1).copy(), pix[:, 1].reshape(1, -1).copy())
        self._corner_reference = self._corner_fraction(frame) if frame is not None else None

    def _corner_fraction(self, frame: np.ndarray) -> float:
        """Share of the inner corners where four squares visibly meet: high while the
        grid sits on the board, low once the board or camera has moved."""
        import cv2

        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        vals = cv2.remap(grey, *self._corner_maps, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        return float(checker_corners(vals.reshape(4, -1)).mean())

    def locate(self, frame: np.ndarray) -> BoardPose:
        """A fresh locate, oriented; sets the pose."""
        loc = locate(frame, self.size, self.intrinsics, use_markers=self.white_dir is None)
        self._adopt(frame, loc)
        return self.pose

    def _adopt(self, frame: np.ndarray, loc: Location) -> None:
        pose = loc.pose
        if self.playing == "light":
            pose = pose.turned(1)
        else:
            self._check_parity(frame, pose)
        if not loc.oriented:
            candidates = [pose, pose.turned(2)]
            if self.white_dir is not None:
                pose = max(candidates, key=lambda p: float(
                    np.dot(p.white_side_in_image(), self.white_dir)))
            else:
                pose = self._orient_by_position(frame, candidates)
        self.set_pose(pose, frame)
        if self.white_dir is None and not self.guessed_side:
            # from now on a bumped board is found again the same way round
            self.white_dir = pose.white_side_in_image()

    def _check_parity(self, frame: np.ndarray, pose: BoardPose) -> None:
        obs = SquareReader(pose, self.model).observe(frame)
        on_plain = int((obs.plain_probs[:, 0] < 0.5).sum())
        on_playing = int((obs.probs[:, 0] < 0.5).sum())
        if on_plain >= 3 and on_plain > 2 * on_playing:
            raise PiecesOnLightSquares(
                f"the pieces stand on the light squares ({on_plain} there, {on_playing} on "
                "the dark ones): the rules (000 §2.2, §5.3) play on the dark squares; to "
                "read this set as it is, use --playing-squares light")

    def _orient_by_position(self, frame, candidates: list[BoardPose]) -> BoardPose:
        """Without markers or a side: the way round that makes the known position (or
        the start position) fit; else the way round with White's pieces nearer White's
        edge; else a guess, noted in the readings."""
        labels = (position_labels(self.known) if self.known is not None
                  else start_labels(self.size))
        reading = decide(SquareReader(candidates[0], self.model).observe(frame), self.size,
                         self.colours)
        seen = [reading.squares[s].lower() for s in range(1, len(labels) + 1)]
        fits = [sum(a == b for a, b in zip(seen, lab, strict=True))
                for lab in (labels, labels[::-1])]
        if max(fits) >= len(labels) - 2 and fits[0] != fits[1]:
            return candidates[int(np.argmax(fits))]
        if self.known is not None:
            raise OrientationUnknown(
                "the board is found but the position in view is not the one given: give "
                "--white-at (bottom, top, left, right) or show the position")
        # White's men start on White's half: the colours' mean rows say which way round
        rows = {c: [(s - 1) // (self.size // 2) for s, v in reading.squares.items()
                    if v.lower() == c] for c in "wb"}
        if rows["w"] and rows["b"] and abs(np.mean(rows["w"]) - np.mean(rows["b"])) >= 1.0:
            return candidates[0] if np.mean(rows["w"]) > np.mean(rows["b"]) else candidates[1]
        self.guessed_side = True
        return candidates[0]

    def _pose_still_fits(self, frame) -> bool:
        if self._corner_reference is None:
            self._corner_reference = self._corner_fraction(frame)
            return True
        return self._corner_fraction(frame) > 0.5 * self._corner_reference

    # --- frames -----------------------------------------------------------------------

    def read(self, frame: np.ndarray) -> Reading:
        if frame is None or getattr(frame, "ndim", 0) != 3:
            raise VisionError("expected a colour image")
        if self.pose is None:
            self.locate(frame)
        elif not self._pose_still_fits(frame):
            try:
                try:  # a small move: follow it from the last pose
                    moved = track(frame, self.pose, self.intrinsics)
                    if moved.corners_used < 0.5 * (self.size - 1) ** 2:
                        raise BoardNotFound("too few corners followed")
                    self.set_pose(moved.pose, frame)
                except BoardNotFound:
                    self.locate(frame)
                self.relocations += 1
            except (BoardNotFound, OrientationUnknown):
                # covered or moved out of view: nothing can be said this frame
                n = self.size * self.size // 2
                return Reading(self.size, {s: "?" for s in range(1, n + 1)},
                               {s: 0.0 for s in range(1, n + 1)}, hand=True,
                               board_found=False)
        self.last = self.squares.observe(frame)
        reading = decide(self.last, self.size, self.colours)
        notes = ("White's side is a guess: give --white-at or show the start position",) \
            if self.guessed_side else ()
        return Reading(reading.size, reading.squares, reading.confidence, reading.hand,
                       True, side_of(self.pose.white_side_in_image()), notes)

    def motion_vector(self) -> np.ndarray:
        """A coarse copy of the last frame's squares, for the settle detector."""
        if self.last is None:
            raise VisionError("no frame read yet")
        return self.last.motion

    def settled(self, reading: Reading) -> None:
        """Tell the reader a reading was settled: its confident pieces teach the set's
        colours the current light."""
        if not self.adapt or self.colours is None or self.last is None:
            return
        keep = [s - 1 for s, v in reading.squares.items()
                if v in "wbWB" and reading.confidence[s] > 0.99]
        if keep:
            self.colours.adapt(self.last.tops[keep],
                               [reading.squares[s + 1] for s in keep])
