"""damas.calibration: camera intrinsics, board pose and orientation, colour model, each
saved as versioned JSON, atomically.

Modules: `camera` (`Intrinsics`, `Camera`: the pinhole and lens model shared with the
vision stage), `intrinsics` (calibrate from chessboard or ChArUco photos), `board`
(`BoardCalibration`, `CameraCalibration`, load/save), `colour` (`ColourModel`), `store`
(atomic versioned JSON), `errors` (`CalibrationError`, `CalibrationVersionError`).
"""

# The folder sits at the repository root, which is often on sys.path: imported as `calibration`
# it would be a second copy of every class. damas/calibration is the package (a symlink).
if __name__ != "damas.calibration":
    raise ImportError("import damas.calibration, not calibration (the folder is that package)")
