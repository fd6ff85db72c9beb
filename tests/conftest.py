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


# `pytest --fast` (`make test-fast`): everything but what takes most of the time: the
# firmware and GRBL in simavr, Scan 2.0, the soaks, the cross-checks against pydraughts
# (pure Python, some 1,900 times slower than our move generator: 8 of the suite's 31
# minutes in one measured run, 2026-12-06), and the tests marked `slow` (9 s and more
# each: long end-to-end runs a faster test covers in part, and the fuzzers' long searches)
SLOW_FIXTURES = {"firmware", "grbl", "toolchain", "scan_build", "scan_folder"}
SOAKS = {"test_hall_scale.py", "test_kiosk_soak.py", "test_web_soak.py",
         "test_pydraughts_files.py", "test_differential.py"}


def pytest_addoption(parser):
    parser.addoption("--fast", action="store_true",
                     help="leave out the firmware and GRBL in simavr, Scan 2.0, the soaks, "
                          "the pydraughts cross-checks and the tests marked slow")


def _slow(item) -> bool:
    if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    if any(value in ("firmware", "grbl") for value in params.values()):
        return True
    return (item.path.name in SOAKS or "firmware" in item.name
            or item.get_closest_marker("slow") is not None)


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--fast"):
        return
    slow = [item for item in items if _slow(item)]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not _slow(item)]
