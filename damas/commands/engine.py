"""`damas think`, `damas match`, `damas hub`, `damas dxp`, `damas train engine` and
`damas bench engine`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from damas.cli import command_group
from damas.rules import DamasError, Game, variant


def register(sub) -> None:
    p = sub.add_parser("think", help="search a position and print the move with search info")
    _position_args(p)
    _limit_args(p)
    p.add_argument("--engine", default="builtin",
                   help="engine spec (default builtin): builtin:level=N, hub:/path, "
                        "dxp:127.0.0.1:PORT, random")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.set_defaults(run=run_think)

    p = sub.add_parser("match", help="play engines against each other, colours swapped")
    p.add_argument("--variant", default="international")
    p.add_argument("--engine", action="append", required=True, metavar="SPEC",
                   help="give twice: A then B (builtin:level=N, builtin:depth=D, "
                        "hub:/path, dxp:127.0.0.1:PORT, random)")
    p.add_argument("--games", type=int, default=2, help="games in all (default 2)")
    p.add_argument("--time-control", default="1/move",
                   help="1/move (seconds a move, default), 60+0.5 (seconds + increment) "
                        "or none (the engines' own depth or level)")
    p.add_argument("--openings", help="file: one FEN or move list a line (default: every "
                                      "first move pair, shuffled)")
    p.add_argument("--max-plies", type=int, default=400,
                   help="adjudicate a draw after this many plies (default 400)")
    p.add_argument("--pdn", help="write the games to this PDN file (after every game)")
    p.add_argument("--json", action="store_true",
                   help="print {wins, draws, losses, elo, elo_error, ...} from A's side")
    p.add_argument("--quiet", action="store_true", help="no line per game")
    p.add_argument("--plot", metavar="FILE", help="draw A's running score (.png, .svg, "
                                                  ".pdf; needs matplotlib)")
    p.set_defaults(run=run_match)

    p = sub.add_parser("hub", help="offer the built-in engine to Hub GUIs on stdin/stdout")
    p.add_argument("--variant", default="international")
    p.add_argument("--level", type=int, default=10)
    p.set_defaults(run=run_hub)

    t = command_group(sub, "train", "train a learned part (needs the train extra)")
    p = t.add_parser("engine", help="fit the evaluation's weights to self-play games, or "
                                    "its terms and patterns to a stronger engine's scores")
    p.add_argument("--variant", default="international")
    p.add_argument("--games", type=int, default=400, help="self-play games (default 400)")
    p.add_argument("--depth", type=int, default=6, help="their search depth (default 6)")
    p.add_argument("--teacher", metavar="SPEC",
                   help="learn from this engine's scores instead, e.g. 'hub:/opt/scan/scan "
                        "hub', or builtin searching deeper (--teacher-depth)")
    p.add_argument("--positions", type=int, default=60_000,
                   help="with --teacher: positions it scores (default 60000)")
    p.add_argument("--teacher-depth", type=int, default=12,
                   help="with --teacher: its search depth (default 12; Scan 2.0 gives no "
                        "score below 12)")
    p.add_argument("--jobs", type=int, default=2,
                   help="with --teacher: teachers run side by side (default 2)")
    p.add_argument("--seed", type=int, default=1, help="the same seed gives the same weights")
    p.add_argument("--out", metavar="FILE",
                   help="weights file to write (default: the one damas ships, "
                        "engine/weights/VARIANT.json)")
    p.set_defaults(run=run_train_engine)

    p = sub.add_parser("dxp", help="offer an engine to DXP programs over TCP (127.0.0.1)")
    p.add_argument("--listen", type=int, required=True, metavar="PORT",
                   help="TCP port on 127.0.0.1 (0: any free port, printed)")
    p.add_argument("--variant", default="international")
    p.add_argument("--engine", default="builtin", help="engine spec (default builtin)")
    p.add_argument("--connections", type=int, help="stop after serving this many")
    _limit_args(p, default_note="the time control of each game request")
    p.set_defaults(run=run_dxp)


def _position_args(p) -> None:
    p.add_argument("--variant", default="international",
                   help="international (default), brazilian or english")
    p.add_argument("--fen", help="the position (default: the start position)")
    p.add_argument("--moves", help="moves played from that position first, e.g. '32-28 19-23'")


def _limit_args(p, default_note: str = "level 10 for 1 s") -> None:
    g = p.add_argument_group(f"how long to think (default: {default_note})")
    g.add_argument("--level", type=int, help="1 (weak) to 10 (full strength)")
    g.add_argument("--depth", type=int, help="fixed depth in plies")
    g.add_argument("--movetime", type=float, help="seconds for the move")
    g.add_argument("--nodes", type=int, help="fixed number of nodes")


def _limit(args):
    from damas.engine import Limit

    for name in ("depth", "nodes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise DamasError(f"--{name} must be 1 or more")
    if args.movetime is not None and args.movetime <= 0:
        raise DamasError("--movetime must be more than 0")
    if args.level is not None and args.level not in range(1, 11):
        raise DamasError("--level must be 1 to 10")
    return Limit(depth=args.depth, nodes=args.nodes, movetime=args.movetime, level=args.level)


def _game(args) -> Game:
    v = variant(args.variant)
    game = Game(v, fen=args.fen) if args.fen else Game(v)
    for text in (args.moves or "").replace(",", " ").split():
        game.push(text)
    return game


# --- think ------------------------------------------------------------------------------


def run_think(args) -> int:
    from damas.engine import open_engine, score_text

    game = _game(args)
    if not game.position.legal_moves():
        raise DamasError(f"no legal move in {game.position.fen()}: the game is over")
    limit = _limit(args)
    infos = []

    def show(info):
        infos.append(info)
        if not args.json:
            print(f"depth {info.depth:>2}  score {score_text(info.score):>10}  "
                  f"nodes {info.nodes:>9}  nps {info.nps:>7}  time {info.seconds:6.2f} s  "
                  f"pv {' '.join(info.pv_text)}", flush=True)

    with open_engine(args.engine, game.variant) as engine:
        result = engine.play(game, limit, on_info=show)
    pos = game.position
    move = result.move
    info = result.info
    if args.json:
        out = {"move": pos.notation(move), "long": move.long, "hub": move.hub,
               "from": move.start, "to": move.end, "captured": list(move.captured),
               "fen_after": pos.play(move).fen()}
        if info is not None:
            out.update({"score": info.score, "score_text": score_text(info.score),
                        "depth": info.depth, "nodes": info.nodes, "nps": info.nps,
                        "seconds": round(info.seconds, 3), "pv": list(info.pv_text)})
        out["info"] = [i.as_dict() for i in infos]
        print(json.dumps(out))
    else:
        print(f"bestmove {pos.notation(move)}")
    return 0


# --- match ------------------------------------------------------------------------------


def run_match(args) -> int:
    from damas.calibration.store import atomic_write_text
    from damas.engine import open_engine, parse_time_control
    from damas.engine import run_match as play_match
    from damas.engine.match import read_openings
    from damas.rules.pdn import PdnGame, write_pdn

    if len(args.engine) != 2:
        raise DamasError("give --engine exactly twice: engine A, then engine B")
    if args.games < 1:
        raise DamasError("--games must be 1 or more")
    from damas.plots import check_plot, plot_match

    check_plot(args.plot)
    v = variant(args.variant)
    tc = parse_time_control(args.time_control)
    openings = None
    if args.openings:
        try:
            with open(args.openings, encoding="utf-8") as f:
                openings = read_openings(f.read(), v)
        except OSError as e:
            raise DamasError(f"cannot read openings {args.openings}: {e.strerror}") from None
    pdn_games = []
    points = []  # A's, game by game
    a_spec, b_spec = args.engine

    def on_game(record):
        a_white = record.a_colour == 0
        white, black = (a_spec, b_spec) if a_white else (b_spec, a_spec)
        win, loss = v.results[:2] if a_white else v.results[1::-1]
        points.append(1.0 if record.result == win else 0.0 if record.result == loss else 0.5)
        if args.pdn:
            pdn_games.append(PdnGame.from_game(record.game, Event="damas match", White=white,
                                               Black=black, Round=str(record.number),
                                               Date=time.strftime("%Y.%m.%d"),
                                               Result=record.result))
            atomic_write_text(args.pdn, write_pdn(pdn_games))  # fsynced, then renamed
        if not args.quiet:
            line = (f"game {record.number:>3}: {white} vs {black}  {record.result:<7} "
                    f"{record.reason:<24} opening {record.opening}")
            print(line, file=sys.stderr if args.json else sys.stdout, flush=True)

    with open_engine(a_spec, v) as a, open_engine(b_spec, v) as b:
        result = play_match(a, b, v, args.games, tc, openings, args.max_plies, on_game)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{a_spec} vs {b_spec}: +{summary['wins']} ={summary['draws']} "
              f"-{summary['losses']}  score {summary['score']:.1%}  "
              f"Elo {summary['elo']:+.0f} ± {summary['elo_error']:.0f}")
    if args.plot:
        plot_match(a_spec, b_spec, points, args.plot)
        print(f"plot: {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0


# --- servers ----------------------------------------------------------------------------


def run_hub(args) -> int:
    from damas.engine import serve_hub

    variant(args.variant)
    if args.level not in range(1, 11):
        raise DamasError("--level must be 1 to 10")
    return serve_hub(args.variant, args.level)


def run_dxp(args) -> int:
    from damas.engine import DxpServer, Limit, open_engine

    v = variant(args.variant)
    limit = _limit(args)
    open_engine(args.engine, v).close()  # check the spec before listening
    try:
        server = DxpServer(lambda: open_engine(args.engine, v), v, port=args.listen,
                           limit=None if limit == Limit() else limit)
    except OSError as e:
        raise DamasError(f"cannot listen on 127.0.0.1:{args.listen}: {e.strerror}") from None
    print(f"damas dxp: listening on 127.0.0.1:{server.port} ({v.name})", flush=True)
    try:
        server.serve_forever(args.connections)
    finally:
        server.close()
    return 0


# --- benchmark --------------------------------------------------------------------------


def run_train_engine(args) -> int:
    from damas.engine.evaluation import weights_path, write_weights
    from damas.engine.tuning import tune
    from damas.progress import Progress

    if args.teacher:
        return _train_from_teacher(args)
    if args.games < 10 or args.depth < 1:
        raise DamasError("--games must be 10 or more and --depth 1 or more")
    with Progress("self-play games", total=args.games, unit="game") as bar:
        report = tune(args.variant, args.games, args.depth, args.seed,
                      progress=lambda done: bar.update(1))
    out = Path(args.out) if args.out else weights_path(args.variant)
    write_weights(report.weights, out)
    print(f"{len(report.train.results):,} positions from {args.games} games at depth "
          f"{args.depth} (every fifth game held out: {len(report.held_out.results):,})")
    print(f"held-out log-loss {report.loss_before:.4f} before, {report.loss_after:.4f} after")
    print(f"weights written to {out}")
    return 0


def _train_from_teacher(args) -> int:
    from damas.engine import teacher
    from damas.engine.evaluation import weights_path, write_weights
    from damas.engine.spec import check_spec
    from damas.progress import Progress

    check_spec(args.teacher)
    if args.positions < 100 or args.teacher_depth < 1 or not 1 <= args.jobs <= 16:
        raise DamasError("--positions must be 100 or more, --teacher-depth 1 or more and "
                         "--jobs 1 to 16")
    with Progress("self-play positions", total=args.positions, unit="position") as bar:
        positions = teacher.quiet_positions(args.variant, args.positions, args.seed,
                                            progress=lambda done: bar.update(1))
    with Progress(f"scored by {args.teacher}", total=len(positions), unit="position") as bar:
        scores = teacher.teacher_scores(positions, args.teacher, args.teacher_depth,
                                        args.jobs, progress=bar.update)
    note = (f"damas train engine --teacher {args.teacher!r} --positions {args.positions} "
            f"--teacher-depth {args.teacher_depth} --seed {args.seed}")
    report = teacher.fit_to_teacher(args.variant, positions, scores, note)
    out = Path(args.out) if args.out else weights_path(args.variant)
    write_weights(report.weights, out)
    print(f"{report.positions:,} positions scored by {args.teacher} at depth "
          f"{args.teacher_depth} ({report.held_out:,} more held out)")
    print(f"held-out error {report.error_before:.5f} before, {report.error_after:.5f} after "
          "(mean squared difference of win probabilities)")
    print(f"weights written to {out} and its patterns beside it")
    return 0


def bench_engine(args) -> int:
    from damas.engine.bench import run_bench

    figures = run_bench()
    if args.json:
        print(json.dumps(figures))
        return 0
    for name, f in figures.items():
        print(f"{name}: {f['nps']:,} nodes/s; depth in {f['movetime']:g} s from 10 middle "
              f"games: median {f['median_depth']:g} ({', '.join(map(str, f['depths']))})")
        for row in f["positions"]:
            print(f"  {row['fen'][:60]:<60} depth {row['depth']:>2} {row['nodes']:>10,} nodes "
                  f"{row['nps']:>11,}/s")
    return 0


def bench_native(args) -> int:
    """The native core's moves against damas.rules on random positions."""
    from damas.engine import native
    from damas.engine.nativecheck import compare
    from damas.progress import Progress
    from damas.rules import DamasError, variant

    if not native.available():
        raise DamasError("the native core is not built: pip install -e . builds it")
    names = [variant(args.variant).name] if args.variant else ["international", "brazilian",
                                                               "english"]
    count = args.positions or 100_000
    seed = 0 if args.seed is None else args.seed
    reports = []
    with Progress("bench native", total=len(names), unit="variant", every=0) as progress:
        for name in names:
            reports.append(compare(name, count, seed=seed))
            progress.update(1, name)
    if args.json:
        print(json.dumps(reports))
    else:
        for r in reports:
            print(f"{r['variant']:>13}: {r['positions']:,} positions, {r['mismatches']} "
                  f"mismatches; {r['with_kings']:,} with kings, {r['captures']:,} with a "
                  f"capture ({r['king_captures']:,} by a king, {r['chains_of_3']:,} of 3 "
                  f"pieces or more, the longest {r['longest_chain']}); perft(2) compared on "
                  f"{r['perft2_checked']:,}")
            if r["first_mismatch"]:
                print(f"  first mismatch: {r['first_mismatch']}")
    return 1 if any(r["mismatches"] for r in reports) else 0


BENCHES = {"engine": bench_engine, "native": bench_native}
