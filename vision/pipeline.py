"""The board reader: composes locator, orientation, sampler and square reader into one
object that turns frames into Readings, keeping the pose between frames (and finding the
board again when it moves) and adapting the colour model to slow light changes."""

from __future__ import annotations

import cv2
import numpy as np

from damas.calibration.camera import Intrinsics
from damas.calibration.colour import CLASSES, ColourModel
from damas.rules import Position

from .board import BoardPose
from .errors import BoardNotFound, OrientationUnknown, VisionError
from .height import StackModel, piece_lengths
from .locate import checker_corners, locate
from .read import (
    KING_D2,
    MIN_ANOMALY,
    OUTLIER_D2,
    Occlusion,
    Reading,
    body_features,
    crown_features,
    crown_score,
    fit_light,
    guess_labels,
    profile_features,
    read_samples,
    start_labels,
    wall_features,
)
from .sampler import Sampler

SIDES = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}


def side_of(direction: np.ndarray) -> str:
    return max(SIDES, key=lambda s: float(np.dot(SIDES[s], direction)))


def position_labels(position: Position) -> list[str]:
    """e/w/b per dark square (kings count as their colour)."""
    n = position.variant.squares
    return [(position.piece(s) or "e").lower() for s in range(1, n + 1)]


def _mirror(labels: list[str]) -> list[str]:
    """Labels of the board turned half round: square s becomes squares + 1 - s."""
    return labels[::-1]


class BoardReader:
    """Reads frames of one board.

    size: 8 or 10. model: a learned ColourModel, or None to learn one from the first
    frame (`known` position given, or the start position recognised, or clustering when
    `white_at` says where White sits). white_at: "bottom", "top", "left" or "right" of
    the image, or a unit image vector (from a calibration)."""

    def __init__(self, size: int, model: ColourModel | None = None,
                 intrinsics: Intrinsics | None = None, white_at=None,
                 known: Position | None = None, pose: BoardPose | None = None,
                 adapt: bool = True, stack: StackModel | None = None,
                 kings_by_height: bool = False):
        self.size = size
        self.model = model
        self.intrinsics = intrinsics
        self.white_dir = (np.array(SIDES[white_at]) if isinstance(white_at, str)
                          else None if white_at is None else np.asarray(white_at, float))
        self.known = known
        self.adapt = adapt
        self.pose: BoardPose | None = None
        self.sampler: Sampler | None = None
        self.occlusion: Occlusion | None = None
        self.relocations = 0
        # men's size and height, to tell kings without a crown by their stacks: off
        # unless asked for, as it still takes a man for a king now and then
        self.kings_by_height = kings_by_height or stack is not None
        self.stack = stack
        if pose is not None:
            self.set_pose(pose)

    # --- pose -------------------------------------------------------------------------

    def set_pose(self, pose: BoardPose, frame: np.ndarray | None = None) -> None:
        self.pose = pose
        self.sampler = Sampler(pose)
        self.occlusion = Occlusion(pose, self.sampler)
        n = pose.size
        corners = np.array([(i - n / 2, j - n / 2) for j in range(1, n) for i in range(1, n)])
        offsets = [(0.14, 0.14), (-0.14, -0.14), (0.14, -0.14), (-0.14, 0.14)]
        pts = np.vstack([np.column_stack([corners + o, np.zeros(len(corners))])
                         for o in offsets])
        pix = pose.project(pts).astype(np.float32)
        self._corner_maps = (pix[:, 0].reshape(1, -1).copy(), pix[:, 1].reshape(1, -1).copy())
        self._corner_reference = self._corner_fraction(frame) if frame is not None else None

    def _corner_fraction(self, frame: np.ndarray) -> float:
        """Share of the inner corners where four squares visibly meet: high while the
        grid sits on the board, low once the board or camera has moved."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        vals = cv2.remap(grey, *self._corner_maps, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        return float(checker_corners(vals.reshape(4, -1)).mean())

    def locate(self, frame: np.ndarray) -> BoardPose:
        """A fresh locate, oriented; sets the pose (and the model, if none yet)."""
        loc = locate(frame, self.size, self.intrinsics)
        pose = loc.pose
        if not loc.oriented:
            candidates = [pose, pose.turned(2)]
            if self.white_dir is not None:
                pose = max(candidates, key=lambda p: float(
                    np.dot(p.white_side_in_image(), self.white_dir)))
            else:
                pose = self._orient_by_position(frame, candidates)
        self.set_pose(pose, frame)
        if self.white_dir is None:
            # from now on a bumped board is re-found the same way round
            self.white_dir = pose.white_side_in_image()
        if self.model is None:
            self.model = self._learn(frame)
        return pose

    def _orient_by_position(self, frame, candidates: list[BoardPose]) -> BoardPose:
        """Without markers or a side: the way round that makes the known position (or
        the start position) fit, White being the lighter pieces."""
        labels = (position_labels(self.known) if self.known is not None
                  else start_labels(self.size))
        sampler = Sampler(candidates[0])
        samples = sampler.sample(frame)
        seen, feats = guess_labels(samples, sampler)
        if seen == labels:
            return candidates[0]
        if seen == _mirror(labels):
            return candidates[1]
        # fall back to fitting the colour model both ways round: the way that explains
        # every square, with White's pieces the lighter ones
        best = None
        for k, cand in enumerate(candidates):
            lab = labels if k == 0 else _mirror(labels)
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
        raise OrientationUnknown(
            "the board is found but not where White sits: give --white-at "
            "(bottom, top, left, right), a calibration, or show the start position")

    def _learn(self, frame) -> ColourModel:
        samples = self.sampler.sample(frame)
        light = fit_light(samples.light, self.sampler.light_xy, self.size)
        men_known = True  # are all pieces in `labels` known to be men (or known kings)?
        if self.known is not None:
            labels = position_labels(self.known)
            feats = body_features(samples, light, self.sampler)
        else:
            labels, feats = guess_labels(samples, self.sampler)
            # a start position in view: trust its layout over the clustering
            start = start_labels(self.size)
            men_known = sum(a != b for a, b in zip(labels, start, strict=True)) <= 2
            if men_known:
                labels = start
        walls = wall_features(samples, light, self.sampler)
        model = ColourModel.learn([(feats, labels), (walls, labels)], light.spread)
        # a crown must stand out from men's tops further than any did here, twice over
        # (a noisy camera or a saturated colour spreads men's tops wider)
        crowns = crown_features(samples, light, self.sampler)
        kings = set() if self.known is None else {
            s for s, v in self.known.pieces().items() if v.isupper()}
        scores = [crown_score(crowns[i], CLASSES.index(lab), model)
                  for i, lab in enumerate(labels) if lab != "e" and i + 1 not in kings]
        if scores and men_known:  # (among pieces of unknown rank, kings would count)
            model.crown_limit = max(KING_D2, 2.0 * max(scores))
        if self.kings_by_height:
            lengths = piece_lengths(profile_features(samples, light, self.sampler), labels,
                                    model, OUTLIER_D2)
            if self.known is not None:  # only men teach a man's height
                kings = [s for s, v in self.known.pieces().items() if v.isupper()]
                lengths[[s - 1 for s in kings]] = np.nan
            self.stack = StackModel.fit(lengths, self.sampler.slant())
        return model

    # --- frames -----------------------------------------------------------------------

    def _pose_still_fits(self, frame, samples) -> bool:
        """Cheap check that the board has not moved: the light squares still look like one
        smooth field (a bumped board or camera puts them on dark squares and pieces)."""
        if not self.sampler.inside(frame.shape):
            return False
        light = fit_light(samples.light, self.sampler.light_xy, self.size)
        res = np.linalg.norm(light.residual, axis=1)
        off = res > max(6 * self.model.light_spread, MIN_ANOMALY)
        if off.mean() < 0.3:
            return True
        # many light squares look wrong: a moved board, or only a hand and its shadow?
        if self._corner_reference is None:
            self._corner_reference = self._corner_fraction(frame)
            return True
        return self._corner_fraction(frame) > 0.5 * self._corner_reference

    def read(self, frame: np.ndarray) -> Reading:
        if frame is None or frame.ndim != 3:
            raise VisionError("expected a colour image")
        if self.pose is None:
            self.locate(frame)
            samples = self.sampler.sample(frame)
        else:
            samples = self.sampler.sample(frame)
            if not self._pose_still_fits(frame, samples):
                try:
                    self.locate(frame)
                    self.relocations += 1
                    samples = self.sampler.sample(frame)
                except (BoardNotFound, OrientationUnknown):
                    # covered or moved out of view: nothing can be said this frame
                    n = self.size * self.size // 2
                    return Reading(self.size, {s: "?" for s in range(1, n + 1)},
                                   {s: 0.0 for s in range(1, n + 1)}, hand=True,
                                   board_found=False)
        reading, feats, labels = read_samples(samples, self.sampler, self.model,
                                              self.occlusion,
                                              self.stack if self.kings_by_height else None)
        self.last_samples = samples
        self.last_features = (feats, labels)
        return Reading(reading.size, reading.squares, reading.confidence, reading.hand,
                       True, side_of(self.pose.white_side_in_image()))

    def settled(self, reading: Reading) -> None:
        """Tell the reader a reading was settled: its confident squares teach the model
        the current light."""
        if not self.adapt or self.model is None:
            return
        feats, labels = self.last_features
        keep = [i for i, s in enumerate(range(1, len(labels) + 1))
                if reading.squares[s] != "?" and reading.confidence[s] > 0.99]
        if keep:
            self.model.adapt(feats[keep], [labels[i] for i in keep])
