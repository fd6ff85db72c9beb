"""Slide paths that keep a piece's width from every other piece.

A sliding piece (magnet gantry) must never come closer than one piece diameter, centre to
centre, to another piece. Paths are searched with A* over a visibility graph: the start,
the goal and a grid of waypoints (every half square, which includes every square centre),
joined by straight segments whose clearance from every obstacle is checked exactly.
Light squares never hold pieces, so their centres are the board's natural lanes.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

Point = tuple[float, float]


def segment_clearance(a: np.ndarray, b: np.ndarray, obstacles: np.ndarray) -> np.ndarray:
    """Smallest distance from each segment a→b[i] to any obstacle (shape: len(b))."""
    if len(obstacles) == 0:
        return np.full(len(b), np.inf)
    ab = b - a  # (n, 2)
    ac = obstacles - a  # (m, 2)
    length2 = np.maximum((ab * ab).sum(axis=1), 1e-12)  # (n,)
    t = np.clip((ab @ ac.T) / length2[:, None], 0.0, 1.0)  # (n, m)
    nearest = a + t[:, :, None] * ab[:, None, :]  # (n, m, 2)
    dist = np.linalg.norm(nearest - obstacles[None, :, :], axis=2)
    return dist.min(axis=1)


class Lanes:
    """The waypoint grid of one machine; reused for every search."""

    def __init__(self, workspace: tuple[float, float, float, float], step: float):
        u0, v0, u1, v1 = workspace
        us = np.arange(math.ceil(u0 / step) * step, u1 + 1e-9, step)
        vs = np.arange(math.ceil(v0 / step) * step, v1 + 1e-9, step)
        grid = np.array([(u, v) for u in us for v in vs], dtype=float)
        self.points = grid
        self.workspace = workspace

    def inside(self, p: Point) -> bool:
        u0, v0, u1, v1 = self.workspace
        return u0 - 1e-6 <= p[0] <= u1 + 1e-6 and v0 - 1e-6 <= p[1] <= v1 + 1e-6


def find_path(lanes: Lanes, start: Point, goal: Point, obstacles: list[Point],
              clearance: float) -> list[Point] | None:
    """Shortest clear polyline from start to goal, or None. The start and goal may be
    closer than `clearance` to nothing but each other's piece, which is not an obstacle."""
    if not (lanes.inside(start) and lanes.inside(goal)):
        return None
    obs = np.array(obstacles, dtype=float).reshape(-1, 2)
    limit = clearance - 1e-6
    goal_arr = np.array(goal, dtype=float)
    if len(obs) and np.linalg.norm(obs - goal_arr, axis=1).min() < limit:
        return None  # the goal itself is crowded
    pts = lanes.points
    if len(obs):
        free = np.linalg.norm(pts[:, None, :] - obs[None, :, :], axis=2).min(axis=1) >= limit
        pts = pts[free]
    nodes = np.vstack([np.array([start, goal], dtype=float), pts])
    # A*: node 0 is the start, node 1 the goal
    g = {0: 0.0}
    parent = {0: -1}
    closed = np.zeros(len(nodes), dtype=bool)
    heap = [(float(np.linalg.norm(nodes[0] - goal_arr)), 0)]
    while heap:
        _f, i = heapq.heappop(heap)
        if closed[i]:
            continue
        if i == 1:
            return _unwind(nodes, parent)
        closed[i] = True
        candidates = np.flatnonzero(~closed)
        clear = segment_clearance(nodes[i], nodes[candidates], obs) >= limit
        for j, d in zip(candidates[clear], np.linalg.norm(nodes[candidates[clear]] - nodes[i],
                                                          axis=1), strict=True):
            cost = g[i] + float(d)
            if cost < g.get(int(j), math.inf) - 1e-9:
                g[int(j)] = cost
                parent[int(j)] = i
                h = float(np.linalg.norm(nodes[j] - goal_arr))
                heapq.heappush(heap, (cost + h, int(j)))
    return None


def _unwind(nodes: np.ndarray, parent: dict[int, int]) -> list[Point]:
    out = []
    i = 1
    while i != -1:
        out.append((float(nodes[i][0]), float(nodes[i][1])))
        i = parent[i]
    return out[::-1]


def path_is_clear(path: list[Point], obstacles: list[Point], clearance: float) -> bool:
    obs = np.array(obstacles, dtype=float).reshape(-1, 2)
    for a, b in zip(path, path[1:], strict=False):
        if segment_clearance(np.array(a), np.array([b]), obs)[0] < clearance - 1e-6:
            return False
    return True


def path_length(path: list[Point]) -> float:
    return sum(math.dist(a, b) for a, b in zip(path, path[1:], strict=False))
