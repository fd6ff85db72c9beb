"""Fixtures that build the firmware, run it in the simavr harness and talk to it
(`firmware_rig.Firmware`).

Tests use the fixtures only (no "from conftest import"), so they work in any pytest
import mode next to other test folders.

Missing toolchain: the tests skip, unless DAMAS_REQUIRE_FIRMWARE=1, where they fail.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from firmware_rig import Firmware, build_variant

from damas.robot.simavr import missing_toolchain


@pytest.fixture(scope="session")
def toolchain() -> None:
    missing = missing_toolchain()
    try:
        import serial  # noqa: F401
    except ImportError:
        missing.append("pyserial")
    if not missing:
        return
    message = (
        f"firmware toolchain not installed ({', '.join(missing)}); "
        f"run firmware/install-deps.sh as root"
    )
    if os.environ.get("DAMAS_REQUIRE_FIRMWARE") == "1":
        pytest.fail(message + " [DAMAS_REQUIRE_FIRMWARE=1]", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def default_build(toolchain) -> Path:
    return build_variant()


@pytest.fixture
def make_firmware(tmp_path, toolchain):
    """Factory: make_firmware(start=(x, y), power_up=True, speed=0, **make_variables).

    start is where the carriage is at power-up, in mm from the machine origin. With
    power_up=False the harness runs but the AVR waits for fw.power_up() (or power_on()).
    The harness runs the machine's work as fast as it can; speed=1 keeps it to the wall
    clock, for tests that must act while a move is under way."""
    running: list[Firmware] = []

    def start(start=(30.0, 25.0), power_up=True, speed=0, **variables) -> Firmware:
        folder = build_variant(**variables)
        workdir = tmp_path / f"sim{len(running)}"
        workdir.mkdir()
        fw = Firmware(folder, workdir, start, speed)
        running.append(fw)
        if power_up:
            fw.power_up()
        return fw

    yield start
    for fw in running:
        fw.close()


@pytest.fixture
def fw(make_firmware, default_build) -> Firmware:
    """Default build (Uno, Cartesian, 50 LEDs, Z servo), powered up and showing its banner."""
    return make_firmware()
