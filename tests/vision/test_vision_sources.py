"""Frame sources: files, folders, video, errors."""

import cv2
import numpy as np
import pytest

from damas.vision.errors import SourceError
from damas.vision.scene import Scene
from damas.vision.sources import open_source, read_image, rendered_frames


def _frames(n):
    return [np.full((48, 64, 3), 40 * k, np.uint8) for k in range(n)]


def test_image_folder_and_single_image(tmp_path):
    for k, f in enumerate(_frames(3)):
        cv2.imwrite(str(tmp_path / f"{k:02}.png"), f)
    (tmp_path / "notes.txt").write_text("ignored")
    got = list(open_source(str(tmp_path)))
    assert [int(g[0, 0, 0]) for g in got] == [0, 40, 80]
    assert len(list(open_source(str(tmp_path / "01.png")))) == 1


def test_video_file(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build writes no video")
    for f in _frames(4):
        writer.write(f)
    writer.release()
    got = list(open_source(str(path)))
    assert len(got) == 4 and abs(int(got[2][0, 0, 0]) - 80) < 10


def test_renderer_source():
    frames = list(rendered_frames(Scene(width=320, height=240), [{1: "b"}, {2: "w"}]))
    assert len(frames) == 2 and frames[0].shape == (240, 320, 3)


def test_errors(tmp_path):
    with pytest.raises(SourceError, match="no such file"):
        read_image(tmp_path / "missing.png")
    (tmp_path / "bad.png").write_bytes(b"\x89PNG nonsense")
    with pytest.raises(SourceError, match="not an image"):
        read_image(tmp_path / "bad.png")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no images"):
        list(open_source(str(empty)))
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "nothing-here"))
