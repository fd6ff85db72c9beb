"""A video file of a game played by hand in front of the simulated camera: the board at
rest, then each move made by the arm (`handmove`), then the board at rest again, as the
recorder's camera would film it."""

from __future__ import annotations

import random
from pathlib import Path

from damas.rules import Game
from damas.vision.render import render
from damas.vision.scene import Hand, SceneRanges, random_scene

from .handmove import move_by_hand

STILL_FRAMES = 12  # at rest before the first move and after the last


def hand_played_video(path: str | Path, ranges: SceneRanges, plies: int, seed: int,
                      variant: str = "english", fps: int = 10) -> Game:
    """Writes an MJPG video of `plies` random moves to `path`; the game played."""
    import cv2

    rng = random.Random(seed)
    scene = random_scene(rng, ranges)
    game = Game(variant)
    still: tuple[Hand, ...] = ()
    frames = [(game.position.pieces(), still)] * STILL_FRAMES
    for _ in range(plies):
        move = rng.choice(game.legal_moves())
        frames += [(step.pieces, step.hands)
                   for step in move_by_hand(scene, game.position, move, rng)]
        game.push(move)
    frames += [(game.position.pieces(), still)] * STILL_FRAMES
    images = (render(scene.with_(hands=tuple(hands)), pieces).image for pieces, hands in frames)
    first = next(images)
    h, w = first.shape[:2]
    mjpg = cv2.VideoWriter.fourcc(*"MJPG")
    writer = cv2.VideoWriter(str(path), mjpg, fps, (w, h))
    writer.write(first)
    for image in images:
        writer.write(image)
    writer.release()
    return game
