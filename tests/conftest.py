"""Every test runs with its own platform folders, so no test reads the user's damas.toml
or writes into their data folder (damas.paths follows XDG_* on Linux; subprocesses
inherit the environment)."""

import atexit
import os
import shutil
import tempfile

_HOME = tempfile.mkdtemp(prefix="damas-tests-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")
