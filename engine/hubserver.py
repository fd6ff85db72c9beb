"""`damas hub`: the built-in engine offered to Hub GUIs on stdin/stdout.

The main loop reads commands; `go` starts the search in a thread, so `stop`, `ping` and
`ponder-hit` are answered while it thinks. Every line written goes through one lock.

Parameters offered: `variant` (international, brazilian, english) and `level` (1-10).
With `go ponder` or `go analyze` the search runs until `stop` (or, for ponder, until
`ponder-hit`, after which the `level` set for the move applies).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from damas.rules import DamasError, Game, Position, variant
from damas.rules.geometry import clip

from .builtin import BuiltinEngine
from .errors import EngineProtocolError
from .hubwire import format_line, number, parse_line, position_from_hub, score_to_hub
from .levels import DEFAULT_LEVEL
from .limits import Info, Limit
from .timecontrol import budget

ENGINE_ID = {"name": "damas", "version": "0.1", "author": "damas contributors",
             "country": "Brazil"}
VARIANTS = ("international", "brazilian", "english")
INFINITE_SECONDS = 10 ** 6  # "until stop": a deadline no game reaches
MAX_SECONDS = 10 ** 6  # a time in a `level` line (eleven days)
LEVEL_NUMBERS = {"depth": (1, 200, True), "nodes": (1, 10 ** 12, True),
                 "moves": (1, 1000, True), "move-time": (0.001, MAX_SECONDS, False),
                 "time": (0, MAX_SECONDS, False), "inc": (0, MAX_SECONDS, False)}


class HubServer:
    def __init__(self, inp: TextIO = sys.stdin, out: TextIO = sys.stdout,
                 variant_name: str = "international", level: int = DEFAULT_LEVEL):
        self.inp, self.out = inp, out
        self.variant_name = variant_name
        self.level = level
        self.engine: BuiltinEngine | None = None
        self.game: Game | None = None
        self.limit = Limit(movetime=1.0)
        self.ponder_limit: Limit | None = None
        self._write_lock = threading.Lock()
        self._thinker: threading.Thread | None = None

    def write(self, line: str) -> None:
        with self._write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, message: str) -> None:
        self.write(format_line("error", message=message))

    # --- the loop ---------------------------------------------------------------------

    def serve(self) -> int:
        for raw in self.inp:
            try:
                line = parse_line(raw)
            except DamasError as e:
                self.error(str(e))
                continue
            if line.command == "quit":
                break
            handler = getattr(self, "on_" + line.command.replace("-", "_"), None)
            if handler is None:
                continue  # unknown commands are ignored (protocol rule)
            try:
                handler(line)
            except DamasError as e:
                self.error(str(e))
            except (ValueError, KeyError) as e:  # a malformed number or a missing key
                self.error(f"bad {line.command} command: {e}")
        self.on_stop(None)
        return 0

    def on_hub(self, line) -> None:
        self.write(format_line("id", **ENGINE_ID))
        self.write(format_line("param", name="variant", value=self.variant_name, type="enum",
                               values=" ".join(VARIANTS)))
        self.write(format_line("param", name="level", value=self.level, type="int", min=1,
                               max=10))
        self.write("wait")

    def on_set_param(self, line) -> None:
        name, value = line.args.get("name"), line.args.get("value", "")
        if name == "variant":
            wanted = "international" if value == "normal" else value
            variant(wanted)  # raises on an unknown name, before anything changes
            self.variant_name, self.engine = wanted, None
        elif name == "level":
            self.level = int(number(value, "level", 1, 10, integer=True))
            self.engine = None

    def on_init(self, line) -> None:
        self._engine()
        self.write("ready")

    def on_ping(self, line) -> None:
        self.write("pong")

    def on_new_game(self, line) -> None:
        self.on_stop(None)
        self._engine().new_game()

    def on_pos(self, line) -> None:
        self.on_stop(None)
        v = variant(self.variant_name)
        start = (position_from_hub(line.args["pos"], v) if "pos" in line.args
                 else Position.start(v))
        game = Game(start=start)
        for text in line.args.get("moves", "").split():
            game.push(text)
        self.game = game

    def on_level(self, line) -> None:
        """Every number given is checked, used or not: a malformed one is an error."""
        a = line.args
        n = {key: number(a[key], key, lo, hi, integer)
             for key, (lo, hi, integer) in LEVEL_NUMBERS.items() if key in a}
        if "infinite" in line.words:
            self.limit = Limit(movetime=INFINITE_SECONDS)
        elif "depth" in n:
            self.limit = Limit(depth=int(n["depth"]))
        elif "move-time" in n:
            self.limit = Limit(movetime=n["move-time"])
        elif "nodes" in n:
            self.limit = Limit(nodes=int(n["nodes"]))
        elif "time" in n:
            self.limit = Limit(time=n["time"], inc=n.get("inc", 0.0),
                               moves_to_go=int(n["moves"]) if "moves" in n else None)
        else:
            raise EngineProtocolError(f"level {' '.join(f'{k}={clip(v)}' for k, v in a.items())}"
                                      ": give depth, move-time, nodes, time or infinite")

    def on_go(self, line) -> None:
        self.on_stop(None)
        if self.game is None:
            self.game = Game(variant(self.variant_name))
        if not self.game.position.legal_moves():
            self.error("no legal move in this position")
            return
        mode = line.words[0] if line.words else "think"
        limit = self.limit
        if mode in ("ponder", "analyze"):
            self.ponder_limit = self.limit if mode == "ponder" else None
            limit = Limit(movetime=INFINITE_SECONDS)
        engine, game = self._engine(), self.game
        self._thinker = threading.Thread(target=self._think, args=(engine, game, limit),
                                         daemon=True)
        self._thinker.start()

    def on_ponder_hit(self, line) -> None:
        """From pondering to thinking: the move's own time starts now."""
        if self.engine is not None and self.ponder_limit is not None:
            soft, hard = budget(self.ponder_limit)
            if soft is not None and hard is not None:  # both or neither
                now = time.perf_counter()
                self.engine.search.set_deadlines(now + soft, now + hard)
            self.ponder_limit = None

    def on_stop(self, line) -> None:
        thinker = self._thinker
        while thinker is not None and thinker.is_alive() and self.engine is not None:
            self.engine.stop()  # again until it ends: a search just starting clears the flag
            thinker.join(0.05)
        self._thinker = None

    # --- helpers ----------------------------------------------------------------------

    def _engine(self) -> BuiltinEngine:
        if self.engine is None:
            self.engine = BuiltinEngine(self.variant_name, level=self.level)
        return self.engine

    def _think(self, engine: BuiltinEngine, game: Game, limit: Limit) -> None:
        try:
            result = engine.play(game, limit, on_info=self._send_info)
        except DamasError as e:
            self.error(str(e))
            return
        ponder = result.ponder.hub if result.ponder is not None else None
        self.write(format_line("done", move=result.move.hub, ponder=ponder))

    def _send_info(self, info: Info) -> None:
        self.write(format_line("info", depth=info.depth, score=score_to_hub(info.score),
                               nodes=info.nodes, time=f"{info.seconds:.3f}", nps=info.nps,
                               pv=" ".join(m.hub for m in info.pv)))


def serve_hub(variant_name: str = "international", level: int = DEFAULT_LEVEL,
              inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    return HubServer(inp, out, variant_name, level).serve()
