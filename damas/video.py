"""The annotated camera view as a video browsers play: H.264 (yuv420p) in MP4 with the
index at the front, written with PyAV, whose wheels carry their own FFmpeg and x264
(OpenCV's writer only has MPEG-4 Part 2, which browsers do not play).

The file appears under its name only when it is complete: frames go to a temporary file
next to it, renamed (and the folder synced) on `close()`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from damas.rules import DamasError


def require_video() -> None:
    """A clear usage error up front, not a traceback after the game."""
    try:
        import av  # noqa: F401
    except ImportError:
        raise DamasError("--video needs PyAV: pip install 'damas[video]'") from None


class H264Writer:
    def __init__(self, path: str | os.PathLike, fps: int = 10):
        require_video()
        self.path = Path(path)
        self.fps = fps
        self.frames = 0
        self._container: Any = None  # av (optional) has no types
        self._stream: Any = None
        self._tmp: str | None = None

    def write(self, bgr) -> None:
        import av

        h, w = bgr.shape[:2]
        if self._container is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".mp4",
                                       dir=self.path.parent)
            os.close(fd)
            self._tmp = tmp
            self._container = av.open(tmp, mode="w", format="mp4",
                                      options={"movflags": "+faststart"})
            self._stream = self._container.add_stream("libx264", rate=self.fps)
            # yuv420p wants even sides
            self._stream.width, self._stream.height = w - w % 2, h - h % 2
            self._stream.pix_fmt = "yuv420p"
            self._stream.options = {"crf": "23", "preset": "veryfast"}
        frame = av.VideoFrame.from_ndarray(
            bgr[:self._stream.height, :self._stream.width], format="bgr24")
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        self.frames += 1

    def close(self) -> None:
        if self._container is None:
            return
        from damas.calibration.store import sync_folder

        for packet in self._stream.encode():  # what the encoder still holds
            self._container.mux(packet)
        self._container.close()
        self._container = None
        assert self._tmp is not None  # made with the container
        with open(self._tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(self._tmp, self.path)
        sync_folder(self.path.parent)
