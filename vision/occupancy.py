"""The occupancy model: per square patch, the probabilities that it is empty, holds a
man, a crowned piece or two men stacked (both kings), and how far the piece's top is
displaced from its base. A small CNN trained on
synthetic patches (`train`, `synth`), shipped as ONNX and run by OpenCV's dnn module on
the CPU (no extra runtime)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .errors import VisionError

WEIGHTS = Path(__file__).with_name("models") / "occupancy.onnx"


class OccupancyModel:
    def __init__(self, path: str | Path = WEIGHTS):
        path = Path(path)
        if not path.is_file():
            raise VisionError(f"{path}: the occupancy model is missing (reinstall damas, "
                              "or train one with `damas train vision`)")
        try:
            self.net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as e:
            raise VisionError(f"{path}: not a readable model ({e})") from None
        self.path = path
        self.outputs = list(self.net.getUnconnectedOutLayersNames())

    def __call__(self, patches: np.ndarray):
        """(N, side, side, 3) normalised patches -> ((N, 4) probabilities of empty, a man,
        a crowned piece, two men stacked; (N,) displacement of a piece's top, squares;
        (N, F) the features they come from)."""
        if len(patches) == 0:
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros((0, 1))
        blob = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32)
        self.net.setInput(blob)
        outs = self.net.forward(self.outputs)
        out = outs[0].reshape(len(patches), -1)
        features = outs[1].reshape(len(patches), -1) if len(outs) > 1 else out
        k = out.shape[1] - 1  # the classes, then the displacement
        logits = out[:, :k] - out[:, :k].max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True), out[:, k], features


@lru_cache(maxsize=8)
def load(path: str | None = None) -> OccupancyModel:
    return OccupancyModel(path or WEIGHTS)


def trained_on() -> set[str]:
    """The sources of real photos the shipped model learned from (its manifest)."""
    import json

    manifest = WEIGHTS.with_suffix(".json")
    if not manifest.is_file():
        return set()
    try:
        return set(json.loads(manifest.read_text(encoding="utf-8"))["photo_sources"])
    except (OSError, ValueError, KeyError, TypeError):
        raise VisionError(f"{manifest}: damaged (reinstall damas)") from None
