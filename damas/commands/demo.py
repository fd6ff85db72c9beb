"""`damas demo`: the closed-loop demo (camera, vision, tracker, engine, robot) in
simulation, on any machine."""

from __future__ import annotations

import json
import sys
from typing import Any

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
                   help="serve the live page on http://HOST:PORT/ (0: any port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address the page is served on (0.0.0.0: every network)")
    p.add_argument("--calibration", metavar="DIR",
                   help="read the simulated camera through this calibration folder (made "
                        "from the simulated table's start position when it has none)")
    p.add_argument("--json", action="store_true", help="print only a JSON summary")
    p.add_argument("--quiet", action="store_true",
                   help="print only the summary (no boards, PDN or event log)")
    p.add_argument("--board-every", type=count, default=20, metavar="N",
                   help="print the moves and the board every N plies (default 20; 1: "
                        "after every move)")
    p.add_argument("--config", help="TOML file with defaults for these options")
    p.set_defaults(run=run_demo)


def run_demo(args) -> int:
    from damas.demo import Demo, DemoOptions
    from damas.files import check_outputs
    from damas.journal import read_journal
    from damas.paths import session_file
    from damas.progress import Progress
    from damas.web import serve_page

    journal = session_file(args.journal, args.data_dir, "demo.jsonl")
    check_outputs({"journal": journal, "PDN": args.pdn or journal.with_suffix(".pdn"),
                   "video": args.video})  # before any move
    quiet = args.quiet or args.json
    options = DemoOptions(variant=args.variant, level=args.level, seed=args.seed,
                          games=args.games, max_plies=args.max_plies, human=args.human,
                          robot=args.robot, irregular_rate=args.irregular_rate,
                          journal=str(journal), pdn=args.pdn, video=args.video,
                          resume=args.resume, calibration=args.calibration,
                          board_every=0 if quiet else args.board_every)
    earlier = len(read_journal(journal)) if journal.exists() else 0  # other runs' events
    display, server = serve_page(args.web, args.host)
    # with --json the progress is all there is to see until the end (a line every 10 s
    # off a terminal); otherwise the boards are, or (--quiet) only the bar on a terminal,
    # which goes as the summary comes
    with Progress("demo", unit="ply", every=10.0 if args.json else float("inf")) as progress:
        out = (lambda *a: None) if quiet else progress.write
        demo = Demo(options, out=out, display=display,
                    on_move=lambda game, ply, notation, by: progress.update(
                        1, f"game {game} of {args.games}, {numbered(ply, notation)}"))
        try:
            report = demo.run()
        except BaseException:
            if server is not None:
                server.stop()
            raise
    summary = report.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        if not args.quiet:
            _print_record([g.pdn_text for g in report.games], summary["journal"], earlier)
        print(describe(summary))
    if server is not None:
        _serve_until_interrupted(server)
    return 0 if summary["misrecognised"] == 0 else 1


def _serve_until_interrupted(server) -> None:
    """The page stays with the result and the final position until Ctrl-C: a person who
    opens it late still sees how the game ended."""
    import threading

    sys.stdout.flush()
    print(f"the game is over; the live page stays at {server.url} with the result and "
          "the final position: Ctrl-C to stop", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


# what each part of the time split is
PARTS = {"render": "rendering the simulated camera", "vision": "vision (locate, read)",
         "robot": "robot (plan, G-code, machine)", "engine": "engine", "tracker": "tracker"}


def describe(summary: dict) -> str:
    """The demo's summary in words: counts, the time split with units and shares, and
    where the record went."""
    games, plies, moves = summary["games"], summary["plies"], summary["moves"]
    results = ", ".join(summary["results"])
    lines = [f"{games} {summary['variant']} game{'s' if games != 1 else ''}: {plies} plies "
             f"({moves} moves in PDN numbering); result{'s' if games != 1 else ''} {results}",
             f"misrecognised {summary['misrecognised']}; irregular moves made "
             f"{summary['irregular_made']}, flagged {summary['irregular_flagged']}",
             f"wall time {summary['seconds']:.1f} s on {summary['robot']}: "
             f"{summary['seconds_per_ply']:.2f} s per ply, "
             f"{summary['seconds_per_move']:.2f} s per move"]
    wall = max(summary["seconds"], 1e-9)
    split = dict(summary["time_split"])
    split["other"] = max(0.0, wall - sum(split.values()))
    for part, seconds in sorted(split.items(), key=lambda kv: -kv[1]):
        share = 100 * seconds / wall
        lines.append(f"  {PARTS.get(part, part):<32} {seconds:8.1f} s  {share:5.1f} %")
    rounds = summary.get("rounds") or []
    which = (f"round {rounds[0]}" if len(rounds) == 1 else
             f"rounds {rounds[0]}-{rounds[-1]}" if rounds else "no game")
    lines.append(f"PDN: {summary['pdn']} ({which}; the file keeps every demo game, "
                 "each run's rounds counting on)")
    lines.append(f"journal: {summary['journal']}")
    return "\n".join(lines)


def numbered(ply: int, notation: str) -> str:
    from damas.play import numbered

    return numbered(ply, notation)


def _print_record(pdns: list[str], journal: str, earlier: int) -> None:
    """This run's games' PDN (the file keeps earlier runs' games too), then this run's
    notable events (every event stays in the journal)."""
    from damas.journal import read_journal

    for text in pdns:
        print("\n" + text.rstrip())
    print()
    notable = ("game-start", "tracker-irregular", "tracker-restored", "mismatch", "shown",
               "robot-fault", "paused", "continued", "misrecognised", "game-end", "resumed")
    events = read_journal(journal)[earlier:]
    print(f"event log ({len(events)} events of this run; notable ones):")
    for e in events:
        if e["kind"] in notable:
            detail = (e.get("article") or e.get("result") or e.get("squares")
                      or e.get("reason") or e.get("lost") or "")
            print(f"  {e['kind']} {detail}".rstrip())
    print()


# --- bench ------------------------------------------------------------------------------

def rss_mb() -> float:
    """This process's resident memory now (Linux /proc), else its peak so far."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def bench_demo_memory(args) -> int:
    """Whole demo games one after another in one process, the resident memory after each:
    it must stay flat after the second game (figures only, no time asserted)."""
    import gc
    import tempfile

    from damas.demo import Demo, DemoOptions
    from damas.progress import Progress

    games = args.games or 20
    variant = args.variant or "english"
    rows = []
    with tempfile.TemporaryDirectory(prefix="damas-bench-") as folder, \
            Progress("bench demo-memory", total=games, unit="game", every=0) as progress:
        def on_game(number, game) -> None:
            gc.collect()  # what stays is what something still holds
            rows.append({"game": number, "plies": game.plies, "rss_mb": round(rss_mb(), 1)})
            progress.update(1, f"game {number}: {game.plies} plies, RSS {rss_mb():.0f} MB")

        start = rss_mb()
        options = DemoOptions(variant=variant, games=games, seed=args.seed or 1,
                              robot="sim-python", journal=f"{folder}/demo.jsonl")
        Demo(options, out=lambda *a: None, on_game=on_game).run()
    later = [(r["game"], r["rss_mb"]) for r in rows[1:]]  # from game 2 on
    figures: dict[str, Any] = {"variant": variant, "games": games, "rss_start_mb": round(start, 1),
               "per_game": rows, "after_game_2": _spread(later)}
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"demo memory, {games} {variant} games in one process (robot sim-python): "
          f"RSS {figures['rss_start_mb']} MB before the first game")
    for r in rows:
        print(f"  game {r['game']:>2}: {r['plies']:>3} plies, RSS {r['rss_mb']:6.1f} MB")
    spread = figures["after_game_2"]
    if spread:
        print(f"from game 2 on: RSS {spread['min_mb']}-{spread['max_mb']} MB, trend "
              f"{spread['trend_mb_per_game']:+.2f} MB a game (least squares; the allocator "
              "keeps a frame's peak for a while, hence the spread)")
    return 0


def _spread(points: list[tuple[int, float]]) -> dict:
    """Lowest, highest and the least-squares slope of RSS over the games."""
    if len(points) < 2:
        return {}
    import statistics

    games, rss = zip(*points, strict=True)
    slope = statistics.linear_regression(games, rss).slope
    return {"min_mb": min(rss), "max_mb": max(rss), "trend_mb_per_game": round(slope, 2)}


BENCHES = {"demo-memory": bench_demo_memory}
