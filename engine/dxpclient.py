"""A DXP engine over TCP behind the `Engine` interface: damas is the initiator.

DXP is a conversation about one game, not a question per move, so the client keeps the
remote game in step with the caller's `Game`:

- no game yet, or the caller's game went elsewhere: `GAMEEND` (if a game is on), then
  `GAMEREQ` with the current position as the setup and the side to move as the remote's
  colour, and wait for `GAMEACC`;
- the caller's game is the remote game plus moves of our side: send them (`MOVE`);
- the caller took moves back (and maybe played others of our side): `BACKREQ` to where
  the two games part, then our moves; if the remote refuses, start again from a setup.

Then wait for the remote's `MOVE`. A `GAMEEND` instead of a move is the remote ending the
game (resigning, claiming a draw or a win, or reaching the move count of the game
request, as Scan 2.0 does): `play` raises EngineEndedGame with the claim, a result for
the caller to record; the connection stays for the next game.

The game request announces the time control: a clock as its minutes (whole minutes, at
least one, rounded down so the remote never thinks it has more than it has) and 0
moves, the whole game; DXP has no increment. A move time has no DXP form: it is
announced as `GAME_MOVES` moves in that many move times, which a remote like Scan takes
as the length of the game. Clocks are what DXP engines are made for.

Faults: a refused connection or a closed one raise EngineCrashed, silence EngineTimeout,
a move that is not legal EngineIllegalMove. In every case the caller's game is unchanged
and the next `play` reconnects and sets the position up again, so the game goes on.
"""

from __future__ import annotations

import math
import time

from damas.rules import Color, Game, Move, Position, Variant
from damas.rules import variant as get_variant

from .base import Engine, InfoCallback, as_game, checked_move, position_to_play
from .dxpwire import (
    BackAccept,
    BackRequest,
    Chat,
    Connection,
    EndReason,
    GameAccept,
    GameEnd,
    GameRequest,
    MoveMessage,
    move_number,
)
from .errors import (
    EngineEndedGame,
    EngineError,
    EngineIllegalMove,
    EngineProtocolError,
    EngineTimeout,
)
from .limits import NO_LIMIT, Info, Limit, PlayResult

CONNECT_TIMEOUT = 5.0
ANSWER_TIMEOUT = 10.0  # for GAMEACC, BACKACC and GAMEEND replies
GRACE = 5.0  # beyond the expected thinking time
UNTIMED_THINK_TIMEOUT = 120.0
GAME_MOVES = 50  # moves announced in GAMEREQ when a move time is given
CLAIMS = {EndReason.UNKNOWN: "unknown", EndReason.I_LOSE: "loss", EndReason.DRAW: "draw",
          EndReason.I_WIN: "win"}


class DxpEngine(Engine):
    def __init__(self, host: str, port: int, variant: Variant | str = "international", *,
                 name: str | None = None, our_name: str = "damas",
                 connect_timeout: float = CONNECT_TIMEOUT,
                 answer_timeout: float = ANSWER_TIMEOUT, grace: float = GRACE,
                 untimed_timeout: float = UNTIMED_THINK_TIMEOUT):
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise EngineError(f"DXP connects to this machine only (127.0.0.1), not {host!r}")
        self.host, self.port = host, int(port)
        self.variant = get_variant(variant)
        self.name = name or f"dxp:{host}:{port}"
        self.our_name = our_name
        self.connect_timeout = connect_timeout
        self.answer_timeout = answer_timeout
        self.grace = grace
        self.untimed_timeout = untimed_timeout
        self.remote_name = ""
        self._conn: Connection | None = None
        self._reset_game()

    def _reset_game(self) -> None:
        self._origin: Position | None = None  # where the remote game started
        self._origin_index = 0  # ... as an index in the caller's game.positions
        self._moves: list[Move] = []  # moves since then that both sides know
        self._remote_colour = Color.WHITE

    # --- Engine -----------------------------------------------------------------------

    def play(self, game: Game | Position, limit: Limit = NO_LIMIT,
             on_info: InfoCallback | None = None) -> PlayResult:
        game = as_game(game)
        position = position_to_play(game)
        conn = self._connection()
        try:
            started = time.monotonic()
            self._sync(conn, game, limit)
            move = self._await_move(conn, position, limit)
        except EngineError:
            self._drop()  # whatever happened, start clean at the next move
            raise
        self._moves.append(move)
        seconds = time.monotonic() - started
        info = Info(0, 0, 0, seconds, (move,), (position.notation(move),))
        return PlayResult(move, info)

    def new_game(self) -> None:
        if self._conn is not None and self._origin is not None:
            try:
                self._end_game(self._conn)
            except EngineError:
                self._drop()
        self._reset_game()

    def close(self) -> None:
        if self._conn is not None:
            try:
                if self._origin is not None:
                    self._conn.send(GameEnd(EndReason.UNKNOWN, 1))
            except EngineError:
                pass
        self._drop()

    # --- keeping the remote game in step ----------------------------------------------

    def _connection(self) -> Connection:
        if self._conn is None or self._conn.closed:
            self._drop()
            self._conn = Connection.connect(self.host, self.port, self.variant,
                                            self.connect_timeout)
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._reset_game()

    def _sync(self, conn: Connection, game: Game, limit: Limit) -> None:
        self._handle_pending(conn)
        origin = self._origin
        if origin is not None:
            i = self._origin_index
            if i < len(game.positions) and game.positions[i] == origin:
                played = game.moves[i:]
                known = self._moves
                common = 0
                while (common < min(len(known), len(played))
                       and known[common] == played[common]):
                    common += 1
                extra = range(i + common, len(game.moves))
                ours_only = all(game.positions[j].turn != self._remote_colour for j in extra)
                if game.position.turn == self._remote_colour and ours_only and (
                        common == len(known) or self._take_back(conn, origin, common)):
                    for j in extra:
                        m = game.moves[j]
                        conn.send(MoveMessage(0, m.start, m.end, m.captured))
                        known.append(m)
                    return
            self._end_game(conn)
        self._start_game(conn, game, limit)

    def _start_game(self, conn: Connection, game: Game, limit: Limit) -> None:
        position = game.position
        setup = None if position == Position.start(self.variant) else position
        minutes, moves = _time_control(limit)
        conn.send(GameRequest(self.our_name, position.turn, minutes, moves, setup))
        reply = self._answer(conn, GameAccept, "answering the game request")
        if reply.code != 0:
            raise EngineProtocolError(f"DXP engine {self.name} refused the game "
                                      f"(code {reply.code})")
        self.remote_name = reply.name
        self._origin, self._origin_index = position, len(game.positions) - 1
        self._moves, self._remote_colour = [], position.turn

    def _take_back(self, conn: Connection, origin: Position, keep: int) -> bool:
        """Ask the remote to go back to `keep` moves after `origin`."""
        pos = origin
        colour = Color((int(pos.turn) + keep) % 2)
        conn.send(BackRequest(move_number(keep, pos.turn), colour))
        reply = self._answer(conn, BackAccept, "answering the back request")
        if reply.code != 0:
            return False
        del self._moves[keep:]
        return True

    def _end_game(self, conn: Connection) -> None:
        """Announce the end of the current game and wait (briefly) for the echo."""
        if self._origin is None:
            return
        conn.send(GameEnd(EndReason.UNKNOWN, 0))
        self._reset_game()
        try:
            self._answer(conn, GameEnd, "confirming the end of the game")
        except EngineTimeout:
            pass  # an echo is courtesy; the next request starts afresh anyway

    def _handle_pending(self, conn: Connection) -> None:
        """Messages that arrived since the last move: the remote may have ended the game."""
        while True:
            try:
                msg = conn.receive(0.0, "idle")
            except EngineTimeout:
                return
            self._side_message(conn, msg)

    def _side_message(self, conn: Connection, msg) -> None:
        if isinstance(msg, GameEnd):
            conn.send(GameEnd(EndReason.UNKNOWN, 0))  # confirm, as the protocol asks
            self._reset_game()
        elif isinstance(msg, BackRequest):
            conn.send(BackAccept(1))  # the caller's game is the reference: no going back

    def _answer(self, conn: Connection, kind: type, doing: str):
        """The next message of type `kind`, skipping chat."""
        deadline = time.monotonic() + self.answer_timeout
        while True:
            msg = conn.receive(deadline - time.monotonic(), doing)
            if isinstance(msg, kind):
                return msg
            if isinstance(msg, Chat):
                continue
            if kind is not GameEnd:
                self._side_message(conn, msg)
                if isinstance(msg, GameEnd):
                    raise EngineProtocolError(
                        f"DXP engine {self.name} ended the game while {doing}")

    def _await_move(self, conn: Connection, position: Position, limit: Limit) -> Move:
        expected = _expected_seconds(limit)
        timeout = expected + self.grace if expected is not None else self.untimed_timeout
        deadline = time.monotonic() + timeout
        while True:
            msg = conn.receive(deadline - time.monotonic(), "thinking")
            if isinstance(msg, MoveMessage):
                return self._legal(position, msg)
            if isinstance(msg, GameEnd):
                moves = len(self._moves) // 2
                self._side_message(conn, msg)
                claim = CLAIMS.get(msg.reason, "unknown")
                said = {"loss": "resigned", "draw": "claims a draw", "win": "claims a win",
                        "unknown": "gave no result"}[claim]
                raise EngineEndedGame(f"DXP engine {self.name} ended the game after {moves} "
                                      f"moves: it {said}", claim)
            if not isinstance(msg, Chat):
                self._side_message(conn, msg)

    def _legal(self, position: Position, msg: MoveMessage) -> Move:
        for m in position.legal_moves():
            if (m.start, m.end) == (msg.start, msg.end) and set(m.captured) == set(msg.captured):
                return checked_move(position, m, self.name)
        text = f"{msg.start}{'x' if msg.captured else '-'}{msg.end}" + "".join(
            f"x{s}" for s in msg.captured)
        raise EngineIllegalMove(f"DXP engine {self.name} answered {text}, which is not a legal "
                                f"move in {position.fen()}; the game is unchanged")


def _time_control(limit: Limit) -> tuple[int, int]:
    """(minutes, moves) announced in GAMEREQ (see the module's docstring)."""
    if limit.time is not None:
        return max(1, math.floor(limit.time / 60 + 1e-9)), limit.moves_to_go or 0
    if limit.movetime is not None:
        return max(1, math.ceil(limit.movetime * GAME_MOVES / 60)), GAME_MOVES
    return 0, 0


def _expected_seconds(limit: Limit) -> float | None:
    if limit.movetime is not None:
        return limit.movetime
    if limit.time is not None:
        return limit.time + limit.inc
    return None
