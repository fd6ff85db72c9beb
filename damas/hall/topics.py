"""Hall addresses: `mqtt://HOST[:PORT]/EVENT/ROUND/BOARD` for a board, `mqtt://HOST[:PORT]`
for the broadcaster, and the topics under `damas/EVENT/ROUND/BOARD/`:

- `events`: every event of the board's game, QoS 1, numbered (`seq`), never retained;
- `state`: the board's whole game so far, QoS 1, retained (late joiners read it first);
- `online`: retained presence, `false` set by the broker's last will when a board drops.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from damas.rules import DamasError

DEFAULT_PORT = 1883
ROOT = "damas"
KINDS = ("events", "state", "online")


class HallAddressError(DamasError):
    pass


@dataclass(frozen=True)
class Broker:
    host: str
    port: int = DEFAULT_PORT

    def __str__(self) -> str:
        return f"mqtt://{self.host}:{self.port}"


@dataclass(frozen=True)
class BoardAddress:
    broker: Broker
    event: str
    round: str
    board: str

    @property
    def name(self) -> str:
        """`round/board`: how the hall names a board within its event."""
        return f"{self.round}/{self.board}"

    def topic(self, kind: str) -> str:
        return f"{ROOT}/{self.event}/{self.round}/{self.board}/{kind}"

    def __str__(self) -> str:
        return f"{self.broker}/{self.event}/{self.round}/{self.board}"


def _level(text: str, what: str, url: str) -> str:
    """One topic level: MQTT's wildcards and separators cannot be part of a name. It
    goes into the record's tags (Event, Round, Board) and the spool's name too: a name's
    bounds (damas.argtypes) apply."""
    from damas.argtypes import name_problem

    name = unquote(text)
    problem = name_problem(name)
    if problem is not None:
        where = url if len(url) <= 120 else f"{url[:100]}..."
        raise HallAddressError(f"{where}: the {what}: {problem}")
    if not name or any(c in name for c in "+#/\0") or name != name.strip():
        raise HallAddressError(f"{url}: the {what} {name!r} cannot be an MQTT topic level "
                               "(no + # / or spaces around it)")
    return name


def parse_broker(url: str, path_allowed: bool = False) -> tuple[Broker, list[str]]:
    """The broker of an `mqtt://` URL and the levels of its path."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise HallAddressError(f"{url}: not a broker address ({e}); write "
                               "mqtt://HOST[:PORT]") from None
    if parts.scheme != "mqtt":
        raise HallAddressError(f"{url}: a broker address starts with mqtt:// (TLS and "
                               "websockets are not supported)")
    if not parts.hostname:
        raise HallAddressError(f"{url}: the broker's host is missing; write mqtt://HOST[:PORT]")
    if parts.username or parts.query or parts.fragment:
        raise HallAddressError(f"{url}: no user, query or fragment in a broker address")
    levels = [p for p in parts.path.split("/") if p] if parts.path else []
    if levels and not path_allowed:
        raise HallAddressError(f"{url}: the broker's address has no path (the event is "
                               "given with --event)")
    if port == 0:
        raise HallAddressError(f"{url}: port 0 is no broker's port")
    return Broker(parts.hostname, port or DEFAULT_PORT), levels


def parse_board_url(url: str) -> BoardAddress:
    """`mqtt://HOST[:PORT]/EVENT/ROUND/BOARD`, every part checked."""
    broker, levels = parse_broker(url, path_allowed=True)
    if len(levels) != 3:
        raise HallAddressError(f"{url}: a board publishes to mqtt://HOST[:PORT]/EVENT/ROUND/"
                               f"BOARD (found {len(levels)} path parts, not 3)")
    event, rnd, board = (_level(t, w, url) for t, w in zip(levels, ("event", "round", "board"),
                                                             strict=True))
    return BoardAddress(broker, event, rnd, board)


def event_name(text: str) -> str:
    return _level(text, "event", "--event")


def split_topic(topic: str, event: str) -> tuple[str, str, str] | None:
    """(round, board, kind) of one of our topics under `event`, else None."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[1] != event or parts[4] not in KINDS:
        return None
    return parts[2], parts[3], parts[4]
