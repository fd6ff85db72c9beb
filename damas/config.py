"""One TOML file for every option: `--config FILE` sets the defaults, flags win.

    # damas.toml
    variant = "international"
    level = 6
    camera = "0"
    robot = "/dev/ttyACM0"
    [record]
    time_control = "45+0"

Top-level keys apply to every command that has the option; a table named after the
command (`[play]`, `[kiosk]`, `[record]`, `[demo]`, `[doctor]`, `[broadcast]`) applies
to that command only. Keys are the long flag names with `-` or `_`. Every value in the
file is checked as the flag's would be, whichever command runs (`level = "high"` or
`level = 99` is an error, as `--level high` is), and an unknown key is an error, so a
typo is never silently ignored.

Without `--config`, `damas.toml` in the platform's config folder (damas.paths) is read
when it exists.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from damas.rules import DamasError

from .paths import default_config


class ConfigError(DamasError):
    pass


MAX_CONFIG = 1024 * 1024  # bytes: a config of every option is a few kB


def load_config(path: str | Path) -> dict:
    from .files import FileCheckError, read_regular

    try:  # a regular file of bounded size: not a FIFO (it would hang) nor /dev/zero
        data = read_regular(path, MAX_CONFIG, "config file")
    except FileCheckError as e:
        raise ConfigError(str(e)) from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text (TOML files are UTF-8)") from None
    except ValueError as e:  # tomllib's int(): a number of over 4,300 digits
        raise ConfigError(f"{path}: {str(e).split(':')[0]}") from None
    except RecursionError:
        raise ConfigError(f"{path}: arrays or tables nested too deeply") from None


def config_path(args: argparse.Namespace) -> Path | None:
    """The file given by `--config`, else the default one if it exists."""
    if getattr(args, "config", None):
        return Path(args.config)
    default = default_config()
    return default if default.is_file() else None


def apply_config(args: argparse.Namespace, command: str, parsers: dict,
                 argv: list[str]) -> argparse.Namespace:
    """`args` of `damas COMMAND` with values from the config file where no flag was given
    on the line (`argv`: the words after the command). `parsers` maps every command that
    reads the config to its argparse parser."""
    path = config_path(args)
    if path is None:
        return args
    checked = check_config(load_config(path), parsers, path)
    given = _given(parsers[command], argv)
    for dest, value in checked.get(command, {}).items():
        if dest not in given:
            setattr(args, dest, value)
    return args


def check_config(table: dict, parsers: dict, path) -> dict[str, dict]:
    """Every value of the file checked (whichever command runs, so a mistake shows at
    once): command -> {option: value}, the command's table winning over top-level keys."""
    options = {command: _options(p) for command, p in parsers.items()}
    out: dict[str, dict] = {command: {} for command in parsers}
    for key, value in table.items():
        if isinstance(value, dict):
            if key not in parsers:
                raise ConfigError(f"{path}: unknown table [{key}] (tables: "
                                  f"{', '.join(f'[{c}]' for c in sorted(parsers))})")
            continue
        dest = key.replace("-", "_")
        users = [c for c in parsers if dest in options[c]]
        if not users:
            raise ConfigError(f"{path}: unknown option {key!r}")
        for command in users:
            out[command][dest] = _value(options[command][dest], key, value, path)
    for command in parsers:
        for key, value in table.get(command, {}).items():
            dest = key.replace("-", "_")
            if dest not in options[command]:
                raise ConfigError(f"{path}: unknown option {key!r} for damas {command}")
            out[command][dest] = _value(options[command][dest], key, value, path)
    return out


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The options a config file may set: every long flag but --config and --help."""
    return {a.dest: a for a in parser._actions
            if a.option_strings and a.dest not in ("config", "help")}


def _given(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """The options given on the command line (however abbreviated)."""
    unset = object()
    namespace = argparse.Namespace(**{a.dest: unset for a in parser._actions})
    parser.parse_known_args(argv, namespace)
    return {dest for dest, value in vars(namespace).items() if value is not unset}


def _value(action: argparse.Action, key: str, value, path: Path):
    """The config value checked and converted as the flag's text would be."""
    where = f"{path}: {key} = {_toml(value)}"
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: write true or false")
        return value if isinstance(action, argparse._StoreTrueAction) else not value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ConfigError(f"{where}: give a string or a number, as on the command line")
    text = str(value)
    try:
        converted = action.type(text) if callable(action.type) else text
    except argparse.ArgumentTypeError as e:
        raise ConfigError(f"{where}: {e}") from None
    except (ValueError, TypeError):
        kind = getattr(action.type, "__name__", "value")
        raise ConfigError(f"{where}: not a valid {kind}") from None
    if action.choices is not None and converted not in action.choices:
        raise ConfigError(f"{where}: choose from {', '.join(map(str, action.choices))}")
    return converted


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
