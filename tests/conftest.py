"""Every test runs with its own platform folders, so no test reads the user's damas.toml
or writes into their data folder (damas.paths follows XDG_* on Linux; subprocesses
inherit the environment)."""

import atexit
import os
import shutil
import tempfile

import pytest

_HOME = tempfile.mkdtemp(prefix="damas-tests-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ["XDG_DATA_HOME"] = os.path.join(_HOME, "data")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")


@pytest.fixture(scope="session")
def progress(request):
    """Plain progress lines from a long test, shown as it runs with `pytest -v` (pytest
    holds back a test's own output until it ends): `progress("kiosk soak: game 12 of 50")`.
    Quiet otherwise: `make test` shows nothing from a test that passes."""
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    shown = request.config.get_verbosity() > 0

    def say(line: str) -> None:
        if reporter is None or capture is None or not shown:
            return
        with capture.global_and_fixture_disabled():  # past pytest's capture, to the screen
            reporter.write_line(f"  {line}")

    return say
