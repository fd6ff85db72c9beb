"""`demo --video`: H.264 in MP4, which browsers play, frame for frame what was filmed."""

import random

import av
import numpy as np

from damas.rules import Position
from damas.video import H264Writer
from damas.vision.render import Renderer
from damas.vision.scene import SceneRanges, random_scene


def test_frames_come_back_from_an_h264_mp4(tmp_path):
    scene = random_scene(random.Random(2), SceneRanges(sizes=(10,)), width=641, height=361)
    renderer = Renderer()
    pieces = Position.start("international").pieces()
    frames = []
    out = tmp_path / "demo.mp4"
    writer = H264Writer(out)
    for k in range(12):
        if k == 6:
            pieces.pop(31)
        frame = renderer.render(scene.with_(noise_seed=k), pieces).image
        frames.append(frame)
        writer.write(frame)
        assert not out.exists()  # only a finished video is there under its name
    writer.close()
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264"
        assert stream.codec_context.pix_fmt == "yuv420p"  # what browsers decode
        decoded = [f.to_ndarray(format="bgr24") for f in container.decode(stream)]
    assert len(decoded) == 12 and decoded[0].shape == (360, 640, 3)  # even sides
    for original, back in zip(frames, decoded, strict=True):
        error = np.abs(original[:360, :640].astype(float) - back.astype(float)).mean()
        assert error < 6  # lossy, but the same picture
    # the piece taken off square 31 is gone from the later frames
    change = np.abs(decoded[11].astype(float) - decoded[0].astype(float)).mean(axis=2)
    assert (change > 40).sum() > 200
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left behind
