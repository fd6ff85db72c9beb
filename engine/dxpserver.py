"""`damas dxp --listen PORT`: an engine offered to DXP programs over TCP (127.0.0.1 only).

The remote side is the initiator: it asks for a game (`GAMEREQ`, with the colour we play
and maybe a setup position), we accept (`GAMEACC`), then each side sends its own moves
(`MOVE`). When a move ends the game by the rules we announce it (`GAMEEND`, from our
side: 1 we lose, 2 draw, 3 we win); a `GAMEEND` from the remote is answered with one,
unless it is the answer to ours. `BACKREQ` is accepted when the position asked for is in
the game. Games follow one another on a connection until the remote closes it or ends a
game with stop=1; connections are served one at a time.

A message DXP does not allow (malformed, a wrong length) ends that connection, with a
chat line saying why; the server goes on to the next one.

The player behind the server is any `Engine`: the built-in one for `damas dxp`, and the
same class lets a DXP program play the physical board.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

from damas.rules import Color, DamasError, Game, Position, Variant
from damas.rules import variant as get_variant

from .base import Engine
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
    ply_of,
)
from .errors import EngineCrashed, EngineError
from .limits import Limit

LOCALHOST = "127.0.0.1"


class DxpServer:
    def __init__(self, engine_factory: Callable[[], Engine], variant: Variant | str, *,
                 port: int = 0, limit: Limit | None = None, name: str = "damas"):
        self.engine_factory = engine_factory
        self.variant = get_variant(variant)
        self.limit = limit  # None: the time control of each game request
        self.name = name
        self._listener = socket.create_server((LOCALHOST, port))
        self.port = self._listener.getsockname()[1]
        self._closed = threading.Event()

    def serve_forever(self, connections: int | None = None) -> None:
        """Serve connections one after another (`connections` of them, or until close)."""
        served = 0
        while not self._closed.is_set() and (connections is None or served < connections):
            try:
                sock, addr = self._listener.accept()
            except OSError:
                break
            served += 1
            conn = Connection(sock, self.variant, f"{addr[0]}:{addr[1]}")
            engine = self.engine_factory()
            try:
                _Session(conn, engine, self).run()
            except EngineCrashed:
                pass  # the remote went away: wait for the next one
            except EngineError as e:  # it sent what DXP does not allow: that peer goes
                try:
                    conn.send(Chat(f"closing the connection: {e}"))
                except EngineError:
                    pass
            finally:
                engine.close()
                conn.close()

    def serve_in_thread(self, connections: int | None = None) -> threading.Thread:
        thread = threading.Thread(target=self.serve_forever, args=(connections,), daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        self._closed.set()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()


class _Session:
    """One connection: a series of games."""

    def __init__(self, conn: Connection, engine: Engine, server: DxpServer):
        self.conn, self.engine, self.server = conn, engine, server
        self.game: Game | None = None
        self.colour = Color.WHITE
        self.awaiting_end_echo = False
        self.clock: float | None = None  # seconds left, from the game request
        self.moves_per_control = 0

    def run(self) -> None:
        while True:
            msg = self.conn.receive(None, "waiting for the remote")
            if isinstance(msg, GameRequest):
                self.on_request(msg)
            elif isinstance(msg, MoveMessage):
                self.on_move(msg)
            elif isinstance(msg, GameEnd):
                if self.awaiting_end_echo:
                    self.awaiting_end_echo = False
                else:
                    self.conn.send(GameEnd(_our_view(msg.reason), msg.stop))
                self.game = None
                if msg.stop == 1:
                    return
            elif isinstance(msg, BackRequest):
                self.on_back(msg)
            # Chat and anything else: nothing to do

    def on_request(self, msg: GameRequest) -> None:
        start = msg.setup if msg.setup is not None else Position.start(self.server.variant)
        self.game = Game(start=start)
        self.colour = msg.follower_colour
        self.awaiting_end_echo = False
        self.clock = msg.minutes * 60.0 if msg.minutes else None
        self.moves_per_control = msg.moves
        self.engine.new_game()
        self.conn.send(GameAccept(self.server.name, 0))
        self._move_if_ours()

    def on_move(self, msg: MoveMessage) -> None:
        game = self.game
        if game is None or game.position.turn == self.colour:
            self.conn.send(Chat("move out of turn ignored"))
            return
        pos = game.position
        for m in pos.legal_moves():
            if (m.start, m.end) == (msg.start, msg.end) and set(m.captured) == set(msg.captured):
                game.push(m)
                break
        else:
            self.conn.send(Chat(f"illegal move {msg.start}-{msg.end} in {pos.fen()}"))
            self._announce_end(EndReason.UNKNOWN)
            return
        if not self._announce_if_over(game):
            self._move_if_ours()

    def on_back(self, msg: BackRequest) -> None:
        game = self.game
        target = ply_of(msg.move_number, msg.colour, game.start.turn) if game else -1
        if game is None or not 0 <= target <= game.ply:
            self.conn.send(BackAccept(1))
            return
        while game.ply > target:
            game.pop()
        self.conn.send(BackAccept(0))
        self._move_if_ours()

    def _move_if_ours(self) -> None:
        game = self.game
        if game is None or game.position.turn != self.colour:
            return
        started = time.monotonic()
        try:
            result = self.engine.play(game, self._limit(game))
        except EngineError as e:
            self.conn.send(Chat(f"engine failed: {e}"))
            self._announce_end(EndReason.UNKNOWN)
            return
        used = time.monotonic() - started
        if self.clock is not None:
            self.clock -= used
        move = result.move
        game.push(move)
        self.conn.send(MoveMessage(round(used), move.start, move.end, move.captured))
        self._announce_if_over(game)

    def _limit(self, game: Game) -> Limit:
        if self.server.limit is not None:
            return self.server.limit
        if self.clock is None:
            return Limit()
        if self.moves_per_control:
            our_moves = sum(1 for p in game.positions[:-1] if p.turn == self.colour)
            to_go = max(1, self.moves_per_control - our_moves)
            return Limit(time=max(0.05, self.clock), moves_to_go=to_go)
        return Limit(time=max(0.05, self.clock))

    def _announce_if_over(self, game: Game) -> bool:
        try:
            outcome = game.outcome()
        except DamasError:
            outcome = None
        if outcome is None:
            return False
        if outcome.winner is None:
            reason = EndReason.DRAW
        else:
            reason = EndReason.I_WIN if outcome.winner == self.colour else EndReason.I_LOSE
        self._announce_end(reason)
        return True

    def _announce_end(self, reason: int) -> None:
        self.conn.send(GameEnd(reason, 0))
        self.awaiting_end_echo = True
        self.game = None


def _our_view(reason: int) -> int:
    """The remote's reason seen from our side (its win is our loss)."""
    return {EndReason.I_LOSE: EndReason.I_WIN, EndReason.I_WIN: EndReason.I_LOSE}.get(
        reason, reason)
