"""The camera feed with a simulated camera that can be unplugged, plugged in again and
frozen; and the recorder pausing while it is gone."""

import random

import cv2
import numpy as np
import pytest

from damas.clock import parse_time_control
from damas.journal import read_journal
from damas.record import Recorder
from damas.rules import Game
from damas.rules.pdn import read_pdn
from damas.sim.handmove import move_by_hand
from damas.vision.errors import SourceError
from damas.vision.feed import CameraFeed, CameraLost
from damas.vision.render import render
from damas.vision.scene import SceneRanges, random_scene


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


UNPLUG = "unplug"  # among a camera's frames: the cable is pulled there


class SimCamera:
    """A camera on a cable: while unplugged it cannot be opened and an open stream ends
    (as cv2.VideoCapture's does). Each frame given costs `frame_time` of the clock."""

    def __init__(self, frames, clock=None, frame_time=0.0):
        self.frames = iter(frames)
        self.plugged = True
        self.opened = 0
        self.clock = clock
        self.frame_time = frame_time

    def open(self, spec: str):
        if not self.plugged:
            raise SourceError(f"cannot open {spec!r} as a camera, video or stream")
        self.opened += 1
        return self._stream()

    def _stream(self):
        while self.plugged:
            frame = next(self.frames, None)
            if frame is None:
                return
            if isinstance(frame, str):
                self.plugged = False
                return
            if self.clock is not None:
                self.clock.t += self.frame_time
            yield frame


def frame(n: int) -> np.ndarray:
    return np.full((12, 16, 3), n % 256, np.uint8)


def test_frames_pass_through():
    camera = SimCamera(frame(n) for n in range(5))
    feed = CameraFeed("0", opener=camera.open)
    for n in range(5):
        assert np.array_equal(feed.read(), frame(n))


def test_an_unplugged_camera_is_lost_and_comes_back():
    camera = SimCamera(frame(n) for n in range(100))
    feed = CameraFeed("0", opener=camera.open)
    assert np.array_equal(feed.read(), frame(0))
    camera.plugged = False
    with pytest.raises(CameraLost) as lost:
        feed.read()
    assert lost.value.cause == "stopped"
    assert str(lost.value).startswith("camera 0 stopped giving frames: check its cable")
    assert feed.reopen() is False
    assert feed.reopen() is False
    camera.plugged = True
    assert feed.reopen() is True
    assert camera.opened == 2
    # the frame reopen() checked is not lost, and frames flow on
    assert [int(feed.read()[0, 0, 0]) for _ in range(3)] == [1, 2, 3]


def test_a_camera_failing_mid_stream_is_lost():
    def opener(spec):
        yield frame(0)
        raise SourceError("read error")

    feed = CameraFeed("rtsp://board.local/stream", opener=opener)
    feed.read()
    with pytest.raises(CameraLost, match="rtsp://board.local/stream failed"):
        feed.read()


def test_a_frozen_camera_is_lost_after_frozen_after_seconds_not_before():
    clock = FakeClock()
    camera = SimCamera([frame(1), frame(2)] + [frame(3)] * 100, clock, frame_time=1.0)
    feed = CameraFeed("0", frozen_after=5.0, clock=clock, opener=camera.open)
    feed.read(), feed.read()
    first_same = clock.t + 1.0  # the first frame(3)
    while clock.t + 1.0 < first_same + 5.0:
        feed.read()  # the same frame, but for less than 5 s
    with pytest.raises(CameraLost, match="frozen") as lost:
        feed.read()
    assert clock.t == first_same + 5.0
    assert lost.value.cause == "frozen"
    assert "unplug it and plug it in again" in str(lost.value)


def test_a_recording_may_repeat_a_frame():
    clock = FakeClock()
    camera = SimCamera([frame(7)] * 20, clock, frame_time=1.0)
    feed = CameraFeed("game.avi", frozen_after=5.0, clock=clock, opener=camera.open)
    assert sum(feed.read() is not None for _ in range(20)) == 20
    assert clock.t == 20.0


def test_a_video_file_ends_with_none(tmp_path):
    video = tmp_path / "short.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for n in range(3):
        writer.write(np.full((48, 64, 3), 60 * n, np.uint8))
    writer.release()
    feed = CameraFeed(str(video))
    frames = [feed.read() for _ in range(3)]
    assert all(f is not None and f.shape == (48, 64, 3) for f in frames)
    assert feed.read() is None
    assert feed.read() is None


def test_a_missing_file_is_a_source_error_not_a_lost_camera(tmp_path):
    feed = CameraFeed(str(tmp_path / "missing.avi"))
    with pytest.raises(SourceError, match="missing.avi: no such file"):
        feed.read()


def lazily(open):
    """An opener that opens on the first read, as sources.capture_frames does."""
    def opener(spec):
        yield from open(spec)
    return opener


@pytest.mark.parametrize("at_first_read", [False, True])
def test_a_camera_that_is_not_there_is_lost_until_it_is(at_first_read):
    camera = SimCamera(frame(n) for n in range(10))
    camera.plugged = False
    feed = CameraFeed("2", opener=lazily(camera.open) if at_first_read else camera.open)
    with pytest.raises(CameraLost) as lost:
        feed.read()
    assert lost.value.cause == "unavailable"
    assert "camera 2 cannot be opened" in str(lost.value)
    assert "check it is plugged in" in str(lost.value)
    camera.plugged = True
    assert feed.reopen() is True
    assert np.array_equal(feed.read(), frame(0))


@pytest.mark.parametrize("fps", [None, 10.0])  # time by the clock, or by frame count
def test_the_recorder_pauses_while_the_camera_is_gone_and_the_clock_runs_on(tmp_path, fps):
    rng = random.Random(4)
    scene = random_scene(rng, SceneRanges(sizes=(8,), tilt=(0, 20), noise=(0, 2),
                                          blur=(0, 0.5)), width=640, height=360)
    game = Game("english")
    moves = []
    for _ in range(3):
        moves.append(rng.choice(game.legal_moves()))
        game.push(moves[-1])
    played = Game("english")

    def at_rest():
        return [(played.position.pieces(), ())] * 8

    def by_hand(move):
        steps = move_by_hand(scene, played.position, move, rng)
        played.push(move)
        return [(s.pieces, s.hands) for s in steps]

    before = at_rest() + by_hand(moves[0]) + at_rest()
    # the second move is made while the camera is unplugged: seen when it is back
    played.push(moves[1])
    after = at_rest() + by_hand(moves[2]) + at_rest()
    drawn = {}

    def image(pieces, hands):
        key = (tuple(sorted(pieces.items())), hands)
        if key not in drawn:
            drawn[key] = render(scene.with_(hands=hands), pieces).image
        return drawn[key]

    clock = FakeClock()
    camera = SimCamera([*(image(*s) for s in before), UNPLUG, *(image(*s) for s in after)],
                       clock, frame_time=0.1)
    waits = []

    class Stop(Exception):
        pass

    def wait(seconds):
        waits.append(seconds)
        clock.t += seconds
        if len(waits) == 3:
            camera.plugged = True  # plugged in again during the third wait
        if len(waits) == 4:  # gone again at the end of the frames: the operator stops
            raise Stop

    out = []
    recorder = Recorder("english", parse_time_control("3+0"), tmp_path / "j.jsonl",
                        tmp_path / "live.pdn", settle=0.3, out=out.append)
    feed = CameraFeed("0", clock=clock, opener=camera.open)
    with pytest.raises(Stop):
        recorder.run(feed, fps, clock=clock, wait=wait, retry=20.0)

    events = read_journal(tmp_path / "j.jsonl")
    kinds = [e["kind"] for e in events if e["kind"] in ("move", "paused", "continued")]
    assert kinds == ["move", "paused", "continued", "move", "move", "paused"]
    paused = next(e for e in events if e["kind"] == "paused")
    assert paused["cause"] == "stopped" and "camera 0 stopped giving frames" in paused["reason"]
    assert waits == [20.0] * 4  # one try every `retry` seconds
    continued = next(e for e in events if e["kind"] == "continued")
    assert continued["tries"] == 3 and continued["away"] >= 60.0
    assert any(line.startswith("PAUSED: camera 0 stopped giving frames") for line in out)
    assert any(line.startswith("CONTINUED: camera 0 is back after 60 s") for line in out)
    (recorded,) = read_pdn((tmp_path / "live.pdn").read_text())
    assert recorded.game.notations() == game.notations()
    # the side to move while the camera was away was charged the whole pause
    moved = [e for e in events if e["kind"] == "move"]
    side = moved[1]["side"]
    assert moved[1]["clock"][side] <= moved[0]["clock"][side] - 60
