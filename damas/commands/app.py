"""`damas doctor` (is everything a session needs there and working?) and `damas record`
(tournament games from a camera, for the arbiter and live broadcast)."""

from __future__ import annotations

from damas.argtypes import seconds, time_control


def register(sub) -> None:
    p = sub.add_parser("doctor", help="check the camera, serial port, calibration and "
                                      "machine file, and say how to fix what is wrong")
    p.add_argument("--camera", default="0", help="camera index, video file or URL")
    p.add_argument("--port", help="the robot's or LED board's serial port (default: "
                                  "every port found)")
    p.add_argument("--machine", help="machine description file")
    p.add_argument("--calibration", help="calibration folder")
    p.add_argument("--config", help="TOML file with defaults for these options")
    p.set_defaults(run=run_doctor)

    p = sub.add_parser("record", help="record a game played by two people, with a clock")
    p.add_argument("--camera", default="0", help="camera index, video file, folder or URL")
    p.add_argument("--variant", default="international")
    p.add_argument("--time-control", type=time_control, default="45+0",
                   help="minutes + increment seconds (seed 004: 3, 5, 15, 21, 30, 45...)")
    p.add_argument("--white", default="?")
    p.add_argument("--black", default="?")
    p.add_argument("--event", default="?")
    p.add_argument("--data-dir", metavar="DIR", help="where the journal and PDN go "
                                                      "(default: the platform's data folder)")
    p.add_argument("--pdn", help="the live PDN, rewritten atomically after every move "
                                 "(default: record.pdn in the data folder)")
    p.add_argument("--journal", help="the event journal (default: record.jsonl in the data "
                                     "folder)")
    p.add_argument("--settle", type=seconds, default=1.0, help="seconds a board must stay")
    p.add_argument("--fps", type=_fps, help="frames per second of a video file (its "
                                            "frames then set the time, not the wall clock)")
    p.add_argument("--resume", action="store_true", help="continue the journal's last game")
    p.add_argument("--config", help="TOML file with defaults for these options")
    p.set_defaults(run=run_record)


def _fps(text: str) -> float:
    value = seconds(text)
    if value == 0:
        import argparse

        raise argparse.ArgumentTypeError("frames per second must be more than 0")
    return value


def run_doctor(args) -> int:
    from damas.doctor import report, run_checks

    checks = run_checks(args.camera, args.port, args.machine, args.calibration)
    print(report(checks))
    failed = sum(1 for c in checks if not c.ok)
    print(f"\n{len(checks) - failed} of {len(checks)} checks passed")
    return 0 if failed == 0 else 1


def run_record(args) -> int:
    from damas.camera import CameraFeed
    from damas.paths import session_file
    from damas.record import Recorder

    journal = session_file(args.journal, args.data_dir, "record.jsonl")
    pdn = session_file(args.pdn, args.data_dir, "record.pdn")
    print(f"journal: {journal}; PDN: {pdn}")
    recorder = Recorder(args.variant, args.time_control, journal,
                        pdn, white=args.white, black=args.black, event=args.event,
                        settle=args.settle, resume=args.resume)
    # a live camera that goes away pauses the record until it is back
    game = recorder.run(CameraFeed(str(args.camera)), fps=args.fps)
    print(f"{game.ply} plies recorded, {recorder.irregular} irregularities flagged; "
          f"PDN: {pdn}")
    return 0
