"""The `damas` command. Each group of subcommands lives in a module of `damas.commands`
with a `register(subparsers)` function (found automatically); the benchmarks it offers to
`damas bench` are listed in its `BENCHES` dict."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from damas.rules.errors import DamasError


class UsageError(DamasError):
    """Bad command-line use (argparse's own errors are turned into this)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def command_group(sub, name: str, help: str):
    """The sub-actions of a command that several modules extend, e.g. `damas calibrate
    robot` (robot) beside `damas calibrate camera` (vision)."""
    groups = sub.__dict__.setdefault("_damas_groups", {})
    if name not in groups:
        parser = sub.add_parser(name, help=help)
        groups[name] = parser.add_subparsers(dest=f"{name}_action", required=True,
                                             parser_class=_Parser)
    return groups[name]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="damas", description="A controller for physical draughts boards.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    benches = {}
    import damas.commands

    for info in sorted(pkgutil.iter_modules(damas.commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"damas.commands.{info.name}")
        module.register(sub)
        benches.update(getattr(module, "BENCHES", {}))
    bench = sub.add_parser("bench", help="print performance figures")
    bench.add_argument("what", choices=sorted(benches))
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.add_argument("--frames", type=int, help="vision: how many rendered frames")
    bench.add_argument("--seed", type=int, help="vision: the seed of the evaluation set")
    bench.add_argument("--photos", metavar="DIR",
                       help="vision: score the labelled photos of DIR (labels.json) instead")
    bench.add_argument("--annotate", metavar="OUT",
                       help="vision --photos: write an annotated image of every miss to OUT")
    bench.add_argument("--plot", metavar="FILE", help="vision: also draw the figures "
                                                      "(.png, .svg, .pdf; needs matplotlib)")
    bench.add_argument("--firmware", choices=("damas", "grbl"), default="damas",
                       help="robot-firmware: grbl plays the games on stock GRBL 1.1h too, "
                            "side by side with our firmware")
    bench.set_defaults(run=lambda args: benches[args.what](args))
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.run(args) or 0
    except DamasError as e:
        print(f"damas: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("damas: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
