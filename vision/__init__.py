"""damas.vision: the camera pipeline and the simulated camera.

Modules (import what you need; the package itself loads nothing heavy):
`render` and `scene` (the physical-board renderer; a hand moving pieces is in `damas.sim`),
`sources` (cameras, videos, folders), `feed` (a live camera lost and found again),
`corners`, `extent`, `fit`, `markers` and `locate` (the board in a frame), `patches`,
`occupancy` and `read` (the squares), `pipeline` (`BoardReader`: frames to readings),
`settle` (`SettleLoop`, `SettleDetector`), `calibrate` (a set
learned from a photo), `annotate`, `photos` and `photobench` (labelled real photos),
`bench` (`damas bench vision`), `synth` and `train` (the occupancy model's training).
"""

# The folder sits at the repository root, which is often on sys.path: imported as `vision`
# it would be a second copy of every class. damas/vision is the package (a symlink).
if __name__ != "damas.vision":
    raise ImportError("import damas.vision, not vision (the folder is that package)")
