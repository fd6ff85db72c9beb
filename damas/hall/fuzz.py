"""Hostile messages for the hall (`damas bench hall-fuzz`, and a small run in the tests):
honest boards' messages (games of random legal moves, their clocks, alerts and retained
states), then mutated, field by field and byte by byte, and random ones, all published
through a Mosquitto of our own to one broadcaster process (`damas broadcast`), as in a
hall. After each batch: is the broadcaster alive (its process, and its network loop: it
has had every message within two minutes), is `/state` strict JSON, does every
board's and round's PDN read back, and how much memory does it hold (peak resident)?
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from damas.rules import Game

from .bench import peak_mb
from .board import BoardState
from .mosquitto import Mosquitto
from .sim import wait_until

EVENT = "fuzz"
ROUNDS = ("1", "第一轮", "турнир")  # names in any script, in URLs and headers
HUGE_INT = int("9" * 400)
TROUBLE = [HUGE_INT, -HUGE_INT, 2 ** 63, 1e308, -0.0, "", "}", "{", "\n", "\x00", '"',
           "\\", "é", "第", "\u2028", "x" * 5000, "9" * 5000, [], {}, None, True, 0, -1,
           [[[[[[[[[[[]]]]]]]]]]], {"kind": "move"}, "1. 9-13 1-0", '"] [Event "x',
           "} 1. 9-13 1-0 {", "B:W28,29:B1-20", "99-100", "1" * 61]
# paho holds a message about three times over while it reads it, before the hall can look
# at its size: a hall's broker bounds it (Mosquitto's message_size_limit); here the
# largest message is the 10 MB of issue 45's own case
MAX_MESSAGE = 10 * 1024 * 1024
RAW = [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"9" * 400, b"9" * 5000]


def _json(data) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


def honest_board(rng: random.Random, instance: str, plies: int) -> list[tuple[str, bytes]]:
    """One board's messages, in order: its presence, then per event the event and the
    retained state after it (as damas.hall.publisher sends them)."""
    variant = rng.choice(("international", "english", "brazilian"))
    game = Game(variant)
    names = ("Ana", "Rui", "Zoë \"the hammer\"", "Łukasz", "王芳", "Иван \\ Petrov")
    tags = {"Event": EVENT, "White": rng.choice(names), "Black": rng.choice(names),
            "Round": "?", "Board": "?"}
    events = [{"kind": "game-start", "seq": 1, "wall": time.time(), "variant": variant,
               "fen": game.position.fen(), "tags": tags}]
    left = {"white": 600.0, "black": 600.0}
    for ply in range(1, plies + 1):
        if game.outcome() is not None:
            break
        game.push(rng.choice(game.legal_moves()))
        notation = game.notations()[-1]
        side = "white" if ply % 2 else "black"
        left[side] = round(left[side] - rng.uniform(1, 30), 1)
        clock = {**left, "running": "black" if side == "white" else "white",
                 "control": "10+0"}
        events.append({"kind": "move", "wall": time.time(), "notation": notation,
                       "fen": game.position.fen(), "ply": ply, "clock": clock,
                       "clock_comment": f"[%clock w0:0{int(left['white']) // 60}:00 "
                                        f"B0:0{int(left['black']) // 60}:00]"})
        if rng.random() < 0.1:
            events.append({"kind": "tracker-irregular", "wall": time.time(),
                           "article": "5.4.1", "message_en": "a piece moved twice",
                           "squares": [rng.randint(1, 32)]})
    messages = [("online", _json({"v": 1, "instance": instance, "online": True,
                                  "since": time.time()}))]
    state = BoardState("r/b")
    for seq, event in enumerate(events, start=1):
        event["seq"] = seq
        state.apply(seq, event)
        messages.append(("events", _json({"v": 1, "instance": instance, "seq": seq,
                                          "event": event})))
        messages.append(("state", _json({"v": 1, "instance": instance, "seq": seq,
                                         "state": state.snapshot()})))
    return messages


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def mutate(payload: bytes, rng: random.Random) -> bytes:
    """One to three edits of a message: a field replaced by a trouble-maker, removed or
    doubled, a number made huge or NaN, or the bytes themselves cut, spliced or flipped."""
    try:
        data = json.loads(payload)
    except ValueError:
        data = None
    if data is None or rng.random() < 0.25:
        raw = bytearray(payload)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(raw) + 1)
            op = rng.randrange(4)
            if op == 0 and raw:
                raw[min(i, len(raw) - 1)] = rng.randrange(256)
            elif op == 1:
                raw[i:i] = rng.choice(RAW)
            elif op == 2:
                del raw[i:i + rng.randint(1, 20)]
            else:
                raw[i:i] = raw[max(0, i - 30):i]
        return bytes(raw[:MAX_MESSAGE])
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(data) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        op = rng.randrange(5)
        if op == 0:
            parent[key] = copy.deepcopy(rng.choice(TROUBLE))
        elif op == 1 and isinstance(parent, dict):
            del parent[key]
        elif op == 2:
            parent[key] = [parent[key]] * rng.choice((2, 300))
        elif op == 3 and isinstance(parent[key], str):
            parent[key] = parent[key] * rng.choice((2, 100, 3000))
        else:
            parent[key] = rng.choice((math.nan, math.inf, HUGE_INT, -1, 0))
    return json.dumps(data, separators=(",", ":")).encode()[:MAX_MESSAGE]


def random_message(rng: random.Random) -> bytes:
    """A message from no board at all: JSON of any shape, or bytes."""
    def value(depth: int):
        kind = rng.randrange(7 if depth < 4 else 4)
        if kind == 0:
            return rng.choice(TROUBLE)
        if kind == 1:
            return rng.randint(-2 ** 70, 2 ** 70)
        if kind == 2:
            return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randint(0, 20)))
        if kind == 3:
            return rng.random() * 10 ** rng.randint(-5, 300)
        if kind == 4:
            return [value(depth + 1) for _ in range(rng.randint(0, 5))]
        keys = ("v", "instance", "seq", "event", "state", "online", "kind", "notation",
                "fen", "ply", "clock", "tags", "moves", "alerts", "wall", "record_pdn")
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randint(0, 6))}
    if rng.random() < 0.2:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
    data = value(0)
    if isinstance(data, dict) and rng.random() < 0.7:
        data["v"] = 1
        data["instance"] = rng.choice(("fuzz-a", "fuzz-b", "x"))
    return json.dumps(data, allow_nan=True).encode()


@dataclass
class Figures:
    messages: int = 0
    batches: int = 0
    stops: int = 0
    non_json_states: int = 0
    unreadable_pdns: int = 0
    peak_rss_mb: float = 0.0
    boards: int = 0
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"hall fuzz: {self.messages} messages in {self.batches} batches, "
                f"{self.stops} broadcaster stops, {self.non_json_states} non-JSON /state, "
                f"{self.unreadable_pdns} unreadable PDNs, peak RSS {self.peak_rss_mb:.1f} MB "
                f"({self.boards} boards)")


def _strict(text: str):
    def refuse(name):
        raise ValueError(name)
    return json.loads(text, parse_constant=refuse)


class _Caster:
    def __init__(self, url: str):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "damas", "broadcast", "--broker", url, "--event", EVENT,
             "--web", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        for line in self.process.stderr:
            match = re.match(r"hall page: (http://\S+)", line)
            if match:
                self.url = match[1].rstrip("/")
                break
        else:
            raise RuntimeError("the broadcaster did not start")
        # what it says goes on: read it so that the pipe never fills
        import threading

        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if len(self.lines) < 1000:
                self.lines.append(line.rstrip("\n"))

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path, timeout=20) as r:
            return r.read().decode()

    def peak_mb(self) -> float:
        return peak_mb(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _check(caster: _Caster, figures: Figures) -> None:
    from damas.rules import DamasError
    from damas.rules.pdn import read_pdn

    try:
        state = _strict(caster.get("/state"))
    except ValueError:
        figures.non_json_states += 1
        return
    figures.boards = len(state["boards"])
    rounds = set()
    for board in state["boards"]:
        rnd, name = board["board"].split("/")
        rounds.add(rnd)
        paths = [f"/board/{urllib.parse.quote(rnd)}/{urllib.parse.quote(name)}.pdn"]
        for path in paths:
            try:
                games = read_pdn(caster.get(path))
                if len(games) != 1:
                    raise DamasError(f"{len(games)} games")
            except (DamasError, OSError) as e:
                figures.unreadable_pdns += 1
                figures.problems.append(f"{path}: {e}")
    for rnd in rounds:
        path = f"/round/{urllib.parse.quote(rnd)}.pdn"
        try:
            games = read_pdn(caster.get(path))
            if len(games) != sum(1 for b in state["boards"]
                                 if b["board"].split("/")[0] == rnd):
                raise DamasError(f"{len(games)} games")
        except (DamasError, OSError) as e:
            figures.unreadable_pdns += 1
            figures.problems.append(f"{path}: {e}")


def _taken(caster: _Caster, sent: int) -> bool:
    """Whether the broadcaster has had every message sent (or is gone)."""
    if caster.process.poll() is not None:
        return True
    try:
        return _strict(caster.get("/stats.json"))["messages"] >= sent
    except (OSError, ValueError):
        return False


def run(messages: int, seed: int = 1, batch: int = 500, out=print) -> Figures:
    """`messages` hostile messages (in batches), most of them mutated honest ones."""
    import paho.mqtt.client as paho

    rng = random.Random(seed)
    figures = Figures()
    with Mosquitto() as broker:
        caster = _Caster(broker.url)
        sender = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="damas-fuzz")
        sender.max_inflight_messages_set(100)
        sender.connect(broker.broker.host, broker.broker.port)
        sender.loop_start()
        try:
            boards = [(rnd, str(n)) for rnd in ROUNDS for n in (1, 2)]
            honest = {b: honest_board(rng, f"inst-{i}", rng.randint(10, 60))
                      for i, b in enumerate(boards)}
            sent = 0
            while figures.messages < messages:
                size = min(batch, messages - figures.messages)
                infos = []
                for _ in range(size):
                    where = rng.choice(boards)
                    stream = honest[where]
                    kind, payload = rng.choice(stream)
                    roll = rng.random()
                    if roll < 0.25:  # an honest one, in any order, again and again
                        pass
                    elif roll < 0.9:
                        payload = mutate(payload, rng)
                    else:
                        payload = random_message(rng)
                    if rng.random() < 0.02:
                        where = (rng.choice(("x" * 150, "a b", "第二轮", "ok")),
                                 str(rng.randint(1, 10 ** 6)))
                    topic = f"damas/{EVENT}/{where[0]}/{where[1]}/{kind}"
                    infos.append(sender.publish(topic, payload, qos=1,
                                                retain=kind != "events"))
                    sent += 1
                for info in infos:
                    info.wait_for_publish(30)
                figures.messages += size
                figures.batches += 1
                # every message reached the broadcaster before it is judged
                try:
                    wait_until(lambda c=caster, n=sent: _taken(c, n), 120,
                               "the broadcaster to take every message")
                except TimeoutError:  # alive, but its network loop no longer runs
                    caster.stop()
                if caster.process.poll() is not None:
                    figures.stops += 1
                    out(f"the broadcaster stopped or took no more messages: "
                        f"{caster.lines[-5:]}")
                    caster, sent = _Caster(broker.url), 0
                    continue
                _check(caster, figures)
                figures.peak_rss_mb = max(figures.peak_rss_mb, caster.peak_mb())
                out(f"  {figures.messages} messages: {figures.line()}")
        finally:
            sender.loop_stop()
            sender.disconnect()
            caster.stop()
    return figures
