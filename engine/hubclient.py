"""A Hub engine (Scan, or `damas hub`) run as a subprocess behind the `Engine` interface.

Handshake: `hub` → `id …`, `param …`*, `wait`; then our `set-param`s, `init` → `ready`.
Each move: `new-game` when the game changed, `pos pos=<start> moves="…"` (the whole game,
so the engine sees repetitions), `level …` from the `Limit`, `go think` → `info …`* →
`done move=… [ponder=…]`.

Faults: if the engine says nothing for longer than the move should take plus a grace, it
is sent `stop`, then killed, and `play` raises EngineTimeout; if it dies, EngineCrashed;
an illegal answer, EngineIllegalMove. The caller's game is never touched, and the next
`play` starts a fresh process, so the game can go on.
"""

from __future__ import annotations

import threading
import time

from damas.rules import Game, Position, Variant
from damas.rules import variant as get_variant

from .base import Engine, InfoCallback, as_game, checked_move, position_to_play
from .errors import EngineProtocolError, EngineTimeout
from .hubwire import format_line, parse_line, position_to_hub, score_from_hub
from .limits import NO_LIMIT, Info, Limit, PlayResult
from .process import LineProcess

HANDSHAKE_TIMEOUT = 10.0  # seconds for `hub`…`wait` and `init`…`ready`
GRACE = 5.0  # seconds allowed beyond the move's time before `stop`, then again before kill
UNTIMED_THINK_TIMEOUT = 120.0  # a depth or node limit has no deadline of its own
VARIANT_NAMES = {"international": "normal"}  # Scan's name for the variant


class HubEngine(Engine):
    def __init__(self, command: list[str], variant: Variant | str = "international", *,
                 params: dict[str, str] | None = None, name: str | None = None,
                 handshake_timeout: float = HANDSHAKE_TIMEOUT, grace: float = GRACE,
                 untimed_timeout: float = UNTIMED_THINK_TIMEOUT, cwd: str | None = None):
        self.command = list(command)
        self.variant = get_variant(variant)
        self.params = dict(params or {})
        self.name = name or f"hub:{' '.join(self.command)}"
        self.handshake_timeout = handshake_timeout
        self.grace = grace
        self.untimed_timeout = untimed_timeout
        self.cwd = cwd
        self.id: dict[str, str] = {}
        self.engine_params: dict[str, dict[str, str]] = {}
        self._proc: LineProcess | None = None
        self._last_start: Position | None = None
        self._thinking = threading.Event()
        self._start()

    # --- process life -----------------------------------------------------------------

    def _start(self) -> None:
        proc = LineProcess(self.command, self.name, self.cwd)
        self._proc = proc
        self._last_start = None
        try:
            self._handshake(proc)
        except BaseException:
            proc.kill()
            self._proc = None
            raise

    def _handshake(self, proc: LineProcess) -> None:
        proc.send("hub", "starting")
        deadline = time.monotonic() + self.handshake_timeout
        while True:
            line = parse_line(proc.readline(deadline - time.monotonic(), "answering `hub`"))
            if line.command == "wait":
                break
            if line.command == "id":
                self.id = dict(line.args)
            elif line.command == "param" and "name" in line.args:
                self.engine_params[line.args["name"]] = dict(line.args)
        settings = dict(self.params)
        if "variant" in self.engine_params and "variant" not in settings:
            settings["variant"] = self._variant_value()
        for key, value in settings.items():
            proc.send(format_line("set-param", name=key, value=value), "setting parameters")
        proc.send("init", "initialising")
        while True:
            line = parse_line(proc.readline(deadline - time.monotonic(), "answering `init`"))
            if line.command == "ready":
                return
            if line.command == "error":
                raise EngineProtocolError(
                    f"engine {self.name} refused to start: {line.args.get('message', '')}")

    def _variant_value(self) -> str:
        values = self.engine_params["variant"].get("values", "").split()
        name = self.variant.name
        if name in values or not values:
            return name
        if VARIANT_NAMES.get(name) in values:
            return VARIANT_NAMES[name]
        raise EngineProtocolError(f"engine {self.name} plays {', '.join(values)}, not {name}")

    def _live(self) -> LineProcess:
        """The running process; a fresh one if the last one crashed or was killed."""
        if self._proc is None or not self._proc.alive:
            if self._proc is not None:
                self._proc.kill()
            self._start()
        return self._proc

    # --- Engine -----------------------------------------------------------------------

    def play(self, game: Game | Position, limit: Limit = NO_LIMIT,
             on_info: InfoCallback | None = None) -> PlayResult:
        game = as_game(game)
        position = position_to_play(game)
        proc = self._live()
        if self._last_start != game.start:
            proc.send("new-game", "starting a game")
            self._last_start = game.start
        moves = " ".join(m.hub for m in game.moves)
        proc.send(format_line("pos", pos=position_to_hub(game.start), moves=moves or None),
                  "receiving the position")
        proc.send(_level_line(limit), "receiving the time limit")
        proc.send("go think", "starting to think")
        self._thinking.set()
        try:
            return self._await_done(proc, position, limit, on_info)
        except EngineProtocolError:
            proc.kill()  # it may still be thinking: start clean at the next move
            self._proc = None
            raise
        finally:
            self._thinking.clear()

    def _await_done(self, proc: LineProcess, position: Position, limit: Limit,
                    on_info: InfoCallback | None) -> PlayResult:
        expected = _expected_seconds(limit)
        think = expected + self.grace if expected is not None else self.untimed_timeout
        deadline = time.monotonic() + think
        stopped = False
        last_info = None
        while True:
            try:
                text = proc.readline(deadline - time.monotonic(), "thinking")
            except EngineTimeout:
                if stopped:
                    proc.kill()
                    self._proc = None
                    raise EngineTimeout(
                        f"engine {self.name} did not answer a move within {think:.1f} s, nor "
                        f"{self.grace:.1f} s after `stop`; it was killed and will be restarted "
                        f"at the next move; the game is unchanged") from None
                proc.send("stop", "being stopped")
                stopped, deadline = True, time.monotonic() + self.grace
                continue
            line = parse_line(text)
            if line.command == "info":
                last_info = _info_from(line.args, position)
                if on_info is not None and last_info is not None:
                    on_info(last_info)
            elif line.command == "done":
                move = checked_move(position, line.args.get("move", ""), self.name)
                ponder = None
                if "ponder" in line.args:
                    after = position.play(move)
                    try:
                        ponder = after.parse_move(line.args["ponder"])
                    except Exception:
                        ponder = None
                return PlayResult(move, last_info, ponder)
            elif line.command == "error":
                raise EngineProtocolError(
                    f"engine {self.name}: {line.args.get('message', text)}")

    def stop(self) -> None:
        if self._proc is not None and self._thinking.is_set():
            try:
                self._proc.send("stop")
            except Exception:
                pass

    def ping(self, timeout: float = 5.0) -> float:
        """Round-trip time of `ping` → `pong`, in seconds (not while thinking)."""
        proc = self._live()
        started = time.monotonic()
        proc.send("ping", "being pinged")
        while True:
            line = parse_line(proc.readline(timeout - (time.monotonic() - started),
                                            "answering `ping`"))
            if line.command == "pong":
                return time.monotonic() - started

    def new_game(self) -> None:
        self._last_start = None

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.send("quit")
        except Exception:
            pass
        proc.terminate(grace=1.0)


def _level_line(limit: Limit) -> str:
    if limit.time is not None:
        return format_line("level", moves=limit.moves_to_go, time=_seconds(limit.time),
                           inc=_seconds(limit.inc) if limit.inc else None)
    if limit.movetime is not None:
        return format_line("level", move_time=_seconds(limit.movetime))
    if limit.depth is not None:
        return format_line("level", depth=limit.depth)
    if limit.nodes is not None:
        return format_line("level", nodes=limit.nodes)
    return format_line("level", move_time=1)


def _seconds(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".")


def _expected_seconds(limit: Limit) -> float | None:
    if limit.movetime is not None:
        return limit.movetime
    if limit.time is not None:
        return limit.time + limit.inc
    if limit.depth is None and limit.nodes is None:
        return 1.0  # the default `level move-time=1`
    return None


def _info_from(args: dict[str, str], position: Position) -> Info | None:
    try:
        depth = int(float(args.get("depth", "0")))
        nodes = int(float(args.get("nodes", "0")))
        seconds = float(args.get("time", "0"))
    except ValueError:
        return None
    pv_text = tuple(args.get("pv", "").split())
    pv, pos = [], position
    for text in pv_text:
        try:
            move = pos.parse_move(text)
        except Exception:
            break
        pv.append(move)
        pos = pos.play(move)
    notations, pos = [], position
    for move in pv:
        notations.append(pos.notation(move))
        pos = pos.play(move)
    return Info(depth, score_from_hub(args.get("score", "0")), nodes, seconds, tuple(pv),
                tuple(notations))
