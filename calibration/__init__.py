"""damas.calibration: camera intrinsics, board pose and orientation, colour model, each
saved as versioned JSON, atomically.

Modules: `camera` (`Intrinsics`, `Camera`: the pinhole and lens model shared with the
vision stage), `intrinsics` (calibrate from chessboard or ChArUco photos), `board`
(`BoardCalibration`, `CameraCalibration`, load/save), `colour` (`ColourModel`), `store`
(atomic versioned JSON), `errors` (`CalibrationError`, `CalibrationVersionError`).
"""
