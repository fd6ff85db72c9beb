"""The hall's side: one subscriber to every board of an event (`damas/EVENT/+/+/+`).

Per board it keeps the game rebuilt from the events (damas.hall.board) and the number of
the last event applied: an event at or below it is a second copy (dropped), one beyond
the next is held until the ones before it come, and the board's retained `state` (the
game so far) puts it right at once when it is ahead, which is how a broadcaster that
starts late, restarts, or missed messages while the broker restarted has the full state.
Nothing else is kept, so a broadcaster can be started anywhere at any time.

Bad input never touches the other boards: a message that is not ours (not JSON, wrong
fields, a move that is not legal) is dropped with one line naming the board, and a
second board publishing under an id another board already uses is ignored, also said in
one line, until the first one goes offline.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable

from . import schema
from .board import BadEvent, BoardState
from .mqtt import KEEPALIVE, BrokerError, client, reachable, refusal
from .topics import Broker, split_topic

MAX_HELD = 10_000  # events held per board while an earlier one is missing
HELD_BYTES = 2 * 1024 * 1024  # and their size, per board (as received: kept as bytes)
HALL_HELD_BYTES = 8 * 1024 * 1024  # every board's together
MAX_BOARDS = 5000  # of one event: more is a flood of made-up names, not a hall
MAX_NAME = 100  # a round's or board's name, in characters
KEEP_LATENCIES = 200_000


class BoardEntry:
    def __init__(self, name: str):
        self.start_over(name)

    def start_over(self, name: str) -> None:
        """Forget the board's game, its owner and what is held: another board took over."""
        self.state = BoardState(name)
        self.instance: str | None = None
        self.online: bool | None = None
        self.presence: dict[str, bool] = {}  # instance -> online, whoever claims the id
        self.held: dict[int, bytes] = {}  # seq -> event message, beyond a missing one
        self.held_bytes = 0
        self.overflowed = False  # said once until nothing is held again
        self.intruders: set[str] = set()  # other instances that claimed this board's id


def _natural(name: str) -> list:
    """`r2/10` after `r2/9`."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


class Hall:
    """Every board of one event, fed the broker's messages (from any thread)."""

    def __init__(self, event: str, out: Callable[[str], None] = print,
                 resync: Callable[[str], None] = lambda name: None):
        self.event = event
        self.out = out
        self.resync = resync  # asks the broker for a board's retained state again
        self.held_bytes = 0
        self.boards: dict[str, BoardEntry] = {}
        self.alerts: deque = deque(maxlen=1000)  # for the arbiter, every board's
        self.problems: deque = deque(maxlen=200)  # the hall's own: garbage, duplicate ids
        self.counts = {"messages": 0, "events": 0, "duplicates": 0, "held": 0,
                       "snapshots": 0, "garbage": 0, "moves": 0, "overflows": 0,
                       "failures": 0}
        self.latencies: deque = deque(maxlen=KEEP_LATENCIES)  # seconds, move -> PDN here
        self.lock = threading.Lock()
        self.version = 0
        self._listeners: list[Callable[[], None]] = []

    def listen(self, callback: Callable[[], None]) -> None:
        self._listeners.append(callback)

    # --- messages -----------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes) -> None:
        where = split_topic(topic, self.event)
        if where is None:
            return  # not one of this event's topics
        rnd, board, kind = where
        name = f"{rnd}/{board}"
        with self.lock:
            self.counts["messages"] += 1
            entry = self.boards.get(name)
            if entry is None:
                if not self._new_board_allowed(rnd, board):
                    return
                entry = self.boards[name] = BoardEntry(name)
            try:
                message = schema.loads(payload, kind)
                if kind == "online":  # presence is kept per instance, claimed or not
                    schema.fields(message, kind)
                if self._claimed(entry, message, kind):
                    schema.fields(message, kind)
                    if kind == "events":
                        self._events(entry, message, payload)
                    else:
                        getattr(self, f"_{kind}")(entry, message)
            except BadEvent as e:
                self.counts["garbage"] += 1
                self._problem(f"board {schema.said(name, 80)}: {e}: message dropped")
            self.version += 1
        for listener in list(self._listeners):
            listener()

    def _new_board_allowed(self, rnd: str, board: str) -> bool:
        """A board's name is kept for the whole event: bounded in length and number."""
        if (len(rnd) > MAX_NAME or len(board) > MAX_NAME
                or schema.CONTROL.search(rnd + board)):
            self.counts["garbage"] += 1
            self._problem(f"a message under the board name {schema.said(f'{rnd}/{board}', 80)!r}"
                          f" (at most {MAX_NAME} characters a part, no control characters): "
                          "dropped")
            return False
        if len(self.boards) >= MAX_BOARDS:
            self.counts["garbage"] += 1
            self._problem(f"a message for a board beyond the {MAX_BOARDS} this hall keeps "
                          f"({schema.said(f'{rnd}/{board}', 80)}): dropped")
            return False
        return True

    def _claimed(self, entry: BoardEntry, message: dict, kind: str) -> bool:
        """Whether the message comes from the board that has this id (see the module's
        docstring); a new instance takes over a board that went offline or never began."""
        instance = message["instance"]
        if kind == "online":  # presence never claims a board; it is kept per instance
            entry.presence[instance] = message["online"]
            if entry.instance is None or entry.instance == instance:
                return True
            if message["online"] is True and instance not in entry.intruders:
                entry.intruders.add(instance)
                self._problem(f"board {entry.state.name}: a second board ({instance}) came "
                              f"online under this board's id, which {entry.instance} has: "
                              "give it its own board number")
            return False
        if entry.instance is None or entry.instance == instance:
            if entry.instance is None:
                entry.online = entry.presence.get(instance)
            entry.instance = instance
            return True
        if entry.online is False or entry.state.game is None:
            self._problem(f"board {entry.state.name}: a new board ({instance}) took over "
                          f"from {entry.instance}, which is offline")
            presence = entry.presence
            entry.start_over(entry.state.name)  # the old board's game is over here
            entry.instance, entry.presence = instance, presence
            entry.online = presence.get(instance)
            return True
        if instance not in entry.intruders:
            entry.intruders.add(instance)
            self._problem(f"board {entry.state.name}: a second board ({instance}) publishes "
                          f"under this board's id, which {entry.instance} has: its messages "
                          "are ignored; give it its own board number")
        return False

    def _events(self, entry: BoardEntry, message: dict, payload: bytes) -> None:
        seq, event = message["seq"], message["event"]
        self.counts["events"] += 1
        if seq <= entry.state.seq or seq in entry.held:
            self.counts["duplicates"] += 1
            return
        if seq > entry.state.seq + 1:
            self._hold(entry, seq, payload)
            return
        self._apply(entry, seq, event)
        self._drain(entry)

    def _hold(self, entry: BoardEntry, seq: int, payload: bytes) -> None:
        """Keeps an event that came before an earlier one, within the bounds: when they
        are reached, the events furthest ahead go first (the nearest are the ones the
        board needs next); the overflow is said once, and the broker is asked for the
        board's retained state, which has whatever was let go."""
        size = len(payload)
        while entry.held and (len(entry.held) >= MAX_HELD
                              or entry.held_bytes + size > HELD_BYTES
                              or self.held_bytes + size > HALL_HELD_BYTES):
            furthest = max(entry.held)
            if furthest < seq:
                break
            self._let_go(entry, furthest)
        if (len(entry.held) >= MAX_HELD or entry.held_bytes + size > HELD_BYTES
                or self.held_bytes + size > HALL_HELD_BYTES):
            self._overflow(entry)
            return
        entry.held[seq] = payload
        entry.held_bytes += size
        self.held_bytes += size
        self.counts["held"] += 1

    def _let_go(self, entry: BoardEntry, seq: int) -> None:
        payload = entry.held.pop(seq)
        entry.held_bytes -= len(payload)
        self.held_bytes -= len(payload)
        if seq > entry.state.seq:
            self._overflow(entry)

    def _overflow(self, entry: BoardEntry) -> None:
        if entry.overflowed:
            return
        entry.overflowed = True
        self.counts["overflows"] += 1
        self._problem(f"board {entry.state.name}: too many events wait for an earlier one "
                      f"(at most {MAX_HELD} or {HELD_BYTES // 1024 // 1024} MB a board): the "
                      "furthest are let go, and the board's state is asked for again")
        self.resync(entry.state.name)

    def _drain(self, entry: BoardEntry) -> None:
        for seq in [s for s in entry.held if s <= entry.state.seq]:
            self._let_go(entry, seq)
        while entry.state.seq + 1 in entry.held:
            seq = entry.state.seq + 1
            payload = entry.held.pop(seq)
            entry.held_bytes -= len(payload)
            self.held_bytes -= len(payload)
            self._apply(entry, seq, json.loads(payload)["event"])  # checked when it came
        if not entry.held:
            entry.overflowed = False

    def _apply(self, entry: BoardEntry, seq: int, event: dict) -> None:
        before = entry.state.ply
        try:
            alert = entry.state.apply(seq, event)
        except BadEvent as e:
            entry.state.seq = seq  # skipped: the board's next events go on
            self.counts["garbage"] += 1
            self._problem(f"board {entry.state.name}: event {seq}: {e}: dropped")
            return
        if alert is not None:
            self.alerts.append(alert)
        self._moved(entry, before)

    def _moved(self, entry: BoardEntry, before: int) -> None:
        if entry.state.ply != before:
            entry.state.pdn()  # the broadcast PDN is made now: that is the latency's end
            self.counts["moves"] += max(0, entry.state.ply - before)
            if entry.state.wall is not None and entry.state.ply > before:
                self.latencies.append(time.time() - entry.state.wall)

    def _state(self, entry: BoardEntry, message: dict) -> None:
        seq = message["seq"]
        if seq <= entry.state.seq:
            return  # we have it already (the usual case: its event came first)
        self.counts["snapshots"] += 1
        before, old = entry.state.ply, entry.state
        entry.state = BoardState.from_snapshot(old.name, message["state"], seq)
        self.alerts.extend(a for a in entry.state.alerts
                           if isinstance(a.get("seq"), int) and a["seq"] > old.seq)
        self._moved(entry, before)
        self._drain(entry)

    def _online(self, entry: BoardEntry, message: dict) -> None:
        was = entry.online
        entry.online = message["online"]
        if was is True and entry.online is False and message.get("why") == "dropped":
            self._problem(f"board {entry.state.name}: offline (its connection dropped); "
                          "its moves are kept on the board and come when it is back")

    def failed(self, topic: str, error: Exception) -> None:
        with self.lock:
            self.counts["failures"] += 1
            self._problem(f"a message on {schema.said(topic, 120)} failed "
                          f"({type(error).__name__}: {schema.said(error, 200)}): dropped, "
                          "the hall goes on")

    def _problem(self, text: str) -> None:
        text = schema.said(text, 500)  # a message's words are in it: one bounded line
        self.problems.append({"wall": round(time.time(), 3), "text": text})
        self.out(f"hall: {text}")

    # --- views (for the HTTP server) ----------------------------------------------------

    def names(self, round_: str | None = None) -> list[str]:
        with self.lock:
            names = [n for n, e in self.boards.items() if e.state.game is not None
                     and (round_ is None or n.split("/")[0] == round_)]
        return sorted(names, key=_natural)

    def rounds(self) -> list[str]:
        return sorted({n.split("/")[0] for n in self.names()}, key=_natural)

    def board_pdn(self, name: str) -> str | None:
        with self.lock:
            entry = self.boards.get(name)
            return entry.state.pdn() if entry is not None else None

    def round_pdn(self, round_: str) -> str | None:
        names = self.names(round_)
        if not names:
            return None
        with self.lock:
            return "\n".join((self.boards[n].state.pdn() or "").rstrip() + "\n" for n in names)

    def board_detail(self, name: str) -> dict | None:
        with self.lock:
            entry = self.boards.get(name)
            if entry is None or entry.state.game is None:
                return None
            return {**entry.state.detail(), "online": entry.online}

    def summary(self) -> dict:
        with self.lock:
            boards = [{**e.state.summary(), "online": e.online}
                      for n, e in self.boards.items() if e.state.game is not None]
            alerts = list(self.alerts)[-50:]
            problems = list(self.problems)[-20:]
        boards.sort(key=lambda b: _natural(b["board"]))
        return {"event": self.event, "boards": boards, "alerts": alerts,
                "problems": problems, "rounds": sorted({b["board"].split("/")[0]
                                                        for b in boards}, key=_natural)}

    def alert_view(self) -> dict:
        with self.lock:
            return {"alerts": list(self.alerts), "problems": list(self.problems)}

    def stats(self) -> dict:
        import statistics

        with self.lock:
            lat = sorted(self.latencies)
            counts = dict(self.counts)
            held = sum(len(e.held) for e in self.boards.values())
            boards = sum(1 for e in self.boards.values() if e.state.game is not None)
        figures: dict[str, object] = {**counts, "boards": boards, "held_now": held,
                                      "latency_samples": len(lat)}
        if lat:
            figures["latency_ms"] = {
                "median": round(statistics.median(lat) * 1000, 1),
                "p99": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000, 1),
                "worst": round(lat[-1] * 1000, 1)}
        return figures


class Broadcaster:
    """The hall's MQTT subscriber: connects (or says in one line why it cannot), then
    feeds every message of the event to `hall`, reconnecting by itself."""

    def __init__(self, broker: Broker, hall: Hall, connect_timeout: float = 5.0):
        self.broker = broker
        self.hall = hall
        problem = reachable(broker)
        if problem:
            raise BrokerError(f"cannot reach the broker: {problem}")
        self._connected = threading.Event()
        self._refused: str | None = None
        self.client = c = client(f"damas-broadcast-{hall.event}-{secrets.token_hex(4)}")
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        hall.resync = self._resync
        try:
            c.connect(broker.host, broker.port, KEEPALIVE)
        except OSError as e:
            raise BrokerError(f"cannot connect to the broker {broker}: {e}") from None
        c.loop_start()
        if not self._connected.wait(connect_timeout) or self._refused:
            c.loop_stop()
            raise BrokerError(f"{broker}: {self._refused or 'no answer to our CONNECT'}")

    def _on_connect(self, c, userdata, flags, reason_code, properties=None):
        if reason_code.is_failure:
            self._refused = refusal(reason_code)
            self._connected.set()
            return
        self._refused = None
        c.subscribe(f"damas/{self.hall.event}/+/+/+", qos=1)  # again after every reconnect
        self._connected.set()

    def _on_message(self, c, userdata, message) -> None:
        """Nothing a message does may reach paho's thread: an exception there ends the
        network loop, and no board of the event would be updated again."""
        try:
            self.hall.receive(message.topic, message.payload)
        except Exception as e:  # a bug of ours, not the board's: said, the hall goes on
            self.hall.failed(message.topic, e)

    def _resync(self, name: str) -> None:
        """Subscribing again makes the broker send the board's retained state (paho
        queues the request: safe from its own thread)."""
        topic = f"damas/{self.hall.event}/{name}/state"
        self.client.subscribe(topic, qos=1)
        self.client.unsubscribe(topic)  # after the retained copy: the wildcard has the rest

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
