"""damas.sim: the world outside the controller, simulated for tests, the demo and the
benches: a person's hands making a move (`person`, the boards only; `handmove`, the
rendered arm; `video`, a video file of a game played so), the machines behind the
port names sim-python, sim-firmware and sim-grbl (`machines`, found through the
`damas.ports` entry points: robot/ports.py), and `trackerbench`, the tracker's bench fed
by the simulated person. The stages never import it; it may import every stage."""

# The folder sits at the repository root, which is often on sys.path: imported as `sim`
# it would be a second copy of every class. damas/sim is the package (a symlink).
if __name__ != "damas.sim":
    raise ImportError("import damas.sim, not sim (the folder is that package)")
