"""Scan 2.0 built from the vendored source, as a test oracle (GPLv3: built in a copy,
never part of the project). The build takes about a minute on two cores, so it is kept in
a cache folder keyed by a digest of the source and done once for all runs.

A running Scan reads `scan.ini` and `data/` from its working directory: `scan_folder`
gives each test its own folder with its own settings and a link to the built data.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

SOURCE = Path(os.environ.get("DAMAS_SCAN_SOURCE",
                             Path(__file__).resolve().parents[3] / "shared/vendor/scan-2.0"))
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "damas-tests"

# Small and quiet for tests: 2^20 table entries (16 MiB) instead of 2^24 (256 MiB), one
# thread, no board printed after each DXP move.
TEST_SETTINGS = {"tt-size": "20", "threads": "1", "dxp-board": "false",
                 "dxp-search": "false"}


def missing() -> str | None:
    """Why Scan cannot be built here, or None."""
    if not (SOURCE / "src" / "Makefile").exists():
        return f"the Scan 2.0 source is not at {SOURCE}"
    for tool in ("make", "g++"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return None


def _digest() -> str:
    h = hashlib.sha256()
    for path in sorted((SOURCE / "src").iterdir()):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()[:16]


def built_scan() -> Path:
    """The folder holding the built `scan`, its data and the original `scan.ini`."""
    target = CACHE / f"scan-2.0-{_digest()}"
    if (target / "scan").exists():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="scan-build-", dir=CACHE))
    try:
        copy = work / "scan-2.0"
        shutil.copytree(SOURCE, copy)
        for path in copy.rglob("*"):  # the vendored tree is read-only
            path.chmod(path.stat().st_mode | 0o200)
        jobs = str(os.cpu_count() or 1)
        done = subprocess.run(["nice", "make", "-C", "src", "-j", jobs], cwd=copy,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"building Scan failed:\n{done.stdout[-2000:]}"
                               f"{done.stderr[-2000:]}")
        shutil.copy2(copy / "src" / "scan", copy / "scan")
        try:
            copy.rename(target)  # another run may have finished first: keep theirs
        except OSError:
            pass
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def scan_folder(built: Path, folder: Path, **settings: str) -> Path:
    """A working folder for one Scan process: its scan.ini (the shipped one with the test
    settings and `settings` applied; `dxp_port` is written `dxp-port`) and its data."""
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {**TEST_SETTINGS, **{k.replace("_", "-"): str(v) for k, v in settings.items()}}
    lines = []
    for line in (built / "scan.ini").read_text().splitlines():
        key = line.split("=", 1)[0].strip()
        if key in wanted:
            line = f"{key} = {wanted.pop(key)}"
        lines.append(line)
    lines += [f"{k} = {v}" for k, v in wanted.items()]
    (folder / "scan.ini").write_text("\n".join(lines) + "\n")
    if not (folder / "data").exists():
        (folder / "data").symlink_to(built / "data")
    return folder
