"""Versioned JSON files written atomically: calibration, machine descriptions, records.

A file is written to a temporary name in the same folder, flushed to disk, then renamed
over the old one, so a crash or power cut leaves either the old file or the new one,
never half of it.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from damas.rules.errors import DamasError

from .errors import CalibrationError, CalibrationVersionError


class FileFormatError(DamasError):
    """A file that is missing, unreadable, not ours, or of a version we do not read."""


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write, flush to disk, rename over the old file, then sync the folder. The file
    gets the mode the umask gives (0644 with the usual 022): a broadcast uploader running
    as another user can read a live PDN."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _new_temporary(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    sync_folder(path.parent)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """As atomic_write_text, for an image or any other binary file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _new_temporary(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    sync_folder(path.parent)


def _new_temporary(path: Path) -> tuple[int, Path]:
    """A new file beside `path`, created with mode 0666 less the umask (mkstemp would
    force 0600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); harmless where folders can't be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save_versioned_json(path: str | os.PathLike, kind: str, version: int, body: dict) -> None:
    document = {"format": kind, "version": version, **body}
    atomic_write_text(path, json.dumps(document, indent=2) + "\n")


def load_versioned_json(path: str | os.PathLike, kind: str, version: int) -> dict:
    """The body of a file written by save_versioned_json, checked for kind and version."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileFormatError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise FileFormatError(f"{path}: cannot be read ({e})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise FileFormatError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: "
                              f"{e.msg})") from None
    except (ValueError, RecursionError):  # a number of thousands of digits, deep nesting
        raise FileFormatError(f"{path}: not JSON damas can read (a number too long or "
                              "lists nested too deep)") from None
    if not isinstance(document, dict) or document.get("format") != kind:
        raise FileFormatError(f"{path}: not a {kind} file")
    if document.get("version") != version:
        raise FileFormatError(f"{path}: {kind} version {document.get('version')!r}; this damas "
                              f"reads version {version} (make the file again)")
    return {k: v for k, v in document.items() if k not in ("format", "version")}


# --- calibration files ---------------------------------------------------------------
# The calibration stage's own files use the same format, with errors that say to
# calibrate again.


def save_json(path: str | os.PathLike, kind: str, version: int, body: dict) -> Path:
    """Write {"format": kind, "version": version, **body} to `path` atomically."""
    save_versioned_json(path, kind, version, body)
    return Path(path)


def load_json(path: str | os.PathLike, kind: str, version: int) -> dict:
    """The body of a calibration file of this kind and version, or a CalibrationError
    that says what is wrong and what to do."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such calibration file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CalibrationError(f"{path}: not a readable calibration file ({e})") from None
    if not isinstance(data, dict) or data.get("format") != kind:
        raise CalibrationError(f"{path}: not a {kind} calibration file")
    if data.get("version") != version:
        raise CalibrationVersionError(
            f"{path}: {kind} version {data.get('version')!r}, this damas reads version "
            f"{version}: calibrate again to write a new one")
    return data


# the calibration files this damas writes, and the version of each it reads
CALIBRATION_KINDS = {"damas.board": 1, "damas.camera": 1, "damas.head": 1}


def load_any(path: str | os.PathLike) -> str:
    """Check a file in a calibration folder: its kind and version ("damas.board version
    1"), or a CalibrationError saying what is wrong (for `damas doctor`)."""
    path = Path(path)
    try:
        kind = json.loads(path.read_text(encoding="utf-8")).get("format")
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such calibration file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as e:
        raise CalibrationError(f"{path}: not a readable calibration file ({e})") from None
    if kind not in CALIBRATION_KINDS:
        raise CalibrationError(f"{path}: not a calibration file (format {kind!r})")
    load_json(path, kind, CALIBRATION_KINDS[kind])
    return f"{kind} version {CALIBRATION_KINDS[kind]}"


