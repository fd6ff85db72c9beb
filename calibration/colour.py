"""The set's colours: what a white and a black piece's top look like to this camera, as
Gaussians over colour normalised by the board itself (Lab minus the empty playing
square's colour, divided by the contrast between the two kinds of square), so they hold
when the light changes. Learned from a photo of a known position (`damas calibrate
board`), nudged by every settled reading so slow light changes are followed."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import CalibrationError

COLOURS = ("w", "b")
# the least spread a colour is allowed (normalised units): sensor noise, JPEG and the
# light across a board make the same set's pieces differ a little
FLOOR = 0.05


@dataclass
class Gaussian:
    mean: np.ndarray
    cov: np.ndarray
    inv: np.ndarray = field(init=False, repr=False)
    logdet: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.mean = np.asarray(self.mean, np.float64)
        self.cov = np.asarray(self.cov, np.float64) + np.eye(3) * FLOOR ** 2
        self.inv = np.linalg.inv(self.cov)
        self.logdet = float(np.linalg.slogdet(self.cov)[1])

    @classmethod
    def fit(cls, x: np.ndarray) -> Gaussian:
        x = np.asarray(x, np.float64)
        cov = np.cov(x.T) if len(x) > 3 else np.zeros((3, 3))
        return cls(x.mean(axis=0), cov)

    def log_density(self, x: np.ndarray) -> np.ndarray:
        d = np.asarray(x, np.float64) - self.mean
        return -0.5 * (np.einsum("ij,jk,ik->i", d, self.inv, d) + self.logdet
                       + 3 * np.log(2 * np.pi))


@dataclass
class PieceColours:
    white: Gaussian
    black: Gaussian

    @classmethod
    def learn(cls, features: np.ndarray, labels: list[str]) -> PieceColours:
        """From the tops of pieces whose colours are known (labels w/b, kings as men)."""
        labels_arr = np.array([lab.lower() for lab in labels])
        missing = [c for c in COLOURS if not (labels_arr == c).any()]
        if missing:
            names = {"w": "white pieces", "b": "black pieces"}
            raise CalibrationError("the position shown must have " + " and ".join(
                names[c] for c in missing) + " to learn their colours from")
        return cls(Gaussian.fit(features[labels_arr == "w"]),
                   Gaussian.fit(features[labels_arr == "b"]))

    def posterior_white(self, features: np.ndarray) -> np.ndarray:
        """P(white) per row, the two colours equally likely beforehand."""
        lw, lb = self.white.log_density(features), self.black.log_density(features)
        return 1 / (1 + np.exp(np.clip(lb - lw, -50, 50)))

    def outlying(self, features: np.ndarray, limit: float = 25.9) -> np.ndarray:
        """True where neither colour explains the top (chi-square, 3 dof, p = 1e-5)."""
        def d2(g: Gaussian):
            d = features - g.mean
            return np.einsum("ij,jk,ik->i", d, g.inv, d)
        return np.minimum(d2(self.white), d2(self.black)) > limit

    def adapt(self, features: np.ndarray, labels: list[str], rate: float = 0.05) -> None:
        """Move each colour a little towards the tops just read as that colour."""
        labels_arr = np.array([lab.lower() for lab in labels])
        for colour, g in (("w", self.white), ("b", self.black)):
            mine = labels_arr == colour
            if mine.any():
                g.mean = (1 - rate) * g.mean + rate * features[mine].mean(axis=0)

    def to_dict(self) -> dict:
        def one(g: Gaussian):
            return {"mean": g.mean.round(5).tolist(),
                    "cov": (g.cov - np.eye(3) * FLOOR ** 2).round(7).tolist()}
        return {"white": one(self.white), "black": one(self.black)}

    @classmethod
    def from_dict(cls, d: dict) -> PieceColours:
        def one(e):
            mean, cov = np.array(e["mean"], float), np.array(e["cov"], float)
            if mean.shape != (3,) or cov.shape != (3, 3) or not np.isfinite(cov).all():
                raise ValueError("a colour needs a 3-vector mean and a 3x3 covariance")
            return Gaussian(mean, cov)
        return cls(one(d["white"]), one(d["black"]))
