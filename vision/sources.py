"""Frame sources: anything that yields BGR frames. A camera by index, a video file or a
stream URL (cv2.VideoCapture), a folder of images, one image, or the renderer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .errors import SourceError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


def read_image(path: str | Path) -> np.ndarray:
    """A colour image from a file, or SourceError saying why not."""
    import cv2

    from .imagesize import MAX_PIXELS, image_size

    p = Path(path)
    if not p.exists():
        raise SourceError(f"{p}: no such file")
    if p.is_dir():
        raise SourceError(f"{p}: is a folder, not an image")
    if not p.is_file():  # a FIFO would hang the read, a device never end
        raise SourceError(f"{p}: not a regular file (a FIFO or a device), not an image")
    with open(p, "rb") as f:
        size = image_size(f.read(65536))
        if size is not None and size[0] * size[1] > MAX_PIXELS:
            raise SourceError(f"{p}: an image of {size[0]} x {size[1]} pixels (at most "
                              f"{MAX_PIXELS // 1_000_000} megapixels)")
        f.seek(0)
        data = np.frombuffer(f.read(), dtype=np.uint8)
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except cv2.error:  # OpenCV's own limits (a header this module does not read)
        image = None
    if image is None:
        raise SourceError(f"{p}: not an image OpenCV can read (PNG, JPEG, BMP, TIFF...)")
    return image


def folder_frames(folder: str | Path) -> Iterator[np.ndarray]:
    files = sorted(f for f in Path(folder).iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise SourceError(f"{folder}: no images in this folder")
    for f in files:
        yield read_image(f)


def quiet_opencv() -> None:
    """OpenCV's own warnings off (`[ WARN:0] ... can't open camera by index`): what they
    mean reaches the user as our one-line errors."""
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


def is_index(spec: str) -> bool:
    """A camera index as typed (`0`, `1`): ASCII digits only."""
    return spec.isascii() and spec.isdigit()


def capture_frames(spec: str | int, limit: int | None = None) -> Iterator[np.ndarray]:
    """Frames from cv2.VideoCapture: a camera index, a video file or a stream URL."""
    import cv2

    quiet_opencv()
    cap = cv2.VideoCapture(spec)
    if not cap.isOpened():
        raise SourceError(f"cannot open {spec!r} as a camera, video or stream")
    try:
        count = 0
        while limit is None or count < limit:
            ok, frame = cap.read()
            if not ok:
                break
            count += 1
            yield frame
    finally:
        cap.release()


def rendered_frames(scene, positions) -> Iterator[np.ndarray]:
    """The simulated camera: one rendered frame per pieces dict (or (scene, pieces))."""
    from .render import render

    for item in positions:
        sc, pieces = item if isinstance(item, tuple) else (scene, item)
        yield render(sc, pieces).image


def open_source(spec: str) -> Iterator[np.ndarray]:
    """Frames from a spec as a user types it: a digit is a camera index, a folder is
    read image by image, an image file is one frame, anything else goes to VideoCapture
    (video files, rtsp:// and http:// streams)."""
    if is_index(spec):
        return capture_frames(int(spec))
    p = Path(spec)
    if p.is_dir():
        return folder_frames(p)
    if p.suffix.lower() in IMAGE_SUFFIXES:
        return iter([read_image(p)])
    if "://" not in spec and not p.exists():
        raise SourceError(f"{spec}: no such file, folder or camera")
    return capture_frames(spec)
