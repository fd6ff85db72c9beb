"""A Hub engine (Scan, or `damas hub`) run as a subprocess behind the `Engine` interface.

Handshake: `hub` → `id …`, `param …`*, `wait`; then our `set-param`s, `init` → `ready`.
Each move: `new-game` when the game changed, `pos pos=<start> moves="…"` (the whole game,
so the engine sees repetitions), `level …` from the `Limit`, `go think` → `info …`* →
`done move=… [ponder=…]`.

That is Hub-2 (Scan 3.x). An engine that answers `hub` with `name …` lines instead of
`id name=…` speaks Hub-1 (Scan 2.0): the same life, its own lines (`hub1.py`); `params`
are then sent as `set <name> <value>` (Scan 2.0's settings of scan.ini).

Faults: if the engine says nothing for longer than the move should take plus a grace, it
is sent `stop`, then killed, and `play` raises EngineTimeout; if it dies, EngineCrashed;
an illegal answer, EngineIllegalMove. The caller's game is never touched, and the next
`play` starts a fresh process, so the game can go on.
"""

from __future__ import annotations

import threading
import time

from damas.rules import DamasError, Game, Position, Variant
from damas.rules import variant as get_variant
from damas.rules.geometry import clip

from . import hub1
from .base import Engine, InfoCallback, as_game, checked_move, position_to_play
from .errors import EngineProtocolError, EngineTimeout
from .hubwire import (
    format_line,
    info_with_pv,
    number,
    parse_line,
    position_to_hub,
    score_from_hub,
)
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
        self.dialect = 2  # Hub-2, or 1: told by the handshake
        self._proc: LineProcess | None = None
        self._last_start: Position | None = None
        self._thinking = threading.Event()
        self._start()

    # --- process life -----------------------------------------------------------------

    def _start(self) -> LineProcess:
        proc = LineProcess(self.command, self.name, self.cwd)
        self._proc = proc
        self._last_start = None
        try:
            self._handshake(proc)
        except BaseException:
            proc.kill()
            self._proc = None
            raise
        return proc

    def _handshake(self, proc: LineProcess) -> None:
        proc.send("hub", "starting")
        deadline = time.monotonic() + self.handshake_timeout
        old_names = {}
        while True:
            line = parse_line(proc.readline(deadline - time.monotonic(), "answering `hub`"))
            if line.command == "wait":
                break
            if line.command == "id":
                self.id = dict(line.args)
            elif line.command == "param" and "name" in line.args:
                self.engine_params[line.args["name"]] = dict(line.args)
            elif line.command in ("name", "author", "country") and not line.args:
                old_names[line.command] = " ".join(line.words)  # Hub-1: `name Scan 2.0`
        if old_names and not self.id:
            self.dialect, self.id = 1, old_names
            if self.variant.name != "international":
                raise EngineProtocolError(
                    f"engine {self.name} speaks Hub-1 (Scan 2.0), which plays international "
                    f"draughts only, not {self.variant.name}")
            for key, value in self.params.items():
                proc.send(f"set {key} {value}", "setting parameters")
        else:
            settings = dict(self.params)
            if "variant" in self.engine_params and "variant" not in settings:
                settings["variant"] = self._variant_value()
            for key, value in settings.items():
                proc.send(format_line("set-param", name=key, value=value),
                          "setting parameters")
        proc.send("init", "initialising")
        deadline = time.monotonic() + self.handshake_timeout  # loading tables takes time
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
        proc = self._proc
        if proc is None or not proc.alive:
            if proc is not None:
                proc.kill()
            proc = self._start()
        return proc

    # --- Engine -----------------------------------------------------------------------

    def play(self, game: Game | Position, limit: Limit = NO_LIMIT,
             on_info: InfoCallback | None = None) -> PlayResult:
        game = as_game(game)
        position = position_to_play(game)
        proc = self._live()
        if self._last_start != game.start:
            proc.send("new-game" if self.dialect == 2 else "new", "starting a game")
            self._last_start = game.start
        if self.dialect == 1:
            lines = [*hub1.position_lines(game), hub1.limit_line(limit), "go"]
        else:
            moves = " ".join(m.hub for m in game.moves)
            lines = [format_line("pos", pos=position_to_hub(game.start), moves=moves or None),
                     _level_line(limit), "go think"]
        *position_lines, level, go = lines
        for line in position_lines:
            proc.send(line, "receiving the position")
        proc.send(level, "receiving the time limit")
        proc.send(go, "starting to think")
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
            if self.dialect == 1:
                line = parse_line(text) if text.startswith("error") else None
                info = hub1.parse_info(text, position) if text.startswith("info ") else None
                answer = hub1.parse_answer(text)
            else:
                line = parse_line(text)
                info = _info_from(line.args, position) if line.command == "info" else None
                answer = ((line.args.get("move", ""), line.args.get("ponder"))
                          if line.command == "done" else None)
            if info is not None:
                last_info = info
                if on_info is not None:
                    on_info(info)
            elif answer is not None:
                move = checked_move(position, answer[0], self.name)
                ponder = None
                if answer[1] is not None:
                    try:
                        ponder = position.play(move).parse_move(answer[1])
                    except DamasError:
                        ponder = None
                return PlayResult(move, last_info, ponder)
            elif line is not None and line.command == "error":
                message = line.args.get("message") or " ".join(line.words) or text
                raise EngineProtocolError(f"engine {self.name}: {clip(message, 80)}")

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
    """An `info` line as an Info; None when its numbers are not numbers (it is only
    information: the move comes with `done`)."""
    try:
        depth = int(number(args.get("depth", "0"), "depth", 0, 10 ** 4))
        nodes = int(number(args.get("nodes", "0"), "nodes", 0, 10 ** 18))
        seconds = number(args.get("time", "0"), "time", 0, 10 ** 7)
    except EngineProtocolError:
        return None
    return info_with_pv(depth, score_from_hub(args.get("score", "0")), nodes, seconds,
                    args.get("pv", "").split(), position)
