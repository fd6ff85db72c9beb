"""The board reader: composes locator, orientation and square readers into one object
that turns frames into Readings, keeping the pose between frames (following a bumped
board or camera, finding it afresh when it moved far).

The occupancy nets read every frame (`read`), which tell a piece from an empty square
by its shape as well as its colour. Two ways to go on from their look:
- a set it has learned: from a calibration (`damas calibrate board`), or from the first
  frame when that frame shows a known position (the `known` one, or the start position
  it recognises); a small head fitted on that frame adapts the nets to the set
  (`calibrated`: the calibration's squares among those the nets learn from, White's
  and Black's colours), and a colour model of the set (`colour_read`) adds the crown
  test, the height of stacks and hands;
- a set never seen, in a photo of any position: the nets alone (`read.decide`), the
  pieces' colours split by themselves.
"""

from __future__ import annotations

import numpy as np

from damas.calibration.camera import Intrinsics
from damas.calibration.colour import CLASSES, ColourModel
from damas.rules import Position

from .board import BoardPose
from .calibrated import SetHead, load_head, read_frame
from .colour_read import (
    KING_D2,
    MIN_ANOMALY,
    OUTLIER_D2,
    LightField,
    Occlusion,
    body_features,
    crown_features,
    crown_scores,
    fit_light,
    guess_labels,
    stack_view,
    start_labels,
    wall_features,
)
from .errors import BoardNotFound, OrientationUnknown, VisionError
from .fit import DIAGONALS, checker_corners
from .height import StackModel
from .locate import Location, locate, track
from .occupancy import OccupancyModel, load
from .read import Observation, Reading, SquareReader, decide
from .sampler import Sampler, Samples

SIDES = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}
GUESSED = "White's side is a guess: give --white-at or show the start position"
NO_HEAD = ("calibrated before the nets were adapted to the set (no head.json): read as a "
           "set never seen; calibrate again (damas calibrate board)")


class PiecesOnLightSquares(VisionError):
    """The pieces stand on the light squares."""


def side_of(direction: np.ndarray) -> str:
    return max(SIDES, key=lambda s: float(np.dot(SIDES[s], direction)))


def position_labels(position: Position) -> list[str]:
    """e/w/b per dark square (kings count as their colour)."""
    n = position.variant.squares
    return [(position.piece(s) or "e").lower() for s in range(1, n + 1)]


class BoardReader:
    """Reads frames of one board.

    size: 8 or 10. model: a learned ColourModel (a calibration's), or None to learn one
    from the first frame when it shows a known position (`known`, or the start
    position), else to read with the occupancy model alone. head: the nets' head
    adapted to the set (a calibration's; learned with the colour model when that is).
    white_at: "bottom", "top", "left"
    or "right" of the image, or a unit image vector (from a calibration). playing: "dark"
    (the rules) or "light" (a set played on the light squares)."""

    def __init__(self, size: int, model: ColourModel | None = None,
                 intrinsics: Intrinsics | None = None, white_at=None,
                 known: Position | None = None, pose: BoardPose | None = None,
                 adapt: bool = True, stack: StackModel | None = None, playing: str = "dark",
                 occupancy: OccupancyModel | None = None, head: SetHead | None = None):
        if playing not in ("dark", "light"):
            raise VisionError(f"playing squares must be dark or light, not {playing!r}")
        self.size = size
        self.model = model
        self.intrinsics = intrinsics
        self.white_dir = (np.array(SIDES[white_at]) if isinstance(white_at, str)
                          else None if white_at is None else np.asarray(white_at, float))
        self.known = known
        self.adapt = adapt
        self.playing = playing
        self.occupancy = occupancy
        self.head = head
        self.pose: BoardPose | None = None
        self.sampler: Sampler | None = None
        self.occlusion: Occlusion | None = None
        self.squares: SquareReader | None = None
        # the occupancy model's look at the frame a fresh locate adopted its pose from,
        # for the read of that same frame (taken by `read` at once, never kept)
        self._fresh_look: Observation | None = None
        self.relocations = 0
        self.guessed_side = False
        self.unseen_set = False  # True: read by the occupancy model, nothing learned
        self.last: Observation | None = None
        self.last_samples: Samples | None = None
        self.last_features: tuple[np.ndarray, list[str]] | None = None
        # men's size and height, to tell kings without a crown by their stacks (learned
        # with the colours, from a known position)
        self.stack = stack
        self._corner_reference: float | None = None
        # the light field the pose check fitted to a frame's samples, for their reading
        self._light: tuple[Samples, LightField] | None = None
        if pose is not None:
            self.set_pose(pose)

    @classmethod
    def from_calibration(cls, folder, size: int, known: Position | None = None,
                         **options) -> BoardReader:
        """A reader set up from a calibration folder (`damas calibrate board`, and
        `camera` when there): the set's colours and the nets' head, White's side, the
        playing squares, the lens, and the board's pose to start from. A folder made
        before heads were is read as a set never seen, with a note to calibrate again."""
        from damas.calibration.board import load_board, load_camera
        from damas.calibration.errors import CalibrationError

        board = load_board(folder)
        if board.size != size:
            raise CalibrationError(
                f"{folder}: calibrated for a {board.size}x{board.size} board, not "
                f"{size}x{size}: check the variant or calibrate again")
        camera = load_camera(folder)
        pose = BoardPose(size, board.camera, "calibration")
        reader = cls(size, model=board.colour,
                     intrinsics=camera.intrinsics if camera else None,
                     white_at=board.white_at, known=known, playing=board.playing,
                     stack=StackModel.from_dict(board.stack), head=load_head(folder),
                     **options)
        reader.set_pose(pose.turned(1) if board.playing == "light" else pose)
        return reader

    # --- pose -------------------------------------------------------------------------

    def set_pose(self, pose: BoardPose, frame: np.ndarray | None = None) -> None:
        self.pose = pose
        self.sampler = Sampler(pose)
        self.occlusion = Occlusion(pose, self.sampler)
        self.squares = None  # built when first needed
        n = pose.size
        corners = np.array([(i - n / 2, j - n / 2) for j in range(1, n) for i in range(1, n)])
        pts = np.vstack([np.column_stack([corners + d, np.zeros(len(corners))])
                         for d in DIAGONALS])
        pix = pose.project(pts).astype(np.float32)
        self._corner_maps = (pix[:, 0].reshape(1, -1).copy(), pix[:, 1].reshape(1, -1).copy())
        self._corner_reference = self._corner_fraction(frame) if frame is not None else None

    def _located(self) -> tuple[BoardPose, Sampler]:
        """The pose and its sampler (set together by `set_pose`)."""
        if self.pose is None or self.sampler is None:
            raise VisionError("no board located yet")
        return self.pose, self.sampler

    def _nets(self) -> OccupancyModel:
        return self.occupancy or load()

    def _square_reader(self, calibrated: bool = False) -> SquareReader:
        """The nets' reader of this pose; a calibrated set's looks at its playing squares
        alone, each patch once (its head was fitted on such looks, and hands are told
        by the colour samples): a quarter of the nets' time."""
        if self.squares is None or self.squares.mirror == calibrated:
            pose, _ = self._located()
            self.squares = SquareReader(pose, self._nets(), plain=not calibrated,
                                        mirror=not calibrated)
        return self.squares

    def _corner_fraction(self, frame: np.ndarray) -> float:
        """Share of the inner corners where four squares visibly meet: high while the
        grid sits on the board, low once the board or camera has moved."""
        import cv2

        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        vals = cv2.remap(grey, *self._corner_maps, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        return float(checker_corners(vals.reshape(4, -1)).mean())

    def locate(self, frame: np.ndarray) -> BoardPose:
        """A fresh locate, oriented; sets the pose (and learns the set, if it can)."""
        loc = locate(frame, self.size, self.intrinsics)
        self._adopt(frame, loc)
        if self.model is None and not self.unseen_set:
            self.model = self._learn(frame)
            self.unseen_set = self.model is None
        pose, _ = self._located()
        return pose

    def _adopt(self, frame: np.ndarray, loc: Location) -> None:
        pose = loc.pose
        # without a colour model the parity check, the orientation and the reading all
        # need the occupancy model's look at this frame in this pose: one look serves
        # them (building the patches and the look are most of a fresh photo's time)
        first_look: tuple[SquareReader, Observation] | None = None
        if self.playing == "light":
            pose = pose.turned(1)
        elif self.model is None:
            reader = SquareReader(pose, self.occupancy or load())
            first_look = (reader, reader.observe(frame))
            self._check_parity(first_look[1])
        if not loc.oriented:
            candidates = [pose, pose.turned(2)]
            white_dir = self.white_dir
            if white_dir is not None:
                pose = max(candidates, key=lambda p: float(
                    np.dot(p.white_side_in_image(), white_dir)))
            else:
                pose = self._orient_by_position(frame, candidates, first_look)
        self.set_pose(pose, frame)
        if first_look is not None and first_look[0].pose is pose:
            self.squares, self._fresh_look = first_look
        if self.white_dir is None and not self.guessed_side:
            # from now on a bumped board is found again the same way round
            self.white_dir = pose.white_side_in_image()

    @staticmethod
    def _check_parity(obs: Observation) -> None:
        """Pieces on the plain squares and few on the others: a set played on the light
        squares, which the rules do not know; said in one line."""
        on_plain = int((obs.plain_probs[:, 0] < 0.5).sum())
        on_playing = int((obs.probs[:, 0] < 0.5).sum())
        if on_plain >= 3 and on_plain > 2 * on_playing:
            raise PiecesOnLightSquares(
                f"the pieces stand on the light squares ({on_plain} there, {on_playing} on "
                "the dark ones): the rules (000 §2.2, §5.3) play on the dark squares; to "
                "read this set as it is, use --playing-squares light")

    def _orient_by_position(self, frame, candidates: list[BoardPose],
                            first_look: tuple[SquareReader, Observation] | None) -> BoardPose:
        """Without markers or a side: the way round that makes the known position (or
        the start position) fit, White being the lighter pieces. A photo of another
        position is read by the occupancy model: White's side is then the side White's
        pieces stand nearer to, or else a guess, noted in the readings."""
        labels = (position_labels(self.known) if self.known is not None
                  else start_labels(self.size))
        sampler = Sampler(candidates[0])
        samples = sampler.sample(frame)
        seen, feats = guess_labels(samples, sampler)
        if seen == labels:
            return candidates[0]
        if seen == labels[::-1]:
            return candidates[1]
        # fall back to fitting the colour model both ways round: the way that explains
        # every square, with White's pieces the lighter ones
        best = None
        for k, cand in enumerate(candidates):
            lab = labels if k == 0 else labels[::-1]
            arr = np.array(lab)
            if sum(a != b for a, b in zip(seen, lab, strict=True)) > 2:
                continue  # the clusters disagree with this position: not it
            if not {"w", "b"} <= set(lab) or feats[arr == "w"].mean() <= feats[arr == "b"].mean():
                continue
            try:
                model = ColourModel.learn([(feats, lab)])
            except Exception:
                continue
            _, _, d2 = model.classify(feats)
            worst = float(np.sort(d2)[-3:].mean())
            if worst < OUTLIER_D2 and (best is None or worst < best[0]):
                best = (worst, cand)
        if best is not None:
            return best[1]
        if self.known is not None or self.model is not None:
            raise OrientationUnknown(
                "the board is found but not where White sits: give --white-at "
                "(bottom, top, left, right), a calibration, or show the start position")
        return self._orient_unseen_set(frame, candidates, first_look)

    def _orient_unseen_set(self, frame, candidates: list[BoardPose],
                           first_look: tuple[SquareReader, Observation] | None) -> BoardPose:
        """`first_look`: the look already taken in `candidates[0]`, if any."""
        self.unseen_set = True
        obs = (first_look[1] if first_look is not None and first_look[0].pose is candidates[0] else
               SquareReader(candidates[0], self.occupancy or load()).observe(frame))
        reading = decide(obs, self.size)
        rows = {c: [(s - 1) // (self.size // 2) for s, v in reading.squares.items()
                    if v.lower() == c] for c in "wb"}
        if rows["w"] and rows["b"] and abs(np.mean(rows["w"]) - np.mean(rows["b"])) >= 1.0:
            # White's men start on White's half, rows counted from Black's side
            return candidates[0] if np.mean(rows["w"]) > np.mean(rows["b"]) else candidates[1]
        self.guessed_side = True
        return candidates[0]

    def _learn(self, frame) -> ColourModel | None:
        """The set's colour model from a frame of the known position or of the start
        position; None for a frame of any other position (a set never seen, oriented by
        its markers): three clusters of colour guessed on it would take a crowned king
        for the other colour, or one colour for two, so the occupancy model reads it."""
        _, sampler = self._located()
        samples = sampler.sample(frame)
        light = fit_light(samples.light, sampler.light_xy, self.size)
        if self.known is not None:
            labels = position_labels(self.known)
            feats = body_features(samples, light, sampler)
        else:
            labels, feats = guess_labels(samples, sampler)
            # a start position in view: trust its layout over the clustering
            start = start_labels(self.size)
            if sum(a != b for a, b in zip(labels, start, strict=True)) > 2:
                return None
            labels = start
        walls = wall_features(samples, light, sampler)
        model = ColourModel.learn([(feats, labels), (walls, labels)], light.spread)
        # a crown must stand out from men's tops further than any did here, twice over
        # (a noisy camera or a saturated colour spreads men's tops wider)
        crowns = crown_features(samples, light, sampler)
        kings = set() if self.known is None else {
            s for s, v in self.known.pieces().items() if v.isupper()}
        # only men teach a man's height and what a man's top shows
        men = np.array([i for i, lab in enumerate(labels)
                        if lab != "e" and i + 1 not in kings], int)
        if len(men):
            scores = crown_scores(crowns[men], [CLASSES.index(labels[i]) for i in men], model)
            model.crown_limit = max(KING_D2, 2.0 * float(scores.max()))
        self.stack = StackModel.fit(*stack_view(samples, light, sampler, labels, model, men))
        look = self._square_reader(calibrated=True).observe(frame)
        self.head = SetHead.fit(look, labels, self._nets().fingerprint)
        return model

    # --- frames -----------------------------------------------------------------------

    def _pose_still_fits(self, frame, samples) -> bool:
        """Cheap check that the board has not moved: the light squares still look like one
        smooth field (a bumped board or camera puts them on dark squares and pieces), or
        when they do not (a hand and its shadow), the corners are still corners."""
        _, sampler = self._located()
        if not sampler.inside(frame.shape):
            return False
        if self.model is not None:
            light = fit_light(samples.light, sampler.light_xy, self.size)
            self._light = (samples, light)
            res = np.linalg.norm(light.residual, axis=1)
            if (res > max(6 * self.model.light_spread, MIN_ANOMALY)).mean() < 0.3:
                return True
        if self._corner_reference is None:
            self._corner_reference = self._corner_fraction(frame)
            return True
        return self._corner_fraction(frame) > 0.5 * self._corner_reference

    def _relocate(self, frame) -> bool:
        """The board found again after it moved; False when it is not in view."""
        last, _ = self._located()
        try:
            try:  # a small move: follow it from the last pose
                moved = track(frame, last, self.intrinsics)
                if moved.corners_used < 0.5 * (self.size - 1) ** 2:
                    raise BoardNotFound("too few corners followed")
                self.set_pose(moved.pose, frame)
            except BoardNotFound:
                self.locate(frame)
            self.relocations += 1
            return True
        except (BoardNotFound, OrientationUnknown):
            return False

    def read(self, frame: np.ndarray) -> Reading:
        if frame is None or getattr(frame, "ndim", 0) != 3:
            raise VisionError("expected a colour image")
        fresh = self.pose is None
        if fresh:
            self.locate(frame)
        look, self._fresh_look = self._fresh_look, None
        pose, sampler = self._located()
        samples = sampler.sample(frame)
        if not fresh and not self._pose_still_fits(frame, samples):
            if not self._relocate(frame):
                # covered or moved out of view: nothing can be said this frame
                n = self.size * self.size // 2
                return Reading(self.size, {s: "?" for s in range(1, n + 1)},
                               {s: 0.0 for s in range(1, n + 1)}, hand=True,
                               board_found=False)
            pose, sampler = self._located()  # found again: a new pose
            samples = sampler.sample(frame)
        self.last_samples = samples
        side = side_of(pose.white_side_in_image())
        model, head = self.model, self.head
        if model is None or head is None:
            self.last = (look if fresh and look is not None
                         else self._square_reader().observe(frame))
            reading = decide(self.last, self.size)
            notes: tuple[str, ...] = (GUESSED,) if self.guessed_side else ()
            if model is not None:
                notes += (NO_HEAD,)
            return Reading(reading.size, reading.squares, reading.confidence, reading.hand,
                           True, side, notes)
        squares = self._square_reader(calibrated=True)
        self.last = squares.observe(frame)
        fitted = self._light
        # fitted once: a frame read again after a second look has the same light
        light = (fitted[1] if fitted is not None and fitted[0] is samples
                 else fit_light(samples.light, sampler.light_xy, self.size))
        reading, feats, labels = read_frame(
            self.last, samples, sampler, light, model, head, self.occlusion, self.stack,
            self._nets().fingerprint)
        doubt = [s - 1 for s, v in reading.squares.items() if v == "?"]
        if doubt and not reading.hand:  # a second, mirrored look where one left doubt
            self.last = squares.look_again(self.last, doubt)
            reading, feats, labels = read_frame(
                self.last, samples, sampler, light, model, head, self.occlusion,
                self.stack, self._nets().fingerprint)
        self.last_features = (feats, labels)
        return Reading(reading.size, reading.squares, reading.confidence, reading.hand,
                       True, side)

    def motion_vector(self) -> np.ndarray:
        """A coarse copy of the last frame's squares, for the settle detector."""
        if self.last_samples is None:
            raise VisionError("no frame read yet")
        return self.last_samples.motion_vector()

    def settled(self, reading: Reading) -> None:
        """Tell the reader a reading was settled: its confident squares teach the model
        the current light."""
        if not self.adapt or self.model is None or self.last_features is None:
            return
        feats, labels = self.last_features
        keep = [i for i, s in enumerate(range(1, len(labels) + 1))
                if reading.squares[s] != "?" and reading.confidence[s] > 0.99]
        if keep:
            self.model.adapt(feats[keep], [labels[i] for i in keep])
