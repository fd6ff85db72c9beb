"""The colour model: what an empty dark square, a white piece and a black piece look
like to this camera under this light, as Gaussians over illumination-normalised colour
(log RGB minus the light field the light squares show). A class may have several
components, one per face it shows (a piece's lit top, its wall). Learned from a known
position, nudged by every settled reading so slow light changes are followed."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CLASSES = ("e", "w", "b")
# the least spread a component is allowed: sensor noise and JPEG make every square differ
# a little from the squares the model was learned on (log units, ~4 % of intensity)
FLOOR = 0.04


@dataclass
class Component:
    label: str
    mean: np.ndarray
    cov: np.ndarray
    inv: np.ndarray = field(init=False, repr=False)
    logdet: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.inv = np.linalg.inv(self.cov)
        self.logdet = float(np.linalg.slogdet(self.cov)[1])

    def d2(self, x: np.ndarray) -> np.ndarray:
        d = x - self.mean
        return np.einsum("ij,jk,ik->i", d, self.inv, d)


@dataclass
class ColourModel:
    components: list[Component]
    light_spread: float = 0.05  # typical deviation of a light square from the light field
    # how far (squared, in class spreads) the top of a king must stand from anything a
    # man's top showed when the model was learned: set by the reader from the men seen
    crown_limit: float = 30.7

    @classmethod
    def learn(cls, views: list[tuple[np.ndarray, list[str]]], light_spread: float = 0.05):
        """From one or more views of the dark squares (features, one label e/w/b per
        row): a component per view and label."""
        components = []
        for features, labels in views:
            labels_arr = np.array(labels)
            for c in CLASSES:
                x = features[labels_arr == c]
                if len(x) == 0:
                    continue
                cov = np.cov(x.T) if len(x) > 2 else np.zeros((3, 3))
                components.append(Component(c, x.mean(axis=0), cov + np.eye(3) * FLOOR ** 2))
        missing = [c for c in CLASSES if all(k.label != c for k in components)]
        if missing:
            from .errors import CalibrationError

            names = {"e": "empty dark squares", "w": "white pieces", "b": "black pieces"}
            raise CalibrationError("the position shown must have " + " and ".join(
                names[c] for c in missing) + " to learn their colours from")
        return cls(components, float(max(light_spread, 0.01)))

    def mean(self, label: str) -> np.ndarray:
        return self.components[self.index(label)].mean

    def index(self, label: str) -> int:
        """The first (top-face) component of a class."""
        return next(i for i, k in enumerate(self.components) if k.label == label)

    def distances(self, features: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distance of each row to each class (its nearest
        component), shape (N, 3)."""
        per = np.stack([k.d2(features) for k in self.components], axis=1)
        return np.stack([per[:, [i for i, k in enumerate(self.components) if k.label == c]]
                         .min(axis=1) for c in CLASSES], axis=1)

    def classify(self, features: np.ndarray):
        """(labels, confidence, best squared distance) per row."""
        per = np.stack([k.d2(features) for k in self.components], axis=1)
        logdet = np.array([k.logdet for k in self.components])
        score = -0.5 * (per + logdet)
        score -= score.max(axis=1, keepdims=True)
        p = np.exp(score)
        p /= p.sum(axis=1, keepdims=True)
        by_class = np.stack([p[:, [i for i, k in enumerate(self.components) if k.label == c]]
                             .sum(axis=1) for c in CLASSES], axis=1)
        best = np.argmax(by_class, axis=1)
        labels = [CLASSES[k] for k in best]
        return labels, by_class[np.arange(len(best)), best], per.min(axis=1)

    def adapt(self, features: np.ndarray, labels: list[str], rate: float = 0.05) -> None:
        """Move each component a little towards the squares just read nearest to it."""
        if not len(features):
            return
        per = np.stack([k.d2(features) for k in self.components], axis=1)
        nearest = np.argmin(per, axis=1)
        for i, k in enumerate(self.components):
            mine = (nearest == i) & (np.array(labels) == k.label)
            if mine.any():
                k.mean = (1 - rate) * k.mean + rate * features[mine].mean(axis=0)

    def to_dict(self) -> dict:
        return {"components": [{"label": k.label, "mean": k.mean.round(5).tolist(),
                                "cov": k.cov.round(7).tolist()} for k in self.components],
                "light_spread": round(self.light_spread, 5),
                "crown_limit": round(self.crown_limit, 3)}

    @classmethod
    def from_dict(cls, d: dict) -> ColourModel:
        comps = [Component(c["label"], np.array(c["mean"], float), np.array(c["cov"], float))
                 for c in d["components"]]
        if {k.label for k in comps} != set(CLASSES):
            raise ValueError("a colour model needs components for e, w and b")
        return cls(comps, float(d.get("light_spread", 0.05)), float(d.get("crown_limit", 30.7)))
