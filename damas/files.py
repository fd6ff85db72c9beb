"""Files a command reads or writes, checked before anything starts:

- an input must be a regular file (a FIFO would hang the read, a device such as
  /dev/zero never ends) of a bounded size, read within that bound (`read_regular`);
- every output must be writable where it will be written, and not a folder
  (`check_outputs`), the way the session writes it: a temporary file beside it renamed
  over it (damas.calibration.store), or lines appended; the temporary files a killed run
  left beside it are removed then;
- a full or failing disk later on is one line (`disk_failure`), not a traceback.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from damas.rules import DamasError

DISK_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS}


class FileCheckError(DamasError):
    pass


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileCheckError otherwise.
    Opened without blocking, so that a FIFO is refused, not waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise FileCheckError(f"no {what} at {path}") from None
    except OSError as e:
        raise FileCheckError(f"cannot read the {what} {path}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise FileCheckError(f"the {what} {path} is {_kind(mode)}, not a file")
        data = f.read(limit + 1)  # a file that grows meanwhile is still cut at the bound
    if len(data) > limit:
        raise FileCheckError(f"the {what} {path} is larger than {_size(limit)}")
    return data


def regular_file(path: str | os.PathLike, what: str) -> Path:
    """A path that must be a regular file (one line otherwise), for readers that open it
    themselves."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileCheckError(f"no {what} at {path}") from None
    except OSError as e:
        raise FileCheckError(f"cannot read the {what} {path}: {e.strerror}") from None
    if not stat.S_ISREG(mode):
        raise FileCheckError(f"the {what} {path} is {_kind(mode)}, not a file")
    return Path(path)


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:g} MB" if n >= 1024 * 1024 else f"{n} bytes"


def stray_temporaries(path: Path) -> list[Path]:
    """The temporary files an atomic write of `path` leaves when its run is killed."""
    pattern = re.compile(rf"\.{re.escape(path.name)}\.[0-9a-f]{{12}}\.tmp")
    try:
        return [p for p in path.parent.iterdir() if pattern.fullmatch(p.name)]
    except OSError:
        return []


def check_outputs(outputs: dict[str, str | os.PathLike | None]) -> None:
    """Every file a command will write (`{what: path}`) can be written there, before the
    first move; a killed run's temporary files beside them are removed."""
    for what, given in outputs.items():
        if given is None:
            continue
        path = Path(given)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            mode = None
        except OSError as e:
            raise FileCheckError(f"cannot write the {what} {path}: {e.strerror}") from None
        if mode is not None and not stat.S_ISREG(mode):
            raise FileCheckError(f"the {what} {path} is {_kind(mode)}: give a file's path")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            for stray in stray_temporaries(path):
                stray.unlink(missing_ok=True)
            probe = path.parent / f".{path.name}.{os.getpid():012x}.tmp"  # as a write does
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
            probe.unlink()
            if mode is not None:  # journals are appended to in place
                os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        except OSError as e:
            where = e.filename if isinstance(e.filename, str) else path
            raise FileCheckError(f"cannot write the {what} {path} ({where}: "
                                 f"{e.strerror})") from None


def disk_failure(error: OSError, resume: bool = True) -> str | None:
    """The one line for a full or failing disk, or None for another error; `resume`: the
    command goes on with --resume (else it is simply started again, as the kiosk is)."""
    if error.errno not in DISK_ERRORS:
        return None
    where = f" writing {error.filename}" if error.filename else ""
    then = "go on with --resume" if resume else "start it again"
    return (f"the disk failed{where}: {error.strerror}. Everything written before is kept "
            f"(the journal to its last whole line): free space, then {then}")
