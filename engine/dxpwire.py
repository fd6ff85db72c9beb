"""DXP (DamExchange) messages and the TCP connection that carries them.

Each message is ASCII ending with a NUL byte; the first letter says what it is. Colours
are `W` (white) and `Z` (black, "zwart"); squares are two digits.

>>> encode(MoveMessage(3, 32, 28, ()))
b'M0003322800\\x00'
>>> decode("M0012281903192324")
MoveMessage(seconds=12, start=28, end=19, captured=(19, 23, 24))
>>> decode("E20")
GameEnd(reason=2, stop=0)

A 10x10 setup is 50 squares; on 8x8 boards (not in the original protocol) we send 32.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass

from damas.rules import Color, DamasError, Position, Variant
from damas.rules.fen import write_fen
from damas.rules.geometry import clip

from .errors import EngineCrashed, EngineProtocolError, EngineTimeout

PROTOCOL_VERSION = 1
NAME_WIDTH = 32


@dataclass(frozen=True)
class GameRequest:
    name: str  # the initiator
    follower_colour: Color  # the colour the receiver of the request plays
    minutes: int  # thinking time for `moves` moves (0: not given)
    moves: int
    setup: Position | None = None  # None: the start position
    version: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class GameAccept:
    name: str
    code: int  # 0 accepted; 1 refused (other codes are other refusals)


@dataclass(frozen=True)
class MoveMessage:
    seconds: int  # time used for the move
    start: int
    end: int
    captured: tuple[int, ...]


class EndReason:
    UNKNOWN, I_LOSE, DRAW, I_WIN = 0, 1, 2, 3


@dataclass(frozen=True)
class GameEnd:
    reason: int  # EndReason, from the sender's side
    stop: int  # 0 a next game is welcome, 1 no next game


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class BackRequest:
    move_number: int  # go back to the position before this move number ...
    colour: Color  # ... with this side to move


@dataclass(frozen=True)
class BackAccept:
    code: int  # 0 accepted, 1 not supported, 2 continue the game


Message = GameRequest | GameAccept | MoveMessage | GameEnd | Chat | BackRequest | BackAccept

_COLOUR = {Color.WHITE: "W", Color.BLACK: "Z"}
_PIECE = {"w": "w", "b": "z", "W": "W", "B": "Z"}
_PIECE_BACK = {v: k for k, v in _PIECE.items()}


def encode(msg: Message) -> bytes:
    if isinstance(msg, GameRequest):
        text = (f"R{msg.version:02d}{msg.name[:NAME_WIDTH]:<{NAME_WIDTH}}"
                f"{_COLOUR[msg.follower_colour]}{msg.minutes % 1000:03d}{msg.moves % 1000:03d}")
        if msg.setup is None:
            text += "A"
        else:
            pieces = msg.setup.pieces()
            board = "".join(_PIECE[pieces[sq]] if sq in pieces else "e"
                            for sq in range(1, msg.setup.variant.squares + 1))
            text += "B" + _COLOUR[msg.setup.turn] + board
    elif isinstance(msg, GameAccept):
        text = f"A{msg.name[:NAME_WIDTH]:<{NAME_WIDTH}}{msg.code}"
    elif isinstance(msg, MoveMessage):
        text = (f"M{msg.seconds % 10000:04d}{msg.start:02d}{msg.end:02d}{len(msg.captured):02d}"
                + "".join(f"{s:02d}" for s in msg.captured))
    elif isinstance(msg, GameEnd):
        text = f"E{msg.reason}{msg.stop}"
    elif isinstance(msg, Chat):
        text = "C" + msg.text.replace("\0", " ")
    elif isinstance(msg, BackRequest):
        text = f"B{msg.move_number % 1000:03d}{_COLOUR[msg.colour]}"
    elif isinstance(msg, BackAccept):
        text = f"K{msg.code}"
    else:
        raise TypeError(f"not a DXP message: {msg!r}")
    return text.encode("ascii", "replace") + b"\0"


def _colour(ch: str) -> Color:
    if ch == "W":
        return Color.WHITE
    if ch == "Z":
        return Color.BLACK
    raise ValueError(f"colour {ch!r} is neither W nor Z")


_LENGTHS = {"A": 34, "E": 3, "B": 5, "K": 2}  # fixed-length messages; R and M vary


def _int(text: str, width: int) -> int:
    """A fixed-width field of ASCII digits (`int` alone takes " 7", "+7", "1_0", "٣")."""
    if len(text) != width or not (text.isascii() and text.isdigit()):
        raise ValueError(f"{text!r} is not {width} digits")
    return int(text)


def decode(text: str, variant: Variant | None = None) -> Message:
    """One message (without its NUL). A setup needs the variant to become a Position;
    EngineProtocolError for anything malformed, including a wrong length."""
    try:
        kind = text[:1]
        if kind in _LENGTHS and len(text) != _LENGTHS[kind]:
            raise ValueError(f"a {kind} message has {_LENGTHS[kind]} characters, not "
                             f"{len(text)}")
        if kind == "R":
            setup = None
            if text[42:43] == "B":
                if variant is None:
                    raise ValueError("a setup position needs the variant")
                if len(text) != 44 + variant.squares:
                    raise ValueError(f"a setup is a side and {variant.squares} squares")
                board = text[44:]
                pieces = {sq: _PIECE_BACK[c] for sq, c in enumerate(board, 1) if c != "e"}
                setup = _position(variant, pieces, _colour(text[43]))
            elif text[42:43] != "A" or len(text) != 43:
                raise ValueError("setup flag is neither A (43 characters) nor B")
            # the name is padded with spaces: only those are the padding (a tab is the name's)
            return GameRequest(text[3:35].rstrip(" "), _colour(text[35]), _int(text[36:39], 3),
                               _int(text[39:42], 3), setup, _int(text[1:3], 2))
        if kind == "A":
            return GameAccept(text[1:33].rstrip(" "), _int(text[33], 1))
        if kind == "M":
            n = _int(text[9:11], 2)
            if len(text) != 11 + 2 * n:
                raise ValueError(f"{n} captured squares make {11 + 2 * n} characters, not "
                                 f"{len(text)}")
            captured = tuple(_int(text[11 + 2 * i: 13 + 2 * i], 2) for i in range(n))
            return MoveMessage(_int(text[1:5], 4), _int(text[5:7], 2), _int(text[7:9], 2),
                               captured)
        if kind == "E":
            return GameEnd(_int(text[1], 1), _int(text[2], 1))
        if kind == "C":
            return Chat(text[1:])
        if kind == "B":
            return BackRequest(_int(text[1:4], 3), _colour(text[4]))
        if kind == "K":
            return BackAccept(_int(text[1], 1))
        raise ValueError("unknown message type")
    except (ValueError, IndexError, KeyError, DamasError) as e:
        raise EngineProtocolError(f"bad DXP message {clip(text, 60)!r}: {e}") from None


def _position(variant: Variant, pieces: dict[int, str], turn: Color) -> Position:
    """A setup, checked as a FEN is: no man on its crowning row, no side with more
    pieces than it starts with."""
    return Position.from_fen(write_fen(int(turn), pieces), variant)


class Connection:
    """Messages over a connected TCP socket, with time-outs on receiving."""

    def __init__(self, sock: socket.socket, variant: Variant, peer: str):
        self.sock = sock
        self.variant = variant
        self.peer = peer
        self._buffer = b""
        self.closed = False

    @classmethod
    def connect(cls, host: str, port: int, variant: Variant, timeout: float) -> Connection:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as e:
            raise EngineCrashed(f"cannot connect to the DXP engine at {host}:{port}: "
                                f"{e.strerror or e}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock, variant, f"{host}:{port}")

    def send(self, msg: Message) -> None:
        try:
            self.sock.sendall(encode(msg))
        except OSError as e:
            self.closed = True
            raise EngineCrashed(f"the DXP connection to {self.peer} is broken: {e}") from None

    def receive(self, timeout: float | None, doing: str) -> Message:
        """The next message; EngineTimeout after `timeout` s, EngineCrashed at the end."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if self.closed:
                raise EngineCrashed(f"the DXP peer {self.peer} closed the connection while "
                                    f"{doing}; the game is unchanged")
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            self.sock.settimeout(remaining)  # 0.0: just look at what has arrived
            try:
                chunk = self.sock.recv(4096)
            except (TimeoutError, BlockingIOError):
                if deadline is not None and time.monotonic() >= deadline:
                    raise EngineTimeout(f"the DXP peer {self.peer} said nothing for "
                                        f"{timeout:.1f} s while {doing}") from None
                continue
            except OSError as e:
                self.closed = True
                raise EngineCrashed(f"the DXP connection to {self.peer} broke while {doing}: "
                                    f"{e}; the game is unchanged") from None
            if not chunk:
                self.closed = True
                continue
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return decode(raw.decode("ascii", "replace"), self.variant)

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def move_number(ply: int, start_colour: Color) -> int:
    """DXP move number of the position `ply` half-moves after the game's start (move 1 is
    the first move; a move is White's then Black's, so a game started by Black has only
    Black's half in move 1)."""
    return (ply + int(start_colour)) // 2 + 1


def ply_of(number: int, colour: Color, start_colour: Color) -> int:
    """The inverse of `move_number`, given the side to move."""
    return 2 * (number - 1) + int(colour) - int(start_colour)
