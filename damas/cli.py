"""The `damas` command. Each group of subcommands lives in a module of `damas.commands`
with a `register(subparsers)` function (found automatically); the benchmarks it offers to
`damas bench` are listed in its `BENCHES` dict."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import textwrap
from collections.abc import Callable

from damas.argtypes import count
from damas.rules.errors import DamasError


class UsageError(DamasError):
    """Bad command-line use (argparse's own errors are turned into this)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        command = self.prog.removeprefix("damas").strip()  # main says "damas: " already
        raise UsageError(f"{command + ': ' if command else ''}{message} "
                         f"(see {self.prog} --help)")


# `damas --help` lists the commands by use, the three uses first; a command not named
# here is listed with the tools
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (("play against the machine", ("demo", "play")),
          ("record tournament games", ("record", "broadcast")),
          ("run a kiosk", ("kiosk",)),
          ("tools", ("doctor", "calibrate", "robot", "show", "moves", "perft", "track",
                     "think", "match", "hub", "dxp", "diagram", "render", "read", "train",
                     "bench")))

OVERVIEW = """\
damas: a controller for physical draughts boards (camera, rules, engine, robot).

  damas demo      a whole game in simulation, no hardware needed: start here
  damas play      play against the machine on a real board
  damas record    record a tournament game, with its clock, for broadcast
  damas kiosk     run unattended in a demo kiosk
  damas doctor    check the camera, serial port and files

`damas --help` lists every command; `damas COMMAND --help` tells more."""


def _overview(args) -> int:
    """`damas` alone: what it is and where to start, on stdout."""
    print(OVERVIEW)
    return 0


def _grouped(helps: dict[str, str]) -> str:
    """The commands by use, each with its one-line help."""
    width = max(map(len, helps)) + 2
    lines = []
    listed: set[str] = set()
    for title, names in GROUPS:
        if title == "tools":
            names = names + tuple(sorted(set(helps) - listed - set(names)))
        lines.append(f"{title}:")
        for name in names:
            if name in helps:
                lines.append(textwrap.fill(helps[name], 88, initial_indent=f"  {name:<{width}}",
                                           subsequent_indent=" " * (width + 2)))
                listed.add(name)
        lines.append("")
    return "\n".join(lines)


def _usage(parser: argparse.ArgumentParser):
    """A command given without its action: its help, and status 2."""
    def run(args) -> int:
        parser.print_help(sys.stderr)
        return 2

    return run


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("damas")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def command_group(sub, name: str, help: str):
    """The sub-actions of a command that several modules extend, e.g. `damas calibrate
    robot` (robot) beside `damas calibrate camera` (vision)."""
    groups = sub.__dict__.setdefault("_damas_groups", {})
    if name not in groups:
        parser = sub.add_parser(name, help=help)
        parser.set_defaults(run=_usage(parser))
        groups[name] = parser.add_subparsers(dest=f"{name}_action", parser_class=_Parser)
    return groups[name]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="damas", usage="damas [-h] [--version] COMMAND ...",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"damas {_version()}")
    parser.set_defaults(run=_overview)
    # the commands are listed by use in the description (below), not argparse's list
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                prog="damas", help=argparse.SUPPRESS)
    benches: dict[str, Callable[[argparse.Namespace], int]] = {}
    import damas.commands

    for info in sorted(pkgutil.iter_modules(damas.commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"damas.commands.{info.name}")
        module.register(sub)
        benches.update(getattr(module, "BENCHES", {}))
    bench = sub.add_parser("bench", help="print performance figures")
    bench.add_argument("what", choices=sorted(benches))
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.add_argument("--frames", type=count, help="vision: how many rendered frames")
    bench.add_argument("--seed", type=int, help="vision: the seed of the evaluation set; "
                                                "demo-memory: of the demo; tracker --noise")
    bench.add_argument("--games", type=count, help="demo-memory: how many games (20); "
                                                   "tracker --noise: per variant (300)")
    bench.add_argument("--noise", metavar="RATES",
                       help="tracker: random games read with this share of squares misread "
                            "with high confidence, e.g. 0.01,0.03,0.05")
    bench.add_argument("--boards", type=count, help="hall: how many boards first (100); "
                                                    "then twice as many until it saturates")
    bench.add_argument("--messages", type=count, help="hall-fuzz: how many hostile "
                                                      "messages (20000)")
    bench.add_argument("--variant", help="demo-memory: the variant (english); tracker "
                                         "--noise, native: only this one (default all three)")
    bench.add_argument("--positions", type=count, help="native: random positions a variant "
                                                       "(100000)")
    bench.add_argument("--photos", metavar="DIR",
                       help="vision: score the labelled photos of DIR (labels.json) instead")
    bench.add_argument("--perturbed", action="store_true",
                       help="vision --photos: read each photo again cut down, turned, "
                            "smaller, further off, blurred, recompressed, darker, warmer")
    bench.add_argument("--sequences", metavar="DIR",
                       help="vision: play the labelled photo sequences of DIR "
                            "(sequences.json) through damas record, with and without a "
                            "calibration")
    bench.add_argument("--unseen", action="store_true",
                       help="vision: read rendered frames as photos of sets never seen "
                            "(no calibration, any position; 200 frames)")
    bench.add_argument("--varied", action="store_true",
                       help="vision --unseen: sets and light of every kind (any colours, "
                            "stickers, translucent, lamps, flash, fisheye, low resolution, "
                            "motion blur), with figures per kind")
    bench.add_argument("--annotate", metavar="OUT",
                       help="vision --photos: write an annotated image of every miss to OUT")
    bench.add_argument("--plot", metavar="FILE", help="vision: also draw the figures "
                                                      "(.png, .svg, .pdf; needs matplotlib)")
    bench.add_argument("--firmware", choices=("damas", "grbl"), default="damas",
                       help="robot-firmware: grbl plays the games on stock GRBL 1.1h too, "
                            "side by side with our firmware")
    bench.set_defaults(run=lambda args: benches[args.what](args))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    parser.description = ("A controller for physical draughts boards: camera, rules, engine, "
                          "robot.\n\n" + _grouped(helps)
                          + "`damas COMMAND --help` tells more.")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = None
    try:
        args = parse(sys.argv[1:] if argv is None else list(argv))
        return args.run(args) or 0
    except DamasError as e:
        print(f"damas: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("damas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as e:  # a full or failing disk mid-session: one line, the record kept
        from damas.files import disk_failure

        line = disk_failure(e, resume=hasattr(args, "resume"))
        if line is None:
            raise
        print(f"damas: {line}", file=sys.stderr)
        return 2


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line's options, with the TOML config's values (damas.config) for the
    commands that take `--config` where no flag was given."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "command", None) is None or not hasattr(args, "config"):
        return args
    from damas.config import apply_config

    assert parser._subparsers is not None  # build_parser adds the commands
    commands = parser._subparsers._group_actions[0].choices
    assert isinstance(commands, dict)  # a subparsers action maps names to parsers
    readers = {name: p for name, p in commands.items()
               if any(a.dest == "config" for a in p._actions)}
    rest = argv[argv.index(args.command) + 1:]
    return apply_config(args, args.command, readers, rest)


if __name__ == "__main__":
    sys.exit(main())
