"""Value types of the command line's options (and of the same keys in the TOML config):
each turns the text into the value or says in one line what is allowed."""

from __future__ import annotations

import argparse
import math


def level(text: str) -> int:
    """An engine level, 1 (weak) to 10 (full strength)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a level is a whole number 1 to 10, not {text!r}") \
            from None
    if not 1 <= value <= 10:
        raise argparse.ArgumentTypeError(f"a level is 1 to 10, not {value}")
    return value


def port(text: str) -> int:
    """A TCP port on this machine, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a port is a number 0 to 65535, not {text!r}") \
            from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


DAY = 86400.0


def seconds(text: str) -> float:
    """A duration: seconds, 0 to a day (1e308 s would make every wait endless)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give seconds as a number, not {text!r}") from None
    if not math.isfinite(value) or not 0 <= value <= DAY:
        raise argparse.ArgumentTypeError(f"seconds are a finite number 0 to {DAY:g} (a day), "
                                         f"not {text}")
    return value


def share(text: str) -> float:
    """A rate or share, 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give a share 0 to 1, not {text!r}") from None
    if not 0 <= value <= 1:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"a share is 0 to 1, not {text}")
    return value


def count(text: str) -> int:
    """How many of something: a whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"give a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"give 1 or more, not {value}")
    return value


def time_control(text: str):
    """A tournament time control, `45+0` (minutes + increment seconds)."""
    from damas.clock import parse_time_control
    from damas.rules import DamasError

    try:
        return parse_time_control(text)
    except DamasError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def board_url(text: str):
    """Where a board publishes in the tournament hall: mqtt://HOST[:PORT]/EVENT/ROUND/BOARD."""
    from damas.hall.topics import HallAddressError, parse_board_url

    try:
        return parse_board_url(text)
    except HallAddressError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def broker_url(text: str):
    """A broker: mqtt://HOST[:PORT] (1883 by default)."""
    from damas.hall.topics import HallAddressError, parse_broker

    try:
        return parse_broker(text)[0]
    except HallAddressError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def event_name(text: str) -> str:
    """An event's name as it appears in the hall's topics."""
    from damas.hall.topics import HallAddressError
    from damas.hall.topics import event_name as check

    try:
        return check(text)
    except HallAddressError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


MAX_NAME = 200  # characters: a player's or event's name, with room for any title


def name(text: str) -> str:
    """A name that goes into the record's tags: one line, of at most MAX_NAME characters."""
    problem = name_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def name_problem(text: str) -> str | None:
    """What is wrong with a name for the record's tags (too long, more than one line), or
    None: for the players' and event's names, and the hall address's event, round, board."""
    import re

    if len(text) > MAX_NAME:
        return f"a name is at most {MAX_NAME} characters, not {len(text)}"
    if re.search(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", text):
        return "a name is one line, without control characters"
    return None
