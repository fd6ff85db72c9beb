"""damas.vision: the camera pipeline and the simulated camera.

Modules (import what you need; the package itself loads nothing heavy):
`render` and `scene` (the physical-board renderer), `handmove` (moves made by hand),
`sources` (cameras, videos, folders), `locate` (the board in a frame), `sampler` and
`read` (the squares), `pipeline` (`BoardReader`: frames to readings), `settle`
(`SettleDetector`), `annotate`, `markers`, `bench` (`damas bench vision`).
"""
