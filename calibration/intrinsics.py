"""Camera intrinsics and lens distortion from photos of a printed chessboard (inner
corners `columns` x `rows`) or a ChArUco board, via OpenCV's calibrateCamera.
Ten or more photos from different angles, the pattern filling a good part of the frame,
give a reprojection error well under a pixel."""

from __future__ import annotations

import numpy as np

from .board import CameraCalibration
from .camera import Intrinsics
from .errors import CalibrationError

MIN_VIEWS = 3


def _grey(image: np.ndarray) -> np.ndarray:
    import cv2

    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def chessboard_corners(image: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    """Sub-pixel inner corners (N, 2) of the chessboard, or None when it is not seen."""
    import cv2

    gray = _grey(image)
    found, corners = cv2.findChessboardCorners(
        gray, pattern, flags=cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE)
    if not found:
        return None
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
    cv2.cornerSubPix(gray, corners, (5, 5), (-1, -1), criteria)
    return corners.reshape(-1, 2)


def calibrate_chessboard(images: list[np.ndarray], pattern: tuple[int, int] = (9, 6),
                         square_mm: float = 25.0) -> CameraCalibration:
    """Intrinsics from photos of a chessboard with `pattern` inner corners."""

    if not images:
        raise CalibrationError("no images to calibrate the camera from")
    shapes = {im.shape[:2] for im in images}
    if len(shapes) > 1:
        raise CalibrationError("the calibration photos must all have the same size")
    cols, rows = pattern
    grid = np.zeros((cols * rows, 3), np.float32)
    grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square_mm
    object_points, image_points = [], []
    for image in images:
        corners = chessboard_corners(image, pattern)
        if corners is not None:
            object_points.append(grid)
            image_points.append(corners.astype(np.float32))
    return _solve(object_points, image_points, shapes.pop(), len(images),
                  f"a {cols}x{rows} chessboard")


def calibrate_charuco(images: list[np.ndarray], squares: tuple[int, int] = (7, 5),
                      square_mm: float = 30.0, marker_mm: float = 22.0,
                      dictionary: str = "DICT_4X4_50") -> CameraCalibration:
    """Intrinsics from photos of a ChArUco board (squares across, down)."""
    import cv2

    if not images:
        raise CalibrationError("no images to calibrate the camera from")
    shapes = {im.shape[:2] for im in images}
    if len(shapes) > 1:
        raise CalibrationError("the calibration photos must all have the same size")
    board = cv2.aruco.CharucoBoard(squares, square_mm, marker_mm,
                                   cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco,
                                                                             dictionary)))
    detector = cv2.aruco.CharucoDetector(board)
    object_points, image_points = [], []
    for image in images:
        corners, ids, _, _ = detector.detectBoard(_grey(image))
        if ids is None or len(ids) < 6:
            continue
        obj, img = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
        object_points.append(obj.astype(np.float32))
        image_points.append(img.astype(np.float32))
    return _solve(object_points, image_points, shapes.pop(), len(images),
                  f"a {squares[0]}x{squares[1]} ChArUco board")


def _solve(object_points, image_points, shape, total: int, what: str) -> CameraCalibration:
    import cv2

    if len(object_points) < MIN_VIEWS:
        raise CalibrationError(
            f"{what} was found in {len(object_points)} of {total} photos; at least "
            f"{MIN_VIEWS} are needed (check the pattern size, light and focus)")
    h, w = shape
    # k3 only fits noise at the frame corners, where photos rarely put the pattern
    rms, K, dist, _, _ = cv2.calibrateCamera(object_points, image_points, (w, h), None, None,
                                             flags=cv2.CALIB_FIX_K3)
    d = tuple(float(v) for v in np.ravel(dist)[:5])
    intr = Intrinsics(w, h, float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]),
                      d + (0.0,) * (5 - len(d)))
    return CameraCalibration(intr, float(rms), len(object_points))
