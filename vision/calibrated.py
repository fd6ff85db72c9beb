"""The calibrated reader: the occupancy nets (`occupancy`, `read`) read every frame,
calibrated or not; a calibration (one frame of a known position, every square's class
known) adapts them to its set with a small head (`SetHead`), fitted in milliseconds with
numpy and kept in the calibration folder (`head.json`):

- occupancy: the nets' P(empty), sharpened as for a set never seen by the squares the
  frame itself is sure of (`read.learn_from_the_photo`), with the calibration's empty
  and occupied squares (in the nets' features) added to those it learns from;
- colour: White's and Black's men of the calibration frame give one Gaussian each of the
  colour round a piece's top's rim (Lab, normalised by the board as the patches are: so
  a change of light, a lamp's glow or a warmer bulb, moves it little), pooled spread; a
  piece is White or Black by them, never by a split of the frame's own pieces (a frame
  of one colour, or a crowned king, has no split to make);
- kings: a crowned piece by the nets (the mark on its top, or the crowned and stacked
  odds standing out from the frame's men, as `read.decide` does) or by the colour
  model's crown test; a king of two plain men by its height (`height.StackModel`), both
  learned at calibration as before, and both only while the frame's squares still fit
  the colour model (`_light_holds`): in another light they crowned men.

Something over the board (a hand, an arm) is found as the colour-model reader found it
(`colour_read.Occlusion`: a light square whose hue changed, a frame cell unlike its own
side, a square showing no board at any corner), and by the nets where they looked at the
plain squares too; the squares near it are unknown, and under it those whose colour the
colour model cannot explain or reads as the other kind than the nets."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from damas.calibration.colour import CLASSES, ColourModel

from .colour_read import (
    OUTLIER_D2,
    LightField,
    Occlusion,
    body_features,
    crown_features,
    crown_scores,
    stack_view,
    wall_features,
)
from .height import StackModel
from .read import SURE, Observation, Reading, _kings, _logit, _marked, learn_from_the_photo
from .sampler import CORNERS, Sampler, Samples

HEAD_FILE = "head.json"
HEAD_KIND, HEAD_VERSION = "damas.head", 1
COLOUR_FLOOR = 0.05  # the least spread of a colour (normalised units): noise, JPEG, light
NEAR_HAND = 1.6  # squares: playing squares this near something over the board
KING_MARGIN = 1.0  # log odds a king stands above the calibration's most king-like man
# the most a class's median square may stand from the colour model (squared distance in
# units of its spread) for the model's crown test and stack heights to be trusted: in
# the light it was learned in the renderer's squares stand at 0.4-1.7 (7.8 in a pose
# found afresh), under another light (darker, brighter, warmer) at 2.4-134; false kings
# came at 111 and 134 (1.6 times the exposure), none up to 30 on those scenes
LIGHT_HOLDS = 15.0


def fingerprint(path: Path) -> str:
    """Which net a head's features belong to: a digest of its file."""
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()[:16]


def _unit(f: np.ndarray) -> np.ndarray:
    return f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-9)


@dataclass
class SetHead:
    """What a calibration frame teaches the nets about one set."""

    white: np.ndarray  # (3,) mean rim colour of White's men
    black: np.ndarray  # (3,) of Black's
    inv: np.ndarray  # (3, 3) inverse of their pooled covariance (floored)
    empty: np.ndarray  # (k, F) the nets' features of the calibration's empty squares
    occupied: np.ndarray  # (m, F) and of its pieces
    nets: str = ""  # fingerprint of the nets the features come from
    # the nets' log odds of crowned or stacked for the calibration's most king-like man:
    # a carved or ringed set's men can look crowned to the nets, and this set's do so much
    men_king_odds: float = -math.inf

    @classmethod
    def fit(cls, obs: Observation, labels: list[str], nets: str = "") -> SetHead:
        """From the nets' look at a frame whose squares' classes are `labels` (e/w/b,
        kings as their colour's letter in either case)."""
        from damas.calibration.errors import CalibrationError

        lab = np.array([v.lower() for v in labels])
        white, black = obs.rims[lab == "w"], obs.rims[lab == "b"]
        if not len(white) or not len(black) or not (lab == "e").any():
            raise CalibrationError("the position shown must have empty squares and pieces "
                                   "of both colours to learn the set from")
        scatter = np.zeros((3, 3))
        for group in (white, black):
            if len(group) > 1:
                scatter += np.cov(group.T) * (len(group) - 1)
        cov = scatter / max(len(white) + len(black) - 2, 1) + np.eye(3) * COLOUR_FLOOR ** 2
        features = (obs.features if obs.features is not None
                    else np.zeros((len(lab), 0), np.float32))
        f = _unit(features)
        men = np.array([v in "wb" for v in labels])  # lower case: men, not kings
        odds = _logit(obs.probs[men, 2:].sum(axis=1))
        return cls(white.mean(axis=0), black.mean(axis=0), np.linalg.inv(cov),
                   f[lab == "e"], f[lab != "e"], nets,
                   float(odds.max()) if len(odds) else -math.inf)

    def kings(self, king_p: np.ndarray, nets: str = "") -> np.ndarray:
        """Which pieces the nets call kings (`read._kings`), and, with the same nets as
        the calibration, only those that look more crowned than any man of the
        calibration did, by KING_MARGIN."""
        kings = _kings(king_p)
        if nets == self.nets and math.isfinite(self.men_king_odds):
            kings &= _logit(king_p) > self.men_king_odds + KING_MARGIN
        return kings

    # --- reading ---------------------------------------------------------------------

    def p_empty(self, obs: Observation, nets: str = "") -> np.ndarray:
        """P(empty) per square: the nets', sharpened by the calibration's squares (when
        its features are the same nets'), else by the squares of this frame they are
        sure of."""
        p = obs.probs[:, 0]
        if obs.features is None:
            return p
        if nets != self.nets or self.empty.shape[1] != obs.features.shape[1]:
            return learn_from_the_photo(p, obs.features)
        return learn_from_the_photo(p, obs.features, references=(self.empty, self.occupied))

    def p_white(self, rims: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(P(white), certainty) per piece, by the colour round its top's rim."""
        x = np.asarray(rims, np.float64)
        dw, db = x - self.white, x - self.black
        lw = np.einsum("ij,jk,ik->i", dw, self.inv, dw)
        lb = np.einsum("ij,jk,ik->i", db, self.inv, db)
        p = 1 / (1 + np.exp(np.clip((lw - lb) / 2, -50, 50)))
        return p, np.maximum(p, 1 - p)

    # --- storing ---------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {"white": self.white.round(5).tolist(), "black": self.black.round(5).tolist(),
                "inv": self.inv.round(4).tolist(),
                "empty": _packed(self.empty), "occupied": _packed(self.occupied),
                "nets": self.nets,
                **({"men_king_odds": round(self.men_king_odds, 4)}
                   if math.isfinite(self.men_king_odds) else {})}

    @classmethod
    def from_dict(cls, d: dict) -> SetHead:
        def arr(key: str, dims: int) -> np.ndarray:
            a = np.array(d[key], np.float64)
            if a.ndim != dims or not np.isfinite(a).all():
                raise ValueError(f"{key}: not a {dims}-d array of numbers")
            return a

        head = cls(arr("white", 1), arr("black", 1), arr("inv", 2), _unpacked(d["empty"]),
                   _unpacked(d["occupied"]), str(d.get("nets", "")),
                   float(d.get("men_king_odds", -math.inf)))
        if head.white.shape != (3,) or head.black.shape != (3,) or head.inv.shape != (3, 3):
            raise ValueError("colours must be 3 numbers and their spread 3x3")
        return head


def _packed(a: np.ndarray) -> dict:
    """Features as half floats in base64 (they are unit vectors' parts: 3 digits do)."""
    import base64

    return {"shape": list(a.shape),
            "float16": base64.b64encode(a.astype("<f2").tobytes()).decode("ascii")}


def _unpacked(d: dict) -> np.ndarray:
    import base64
    import binascii

    try:
        shape = tuple(int(v) for v in d["shape"])
        a = np.frombuffer(base64.b64decode(d["float16"], validate=True), "<f2")
        a = a.astype(np.float64).reshape(shape)
    except (binascii.Error, ValueError) as e:
        raise ValueError(f"features: {e}") from None
    if len(shape) != 2 or not np.isfinite(a).all():
        raise ValueError("features: not a table of numbers")
    return a


# --- the folder ------------------------------------------------------------------------

def save_head(folder, head: SetHead) -> Path:
    from damas.calibration.store import save_json

    return save_json(Path(folder) / HEAD_FILE, HEAD_KIND, HEAD_VERSION, head.to_dict())


def load_head(folder) -> SetHead | None:
    """The head kept in a calibration folder; None for a folder made before heads were
    (the reader then fits one on its first frame, see `BoardReader.from_calibration`)."""
    from damas.calibration.errors import CalibrationError
    from damas.calibration.store import load_json

    path = Path(folder) / HEAD_FILE
    if not path.exists():
        return None
    d = load_json(path, HEAD_KIND, HEAD_VERSION)
    try:
        return SetHead.from_dict(d)
    except (KeyError, TypeError, ValueError) as e:
        raise CalibrationError(f"{path}: damaged or incomplete ({e}): calibrate "
                               "again") from None


# --- one frame ---------------------------------------------------------------------------

def read_frame(obs: Observation, samples: Samples, sampler: Sampler, light: LightField,
               model: ColourModel, head: SetHead, occlusion: Occlusion | None = None,
               stack: StackModel | None = None,
               nets: str = "") -> tuple[Reading, np.ndarray, list[str]]:
    """(reading, body features, labels e/w/b) of one frame of a calibrated set: `obs`
    the nets' look at it, `samples` the colour-model reader's (the crown test, the
    height of stacks, hands and the light; the body features are what a settled reading
    teaches the colour model), `light` the light field of these samples."""
    n = sampler.board.size
    feats = body_features(samples, light, sampler)
    p_empty = head.p_empty(obs, nets)
    occupied = p_empty < 0.5
    pieces = np.nonzero(occupied)[0]
    p_white, sure_colour = head.p_white(obs.rims[pieces])
    labels = ["e"] * len(p_empty)
    for k, i in enumerate(pieces.tolist()):
        labels[i] = "w" if p_white[k] >= 0.5 else "b"

    king = np.zeros(len(labels), bool)
    by_colour = np.zeros(len(labels), bool)  # kings by the colour model's tests alone
    unsure_king = np.zeros(len(labels), bool)
    hand, near = _hands(obs, samples, sampler, light, model, occlusion, occupied)
    holds = _light_holds(model, feats[~near], [lab for lab, x in zip(labels, near, strict=True)
                                                if not x])
    if len(pieces):
        crowned, unsure = _marked(obs.marks[pieces])
        king[pieces] = crowned | head.kings(obs.probs[pieces, 2:].sum(axis=1), nets)
        unsure_king[pieces] = unsure
        # the colour model's tests stand only in the light it was learned in (a brighter
        # frame made men's tops "crowns" and white men stacks); else the nets' alone
        if holds:
            own = [CLASSES.index(labels[i]) for i in pieces]
            crown = crown_features(samples, light, sampler)
            by_colour[pieces] = crown_scores(crown[pieces], own, model) > model.crown_limit
            if stack is not None:
                by_colour[pieces] |= stack.kings(*stack_view(samples, light, sampler, labels,
                                                             model, pieces))
            by_colour &= ~king
            king |= by_colour
    unsure_king &= ~king

    hidden = np.zeros(len(labels), bool)
    if hand and holds:
        # under a hand, a square whose colour no class explains, nor its wall low down
        # a piece's, is hidden: the nets may take a palm for a piece; and at its edge a
        # square the colour model sure of the other kind (empty or not) than the nets
        hidden = _unexplained(model, samples, light, sampler, feats)
        seen, sure_seen, d2 = model.classify(feats)
        hidden |= ((np.array(seen) == "e") != ~occupied) & (sure_seen > SURE) & (d2 <= OUTLIER_D2)
    squares: dict[int, str] = {}
    confidence: dict[int, float] = {}
    colour_of = dict(zip(pieces.tolist(), sure_colour.tolist(), strict=True))
    for i, lab in enumerate(labels):
        square = i + 1
        sure = float(p_empty[i]) if lab == "e" else (1 - float(p_empty[i])) * colour_of[i]
        # next to something over the board the nets have been seen sure and wrong (the
        # hand's shadow, its palm): unknown, as the colour-model reader had it
        if unsure_king[i] or hidden[i] or near[i] or sure < SURE:
            squares[square], confidence[square] = "?", 0.0
            continue
        squares[square] = lab.upper() if king[i] else lab
        confidence[square] = sure
    return Reading(n, squares, confidence, hand=hand), feats, labels


def _unexplained(model: ColourModel, samples: Samples, light, sampler: Sampler,
                 feats: np.ndarray) -> np.ndarray:
    """Per playing square: its colour is explained by no class of the colour model, and
    its wall, low down, by no piece's."""
    out = model.distances(feats).min(axis=1) > OUTLIER_D2
    if out.any():
        walls = wall_features(samples, light, sampler)[out]
        out[np.nonzero(out)[0]] = model.distances(walls)[:, 1:].min(axis=1) > OUTLIER_D2
    return out


def _light_holds(model: ColourModel, feats: np.ndarray, labels: list[str]) -> bool:
    """Whether the colour model learned at calibration still describes this frame: the
    squares of each class (as the nets and the head read them) lie, at the median,
    within LIGHT_HOLDS of it (squared distances in units of its spread)."""
    distances = model.distances(feats)
    lab = np.array(labels)
    for k, c in enumerate(CLASSES):
        mine = lab == c
        if mine.any() and float(np.median(distances[mine, k])) > LIGHT_HOLDS:
            return False
    return True


def _hands(obs: Observation, samples: Samples, sampler: Sampler, light, model: ColourModel,
           occlusion: Occlusion | None, occupied: np.ndarray) -> tuple[bool, np.ndarray]:
    """(something over the board, per playing square whether it lies near it)."""
    bad = []
    if len(obs.plain_probs):
        bad.append(sampler.light_xy[obs.plain_probs[:, 0] < 0.5])
    covered = np.zeros(len(occupied), bool)
    if occlusion is not None:
        light_bad, ring_bad = occlusion.anomalies(samples, light, occupied, model.light_spread)
        bad += [sampler.light_xy[light_bad], sampler.ring_xy[ring_bad]]
    bad_xy = np.vstack(bad) if bad else np.zeros((0, 2))
    if not len(bad_xy):
        return False, covered
    dist = np.linalg.norm(sampler.dark_xy[:, None] - bad_xy[None], axis=2)
    near = (dist < NEAR_HAND).any(axis=1)
    # a hand may match a piece's colour; it cannot show the board at the corners, and
    # the squares at its edge are half under it
    covered = ~_board_at_a_corner(samples, light, sampler, model)
    dist = np.linalg.norm(sampler.dark_xy[:, None] - sampler.dark_xy[None], axis=2)
    near |= ((dist < 1.5) & covered[None, :]).any(axis=1)
    return True, near


def _board_at_a_corner(samples: Samples, light, sampler: Sampler,
                       model: ColourModel) -> np.ndarray:
    """Per dark square: does at least one of its corners show an empty dark square?"""
    from .colour_read import log_colour

    count = len(sampler.dark_xy)
    xy = (sampler.dark_xy[:, None, :] + np.array(CORNERS)[None]).reshape(-1, 2)
    feats = log_colour(samples.corners.reshape(-1, 3)) - light.at(xy)
    empty = model.components[model.index("e")]
    delta = feats - empty.mean
    # a shadow (a piece's, the hand's) only darkens: let the brightness fall freely
    shade = np.clip(delta.mean(axis=1, keepdims=True), np.log(0.35), np.log(1.5))
    rest = delta - shade
    d2 = np.einsum("ij,jk,ik->i", rest, empty.inv, rest).reshape(count, len(CORNERS))
    return (d2 <= OUTLIER_D2).any(axis=1)
