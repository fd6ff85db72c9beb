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
    def __init__(self, camera, size: int, known: Position, still_frames: int = 3,
                 on_frame=None, calibration: str | None = None):
        from damas.vision.pipeline import BoardReader
        from damas.vision.settle import SettleDetector

        self.camera = camera  # damas.camera.CameraFeed, or a simulated camera like it
        self.size = size
        # a calibration folder gives the lens, the board's pose and the set's colours
        self.reader = (BoardReader.from_calibration(calibration, size, known=known)
                       if calibration else BoardReader(size, known=known))
        self._detector = SettleDetector
        self.detector = SettleDetector(still_frames)
        self.on_frame = on_frame  # (image, reading) for the video and the web page

    def look(self) -> Occupancy | None:
        frame = self.camera.read()
        if frame is None:
            raise EndOfFrames("the recording has ended")
        reading = self.reader.read(frame)
        out = self.detector.update(self.reader.motion_vector(), reading)
        if out is not None:
            self.reader.settled(out)
        if self.on_frame is not None:
            self.on_frame(frame, reading, self.reader.pose)
        settled = self.detector.settled_reading
        if settled is None:
            return None
        return settled.occupancy()

    def refresh(self) -> None:
        """Only frames from now on count: the machine just moved, and a camera's buffer
        may still hold frames from before."""
        self.detector = self._detector(self.detector.still_frames)

    def reopen(self) -> bool:
        return self.camera.reopen()
