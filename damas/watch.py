"""The camera as the play session sees it: frames in, the board as it stands out.

`look()` reads one frame and answers the board as it stands (an `Occupancy`: a reading
and its confidence per dark square) while the board is settled, None while something
moves or covers it. It raises CameraLost when the camera goes away and EndOfFrames when a
recording ends; `reopen()` tries to get the camera back.
"""

from __future__ import annotations

from damas.rules import DamasError, Occupancy, Position


class EndOfFrames(DamasError):
    """A recording (video file, folder) came to its end."""


class VisionWatch:
    def __init__(self, camera, size: int, known: Position | None, still_frames: int = 3,
                 on_frame=None, calibration: str | None = None):
        from damas.vision.pipeline import BoardReader
        from damas.vision.settle import SettleLoop

        self.camera = camera  # damas.vision.feed.CameraFeed, or a simulated camera like it
        self.size = size
        # a calibration folder gives the lens, the board's pose and the set's colours
        reader = (BoardReader.from_calibration(calibration, size, known=known)
                  if calibration else BoardReader(size, known=known))
        self.settle = SettleLoop(reader, still_frames)
        self.on_frame = on_frame  # (image, reading) for the video and the web page

    def look(self) -> Occupancy | None:
        frame = self.camera.read()
        if frame is None:
            raise EndOfFrames("the recording has ended")
        look = self.settle.look(frame)
        if self.on_frame is not None:
            self.on_frame(frame, look.reading, self.settle.reader.pose)
        return look.settled.occupancy() if look.settled is not None else None

    def refresh(self) -> None:
        """Only frames from now on count: the machine just moved, and a camera's buffer
        may still hold frames from before."""
        self.settle.restart()

    def reopen(self) -> bool:
        return self.camera.reopen()
