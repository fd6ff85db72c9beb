"""`damas doctor` (is everything a session needs there and working?) and `damas record`
(tournament games from a camera, for the arbiter and live broadcast)."""

from __future__ import annotations

from damas.argtypes import board_url, name, seconds, time_control
from damas.rules import DamasError


def register(sub) -> None:
    p = sub.add_parser("doctor", help="check the camera, serial port, calibration and "
                                      "machine file, and say how to fix what is wrong",
                       epilog="Exit status: 0 when nothing checked is broken (a camera or "
                              "robot not plugged in is only missing: damas demo needs "
                              "neither), 1 when something named or found does not work.")
    p.add_argument("--camera", help="camera index, video file or URL (default: camera 0, "
                                    "missing rather than failed when not there)")
    p.add_argument("--port", help="the robot's or LED board's serial port (default: "
                                  "every port found)")
    p.add_argument("--machine", help="machine description file")
    p.add_argument("--calibration", help="calibration folder")
    p.add_argument("--config", help="TOML file with defaults for these options")
    p.set_defaults(run=run_doctor)

    p = sub.add_parser("record", help="record a game played by two people, with a clock")
    p.add_argument("--camera", default="0", help="camera index, video file, folder or URL")
    p.add_argument("--variant", default="international")
    p.add_argument("--fen", help="the position the game goes on from (an adjourned game): "
                                 "recording begins when the board shows it")
    p.add_argument("--from-board", choices=("white", "black"), metavar="SIDE",
                   help="go on from the position the camera sees first, SIDE (white or "
                        "black) to move; it is shown for you to confirm")
    p.add_argument("--time-control", type=time_control, default="45+0",
                   help="minutes + increment seconds (seed 004: 3, 5, 15, 21, 30, 45...)")
    p.add_argument("--white", type=name, default="?")
    p.add_argument("--black", type=name, default="?")
    p.add_argument("--event", type=name, default="?")
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
    p.add_argument("--calibration", metavar="DIR",
                   help="folder from `damas calibrate board`: lens, pose, the set's colours")
    p.add_argument("--web", type=int, metavar="PORT",
                   help="serve the live page on http://HOST:PORT/ (0: any port): board, "
                        "clocks, moves, the PDN for broadcast")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address the page is served on (0.0.0.0: every network)")
    p.add_argument("--publish", type=board_url, metavar="mqtt://BROKER/EVENT/ROUND/BOARD",
                   help="publish every event of the game to the tournament hall's MQTT "
                        "broker (see damas broadcast)")
    p.add_argument("--spool", help="with --publish: the events on their way to the broker "
                                   "(default: hall-spool-EVENT-ROUND-BOARD.jsonl in the "
                                   "data folder)")
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

    checks = run_checks(args.camera or "0", args.port, args.machine, args.calibration,
                        camera_named=args.camera is not None)
    print(report(checks))
    failed = sum(1 for c in checks if not c.ok and not c.missing)
    missing = [c.name for c in checks if c.missing]
    passed = len(checks) - failed - len(missing)
    print(f"\n{passed} of {len(checks)} checks passed"
          + (f", {failed} failed" if failed else "")
          + (f", {len(missing)} missing ({', '.join(missing)})" if missing else ""))
    if missing:
        print("no hardware is needed to try damas: damas demo plays a whole game in "
              "simulation (camera, robot and all)")
    # missing hardware is not broken hardware: a script checking a kiosk's setup fails
    # on what is wrong, not on a laptop with nothing plugged in
    return 0 if failed == 0 else 1


def run_record(args) -> int:
    from damas.paths import session_file
    from damas.record import Recorder
    from damas.vision.feed import CameraFeed
    from damas.web import serve_page

    if sum(bool(x) for x in (args.fen, args.from_board, args.resume)) > 1:
        raise DamasError("give one of --fen, --from-board and --resume")
    journal = session_file(args.journal, args.data_dir, "record.jsonl")
    pdn = session_file(args.pdn, args.data_dir, "record.pdn")
    from damas.files import check_outputs

    spool = None
    if args.publish is not None:
        where = args.publish
        spool = session_file(args.spool, args.data_dir,
                             f"hall-spool-{where.event}-{where.round}-{where.board}.jsonl")
    check_outputs({"journal": journal, "PDN": pdn, "spool": spool})  # before any move
    print(f"journal: {journal}; PDN: {pdn}")
    publisher, tags, event = None, {}, args.event
    if args.publish is not None:
        from damas.hall.publisher import Publisher

        where = args.publish
        assert spool is not None  # named above with the other outputs
        publisher = Publisher(where, spool)  # a broker name that does not resolve: 1 line
        print(f"hall: publishing to {where} (spool: {spool})")
        tags = {"Round": where.round, "Board": where.board}
        event = where.event if event == "?" else event
    server = None
    try:
        # what the user gave is checked before the page is served: the journal (on
        # --resume), then a recording that is not there, each one line
        recorder = Recorder(args.variant, args.time_control, journal,
                            pdn, white=args.white, black=args.black, event=event,
                            settle=args.settle, resume=args.resume,
                            calibration=args.calibration, tags=tags, publisher=publisher,
                            fen=args.fen, from_board=args.from_board)
        # a live camera that goes away pauses the record until it is back
        feed = CameraFeed(str(args.camera))
        feed.check_recording()
        display, server = serve_page(args.web, args.host)
        if display is not None:
            recorder.show_on(display)
        game = recorder.run(feed, fps=args.fps)
    finally:
        if server is not None:
            server.stop()
        if publisher is not None:
            publisher.close()
    print(f"{game.ply} plies recorded, {recorder.irregular} irregularities flagged; "
          f"PDN: {pdn}")
    return 0


def bench_web(args) -> int:
    """The page's server under 200 clients and 300 silent connections while a game runs,
    and the same game with nobody watching."""
    import json

    from damas.websoak import soak

    alone = soak(clients=0, half_open=0).summary()
    loaded = soak().summary()
    if args.json:
        print(json.dumps({"alone": alone, "loaded": loaded}))
        return 0
    lat, gap = loaded["latency_ms"], loaded["game_loop_gap_ms"]
    print(f"{loaded['clients']} clients and {loaded['half_open']} silent connections during "
          f"a game of {loaded['plies']} plies: {loaded['answers']} answers, "
          f"{loaded['bad_answers']} wrong; latency median {lat['median']} ms, p99 "
          f"{lat['p99']} ms, worst {lat['worst']} ms")
    print(f"event streams: {loaded['streams']['read']} read, "
          f"{loaded['streams']['saw_the_end']} saw the game end, "
          f"{loaded['streams']['never_read']} never read")
    print(f"threads: {loaded['threads']['before']} before, at most "
          f"{loaded['threads']['most']} under load")
    print(f"the game: {loaded['seconds']} s under load, {alone['seconds']} s alone; longest "
          f"gap between two camera frames {gap['worst']} ms loaded, "
          f"{alone['game_loop_gap_ms']['worst']} ms alone (engine and robot included)")
    return 0


BENCHES = {"web": bench_web}

