"""Shared helpers for the vision tests: scenes, truth poses, calibrated readers."""

from __future__ import annotations

import random

import numpy as np

from damas.calibration.camera import Camera
from damas.rules import Position
from damas.vision.board import BoardPose, square_centres
from damas.vision.pipeline import BoardReader
from damas.vision.render import render
from damas.vision.scene import random_scene

VARIANT = {10: "international", 8: "brazilian"}


def truth_pose(rendered) -> BoardPose:
    """The renderer's camera in the pipeline's units (squares)."""
    cam, scene = rendered.camera, rendered.scene
    return BoardPose(scene.size, Camera(cam.intrinsics, cam.R, cam.t / scene.square_mm))


def centre_error(pose: BoardPose, truth: BoardPose) -> float:
    """Largest distance, in squares, between where the two poses put the dark squares."""
    n = pose.size
    pts = np.column_stack([square_centres(n), np.zeros(n * n // 2)])
    a, b = pose.project(pts), truth.project(pts)
    step = np.linalg.norm(b[0] - b[1]) / 2  # squares 1 and 2 are two columns apart
    return float(np.abs(a - b).max() / step)


def game_position(name: str, rng: random.Random, plies: int) -> Position:
    pos = Position.start(name)
    for _ in range(plies):
        moves = pos.legal_moves()
        if not moves:
            break
        pos = pos.play(rng.choice(moves))
    return pos


def position_with_kings(name: str, rng: random.Random) -> Position:
    """A position from a random game that has at least one king (or the longest tried)."""
    best = None
    for _ in range(40):
        pos = game_position(name, rng, rng.randrange(60, 200))
        if any(v.isupper() for v in pos.pieces().values()) and len(pos.pieces()) > 4:
            return pos
        best = pos
    return best


def calibrated_reader(scene, **options) -> BoardReader:
    """A reader calibrated on the start position in `scene`, as `damas calibrate board`
    does it (White's side found from the start position)."""
    start = render(scene, Position.start(VARIANT[scene.size]).pieces()).image
    reader = BoardReader(scene.size, **options)
    reader.locate(start)
    return reader


def scene_for(seed: int, **fixed):
    return random_scene(random.Random(seed), **fixed)
