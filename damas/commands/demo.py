"""`damas demo`: the closed-loop demo (camera, vision, tracker, engine, robot) in
simulation, on any machine."""

from __future__ import annotations

import json

from damas.argtypes import count, level, port, share


def register(sub) -> None:
    p = sub.add_parser("demo", help="a whole game in simulation: camera, person, robot")
    p.add_argument("--variant", default="international")
    p.add_argument("--level", type=level, default=3, help="engine level 1-10 (default 3)")
    p.add_argument("--seed", type=int, default=1, help="the same seed plays the same demo")
    p.add_argument("--games", type=count, default=1)
    p.add_argument("--max-plies", type=count, default=400,
                   help="stop a game after this many plies (half-moves)")
    p.add_argument("--human", choices=("white", "black"), default="white",
                   help="the side the simulated person plays")
    p.add_argument("--robot", choices=("auto", "sim-firmware", "sim-python"), default="auto",
                   help="auto: the firmware in simavr when the toolchain is there")
    p.add_argument("--irregular-rate", type=share, default=0.12,
                   help="how often the person first makes an irregular move")
    p.add_argument("--data-dir", metavar="DIR",
                   help="where the journal and PDN go (default: the platform's data folder)")
    p.add_argument("--journal", help="the event journal (default: demo.jsonl in the data "
                                     "folder)")
    p.add_argument("--pdn", help="the live PDN (default: next to the journal)")
    p.add_argument("--video", help="write the annotated camera view to this .mp4")
    p.add_argument("--resume", action="store_true",
                   help="continue the last game of the journal")
    p.add_argument("--web", type=port, metavar="PORT",
                   help="serve the live page on http://127.0.0.1:PORT/ (0: any port)")
    p.add_argument("--json", action="store_true", help="print only a JSON summary")
    p.add_argument("--config", help="TOML file with defaults for these options")
    p.set_defaults(run=run_demo)


def run_demo(args) -> int:
    from damas.demo import Demo, DemoOptions
    from damas.paths import session_file

    journal = session_file(args.journal, args.data_dir, "demo.jsonl")
    options = DemoOptions(variant=args.variant, level=args.level, seed=args.seed,
                          games=args.games, max_plies=args.max_plies, human=args.human,
                          robot=args.robot, irregular_rate=args.irregular_rate,
                          journal=str(journal), pdn=args.pdn, video=args.video,
                          resume=args.resume)
    out = (lambda *a: None) if args.json else print
    from damas.web import serve_page

    display, server = serve_page(args.web)
    try:
        report = Demo(options, out=out, display=display).run()
    finally:
        if server is not None:
            server.stop()
    summary = report.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"\n{summary['games']} game(s), {summary['moves']} moves, results "
              f"{summary['results']}; misrecognised {summary['misrecognised']}; irregular "
              f"moves made {summary['irregular_made']}, flagged "
              f"{summary['irregular_flagged']}; {summary['seconds_per_move']} s per move "
              f"on {summary['robot']}")
        print(f"time: {summary['time_split']}")
        _print_record(summary["pdn"], options.journal)
    return 0 if summary["misrecognised"] == 0 else 1


def _print_record(pdn: str | None, journal: str) -> None:
    """The PDN, then the journal's notable events (every event stays in the file)."""
    from pathlib import Path

    from damas.journal import read_journal

    if pdn and Path(pdn).exists():
        print("\n" + Path(pdn).read_text(encoding="utf-8"))
    notable = ("game-start", "tracker-irregular", "tracker-restored", "mismatch", "shown",
               "robot-fault", "paused", "continued", "misrecognised", "game-end", "resumed")
    events = read_journal(journal)
    print(f"event log ({len(events)} events in {journal}; notable ones):")
    for e in events:
        if e["kind"] in notable:
            detail = (e.get("article") or e.get("result") or e.get("squares")
                      or e.get("reason") or "")
            print(f"  {e['kind']} {detail}".rstrip())
