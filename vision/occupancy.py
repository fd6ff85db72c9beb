"""The occupancy model: per square patch, the probabilities that it is empty, holds a
man, a crowned piece or two men stacked (both kings), and how far the piece's top is
displaced from its base. A small CNN trained on synthetic, rendered and real patches
(`train`, `synth`), shipped as ONNX and run by OpenCV's dnn module on the CPU (no extra
runtime). The net reads every patch and its mirror image left to right (which keeps a
piece's top displaced upwards, see `patches`) and the two readings are averaged: a
calming of its slips for one more look, no training."""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .errors import VisionError

WEIGHTS = Path(__file__).with_name("models") / "occupancy.onnx"


def without_source(folder: Path, source: str) -> Path:
    """Where the model of `folder` trained without the photos of `source` (owner/name)
    is kept: loso/NAME.onnx, so a photo is never scored by a model that saw it."""
    return folder / "loso" / f"{source.split('/')[-1]}.onnx"


class OccupancyModel:
    def __init__(self, path: str | Path = WEIGHTS):
        path = Path(path)
        if not path.is_file():
            raise VisionError(f"{path}: the occupancy model is missing (reinstall damas, "
                              "or train one with `damas train vision`)")
        self.path = path
        try:
            self.net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as e:
            raise VisionError(f"{path}: not a readable model ({e})") from None
        self.outputs = list(self.net.getUnconnectedOutLayersNames())
        self._fingerprint = ""

    @property
    def fingerprint(self) -> str:
        """A digest of the net's file: a calibration's head keeps it, as the features it
        learned from are this net's own."""
        if not self._fingerprint:
            from .calibrated import fingerprint

            self._fingerprint = fingerprint(self.path)
        return self._fingerprint

    def __call__(self, patches: np.ndarray, mirror: bool = True):
        """(N, side, side, 3) normalised patches -> ((N, 4) probabilities of empty, a man,
        a crowned piece, two men stacked; (N,) displacement of a piece's top, squares;
        (N, F) the features they come from, of unit length): the mean over each patch and
        its mirror image (the features summed). mirror=False: each patch once, not
        mirrored (half the time)."""
        if len(patches) == 0:
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros((0, 1))
        blob = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32)
        n = len(blob)
        # one forward pass for the two
        both = np.concatenate([blob, blob[..., ::-1]]) if mirror else blob
        p, shift, f = _run(self.net, self.outputs, both)
        if mirror:
            p, shift, f = (p[:n] + p[n:]) / 2, (shift[:n] + shift[n:]) / 2, f[:n] + f[n:]
        return p, shift, f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-9)


def _run(net, outputs: list[str], blob: np.ndarray):
    net.setInput(blob)
    outs = net.forward(outputs)
    n = len(blob)
    out = outs[0].reshape(n, -1)
    features = outs[1].reshape(n, -1) if len(outs) > 1 else out
    k = out.shape[1] - 1  # the classes, then the displacement
    logits = out[:, :k] - out[:, :k].max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True), out[:, k], features


_standing_in: Path | None = None  # the model `load()` gives instead of the shipped one


def load(path: str | Path | None = None) -> OccupancyModel:
    """The model at `path`; by default the shipped one (or the one `standing_in` names)."""
    return _load(str(path or _standing_in or WEIGHTS))


@lru_cache(maxsize=8)
def _load(path: str) -> OccupancyModel:
    return OccupancyModel(path)


@contextmanager
def standing_in(path: Path):
    """Within it, every reader that takes the shipped model takes the one at `path`:
    a bench runs the application's own commands with a model that never saw what it
    scores."""
    global _standing_in
    before, _standing_in = _standing_in, Path(path)
    try:
        yield
    finally:
        _standing_in = before


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


def never_trained_on(source: str) -> tuple[Path, str]:
    """(the model that never saw the photos of `source`, how it was chosen): the
    shipped one if it did not, else the one trained without that source."""
    if source not in trained_on():
        return WEIGHTS, "shipped model (never saw this source)"
    loso = without_source(WEIGHTS.parent, source)
    if not loso.is_file():
        raise VisionError(f"{loso}: no model trained without {source}, and the shipped "
                          "one was trained on it: retrain with `damas train vision "
                          "--photos DIR`")
    return loso, "trained without this source"
