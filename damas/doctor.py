"""`damas doctor`: checks the camera, the serial port, the calibration and the machine
files, and says precisely what is wrong and how to fix it.

Without options it checks camera 0, the USB serial ports (a robot or an LED board is
USB; the board's own `/dev/ttyS*` lines are only probed when named with `--port`), the
machine files in the config folder and the shipped examples, and the calibration folder
in the config folder (damas.paths)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    missing: bool = False  # looked for by default and not there: not a failure


def check_camera(spec: str, named: bool = True) -> Check:
    """The camera `spec`; one looked for by default (`named` False) that cannot be opened
    is missing, not failed."""
    import cv2

    from damas.vision.sources import is_index, quiet_opencv

    quiet_opencv()
    source = int(spec) if is_index(spec) else spec
    cap = cv2.VideoCapture(source)
    try:
        if not cap.isOpened():
            return Check(f"camera {spec}", False, "cannot be opened",
                         "plug the camera in, or give its index (--camera 0, 1...) or a "
                         "video URL; on Linux check /dev/video* and the 'video' group",
                         missing=not named)
        ok, frame = cap.read()
        if not ok or frame is None:
            return Check(f"camera {spec}", False, "opens but gives no frame",
                         "another program may hold it; close it and try again")
        h, w = frame.shape[:2]
        return Check(f"camera {spec}", True, f"{w}x{h} frames")
    finally:
        cap.release()


def check_port(port: str, machine_path: str | None = None) -> list[Check]:
    """What answers on `port` (the damas firmware or stock GRBL, its version and
    settings), and with a machine file whether those settings fit it: the exact `$` lines
    to send when they do not. Nothing is moved or unlocked."""
    from damas.robot.grbl import GrblDriver, check_settings, describe_settings, settings_to_send
    from damas.robot.machine import load_machine
    from damas.rules import DamasError

    driver = GrblDriver(port, timeout=3.0, home=False)
    try:
        driver.open()
        driver.soft_reset()
        driver.identify()
    except DamasError as e:
        driver.close()
        ports = _list_ports()
        return [Check(f"serial port {port}", False, str(e),
                      f"serial ports on this machine: {ports or 'none'}; check the cable, "
                      "the power and that no other program has the port open")]
    driver.close()
    what = ("the damas firmware" if driver.firmware == "damas" else "stock GRBL") + \
        f" {driver.version} ({driver.build}{', ' + driver.options if driver.options else ''})"
    checks = [Check(f"serial port {port}", True,
                    f"{what}: {describe_settings(driver.settings)}")]
    if machine_path is None:
        return checks
    try:
        machine = load_machine(machine_path)
    except DamasError:
        return checks  # check_machine reports it
    problems = check_settings(machine, driver)
    lines = settings_to_send(machine, driver.settings) if driver.firmware == "grbl" else []
    name = f"{port} for the machine file {machine_path}"
    if not problems and not lines:
        return checks + [Check(name, True, "the controller's settings fit the machine file")]
    fix = ""
    if lines:
        fix = ("send these lines to GRBL (or run damas robot configure --port "
               f"{port} --machine {machine_path}):\n" + "\n".join(f"         {line}"
                                                          for line in lines))
    return checks + [Check(name, not problems,
                           "; ".join(problems) if problems else
                           "settings that differ from the machine file, not in the way: "
                           + " ".join(lines), fix)]


def _list_ports(usb_only: bool = False) -> str:
    try:
        from serial.tools import list_ports

        return ", ".join(p.device for p in list_ports.comports()
                         if not usb_only or p.vid is not None)
    except Exception:  # noqa: BLE001 - listing is a hint only
        return ""


def check_machine(path: str) -> Check:
    from damas.robot.machine import load_machine
    from damas.rules import DamasError

    try:
        machine = load_machine(path)
    except DamasError as e:
        return Check(f"machine file {path}", False, str(e),
                     "start from an example in robot/machines/ and run "
                     "damas calibrate robot")
    return Check(f"machine file {path}", True,
                 f"{machine.kind}, {machine.board_size}x{machine.board_size}")


def check_calibration(folder: str) -> list[Check]:
    from damas.rules import DamasError

    out = []
    path = Path(folder)
    if not path.is_dir():
        return [Check(f"calibration {folder}", False, "no such folder",
                      "run damas calibrate board --camera N --out FOLDER")]
    files = sorted(path.glob("*.json"))
    if not files:
        return [Check(f"calibration {folder}", False, "no calibration files in it",
                      "run damas calibrate board --camera N --out FOLDER")]
    from damas.calibration.store import load_any

    for f in files:
        try:
            kind = load_any(f)
            out.append(Check(f"calibration {f.name}", True, kind))
        except DamasError as e:
            out.append(Check(f"calibration {f.name}", False, str(e),
                             "make it again with damas calibrate"))
    return out


def check_ports() -> list[Check]:
    """Every USB serial port: a robot or an LED board is USB (an Arduino's /dev/ttyACM*,
    a USB-serial /dev/ttyUSB*); the machine's own serial lines are left alone."""
    ports = _list_ports(usb_only=True)
    if not ports:
        others = _list_ports()
        return [Check("serial ports", False, "no USB serial port found", missing=True, fix=
                      "plug the robot or LED board in (USB); on Linux check /dev/ttyACM* "
                      "and /dev/ttyUSB* and that you are in the 'dialout' group"
                      + (f"; to try another port, name it: --port {others.split(', ')[0]}"
                         if others else ""))]
    return [c for p in ports.split(", ") for c in check_port(p)]


def default_machines() -> list[Path]:
    """The machine files a session may use without --machine: the config folder's and the
    shipped examples."""
    from damas.paths import config_dir
    from damas.robot.machine import EXAMPLES

    return sorted((config_dir() / "machines").glob("*.json")) + sorted(EXAMPLES.glob("*.json"))


def check_default_calibration() -> list[Check]:
    """The config folder's calibration, if any: without one the board is located in
    every frame, so none is not a failure."""
    from damas.paths import config_dir

    folder = config_dir() / "calibration"
    if not folder.is_dir():
        return [Check("calibration", True, f"none at {folder} (the board is located from "
                                           "the frames; damas calibrate board --camera N "
                                           f"--out {folder} makes one)")]
    return check_calibration(str(folder))


def run_checks(camera="0", port=None, machine=None, calibration=None,
               camera_named=True) -> list[Check]:
    """Every check (`camera` None: no camera); a camera not `camera_named` by the user is
    missing rather than failed when it is not there."""
    checks = [check_camera(str(camera), camera_named)] if camera is not None else []
    checks += check_port(port, machine) if port else check_ports()
    checks += [check_machine(machine)] if machine else \
        [check_machine(str(m)) for m in default_machines()]
    checks += check_calibration(calibration) if calibration else check_default_calibration()
    return checks


def report(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        mark = "ok" if c.ok else "missing" if c.missing else "FAIL"
        lines.append(f"[{mark}] {c.name}: {c.detail}")
        if c.fix:
            lines.append(f"       fix: {c.fix}")
    return "\n".join(lines)
