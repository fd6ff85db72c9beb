"""damas.robot: machine files, the planner, the G-code and LED drivers, the machine
simulators."""

# The folder sits at the repository root, which is often on sys.path: imported as `robot`
# it would be a second copy of every class. damas/robot is the package (a symlink).
if __name__ != "damas.robot":
    raise ImportError("import damas.robot, not robot (the folder is that package)")
