"""One TOML file for every option: `--config FILE` sets the defaults, flags win.

    # damas.toml
    variant = "international"
    level = 6
    camera = "0"
    robot = "/dev/ttyACM0"
    [record]
    time_control = "45+0"

Top-level keys apply to every command; a table named after the command (`[play]`,
`[record]`, `[demo]`) applies to that command only. Keys are the long flag names with
`-` or `_`. An unknown key is an error, so a typo is never silently ignored.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from damas.rules import DamasError


class ConfigError(DamasError):
    pass


def load_config(path: str | Path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"no config file at {path}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from None
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None


def apply_config(args: argparse.Namespace, command: str, argv: list[str]) -> argparse.Namespace:
    """`args` with values from the config file where no flag was given on the line."""
    if not getattr(args, "config", None):
        return args
    table = load_config(args.config)
    values = {k: v for k, v in table.items() if not isinstance(v, dict)}
    values.update(table.get(command, {}))
    given = {a.split("=")[0].lstrip("-").replace("-", "_") for a in argv if a.startswith("--")}
    known = set(vars(args))
    for key, value in values.items():
        dest = key.replace("-", "_")
        if dest not in known:
            raise ConfigError(f"{args.config}: unknown option {key!r} for damas {command}")
        if dest not in given:
            setattr(args, dest, value)
    return args
