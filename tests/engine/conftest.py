"""Fixtures of the engine tests: fake engines (as small scripts) and Scan 2.0 built once.
Helpers imported by name are in engine_helpers.py."""

import sys
import textwrap

import pytest

PYTHON = sys.executable


@pytest.fixture
def script(tmp_path):
    """Write a Python script and return the command that runs it."""
    def make(name, body):
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(body))
        return [PYTHON, str(path)]
    return make


@pytest.fixture(scope="session")
def scan_build():
    """Scan 2.0 built once from ../shared/vendor/scan-2.0 (cached across runs). Missing
    source or compiler: the tests skip, unless DAMAS_REQUIRE_SCAN=1 (CI), where they fail."""
    import os

    import scan_build as build

    why = build.missing()
    if why is not None:
        if os.environ.get("DAMAS_REQUIRE_SCAN") == "1":
            pytest.fail(f"Scan 2.0 cannot be built: {why} [DAMAS_REQUIRE_SCAN=1]",
                        pytrace=False)
        pytest.skip(f"Scan 2.0 cannot be built: {why}")
    return build.built_scan()


@pytest.fixture
def scan_folder(scan_build, tmp_path):
    """A working folder for one Scan process (its own scan.ini); call with settings."""
    import scan_build as build

    def make(**settings):
        return build.scan_folder(scan_build, tmp_path / "scan", **settings)
    return make
