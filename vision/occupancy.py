"""The occupancy model: per square patch, the probabilities that it is empty, holds a
man, a crowned piece or two men stacked (both kings), and how far the piece's top is
displaced from its base. Small CNNs trained on synthetic patches (`train`, `synth`),
shipped as ONNX and run by OpenCV's dnn module on the CPU (no extra runtime).

A model is the mean of its members: the net at its path (`occupancy.onnx`) and the nets
beside it numbered from 2 (`occupancy.2.onnx`), the same training from other seeds.
Two nets trained alike err on different patches of a photo unlike what they learned
(blurred, recompressed, far off), so where one is sure and wrong the mean is mostly
unsure: a `?`, not a wrong square (measured in the vision README). Each net also
reads every patch mirrored left to right (which keeps a piece's top displaced upwards,
see `patches`) and its two readings are averaged: the same calming of a net's slips for
one more look, no training."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .errors import VisionError

WEIGHTS = Path(__file__).with_name("models") / "occupancy.onnx"


def member_path(path: Path, member: int) -> Path:
    """Where net `member` (1, 2, ...) of the model at `path` is kept: `path` itself, then
    `STEM.2.onnx`, `STEM.3.onnx`, ..."""
    return path if member == 1 else path.with_name(f"{path.stem}.{member}{path.suffix}")


def without_source(folder: Path, source: str) -> Path:
    """Where the model of `folder` trained without the photos of `source` (owner/name)
    is kept: loso/NAME.onnx, so a photo is never scored by a model that saw it."""
    return folder / "loso" / f"{source.split('/')[-1]}.onnx"


def members(path: Path) -> list[Path]:
    """The nets of the model at `path`, for as long as they are there."""
    found = [path]
    while (nxt := member_path(path, len(found) + 1)).is_file():
        found.append(nxt)
    return found


class OccupancyModel:
    def __init__(self, path: str | Path = WEIGHTS):
        path = Path(path)
        if not path.is_file():
            raise VisionError(f"{path}: the occupancy model is missing (reinstall damas, "
                              "or train one with `damas train vision`)")
        self.path = path
        self.nets = []
        for member in members(path):
            try:
                net = cv2.dnn.readNetFromONNX(str(member))
            except cv2.error as e:
                raise VisionError(f"{member}: not a readable model ({e})") from None
            self.nets.append((net, list(net.getUnconnectedOutLayersNames())))
        self._fingerprint = ""

    @property
    def fingerprint(self) -> str:
        """A digest of the nets' files: a calibration's head keeps it, as the features it
        learned from are these nets' own."""
        if not self._fingerprint:
            from .calibrated import fingerprint

            self._fingerprint = fingerprint(members(self.path))
        return self._fingerprint

    def __call__(self, patches: np.ndarray, mirror: bool = True):
        """(N, side, side, 3) normalised patches -> ((N, 4) probabilities of empty, a man,
        a crowned piece, two men stacked; (N,) displacement of a piece's top, squares;
        (N, F) the features they come from): the members' mean probabilities and
        displacements over each patch and its mirror image, and their features side by
        side, each member's (summed over the two images) of unit length. mirror=False:
        each patch once, not mirrored (half the time)."""
        if len(patches) == 0:
            return np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros((0, 1))
        blob = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32)
        n = len(blob)
        # one forward pass for the two
        both = np.concatenate([blob, blob[..., ::-1]]) if mirror else blob
        probs, shifts, features = [], [], []
        for net, outputs in self.nets:
            p, shift, f = _run(net, outputs, both)
            if mirror:
                p, shift, f = (p[:n] + p[n:]) / 2, (shift[:n] + shift[n:]) / 2, f[:n] + f[n:]
            probs.append(p)
            shifts.append(shift)
            features.append(f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-9))
        return (np.mean(probs, axis=0), np.mean(shifts, axis=0),
                np.concatenate(features, axis=1))


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
