"""A board's side of the hall: every event of its game goes to the spool on disk first,
then to the broker with QoS 1 on `…/events`, and the game so far as the retained
`…/state` message, so a broadcaster that joins late (or restarts) has it all at once.

Through a broker restart or a dropped network the recorder never waits: paho keeps the
unacknowledged messages and sends them again, in order, when the broker is back; a board
process that stops (a crash, a power cut) sends on its next start what the broker never
acknowledged, from the spool. Both may send a message twice; its number (`seq`) lets the
broadcaster drop the second copy.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import deque
from pathlib import Path

from .board import BadEvent, BoardState
from .mqtt import KEEPALIVE, client, reachable, refusal
from .spool import Spool
from .topics import BoardAddress

VERSION = 1  # of the messages' format


def _json(data: dict) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


class Publisher:
    def __init__(self, address: BoardAddress, spool: str | Path, out=print):
        self.address = address
        self.out = out
        problem = reachable(address.broker)  # a name that does not resolve: BrokerError
        self.spool = Spool(spool)
        self.instance = self.spool.instance
        self.state = BoardState(address.name)
        for entry in self.spool.entries():  # the game so far, for the retained message
            try:
                self.state.apply(entry["seq"], entry["event"])
            except BadEvent:
                pass  # our own events: only a damaged spool line gets here
        self._lock = threading.Lock()  # the recorder's thread against close()
        self._inflight: deque = deque()  # (seq, message id) of events not yet acked
        self._acked: set[int] = set()  # message ids the broker acknowledged (paho's thread)
        self._state_mids: set[int] = set()
        self._state_payload: bytes | None = None  # the latest retained message, for reconnects
        self.connected = threading.Event()
        self.refused: str | None = None
        self.other_instance: str | None = None
        self.since = time.time()  # of two boards with one number, the later one yields
        self.yielded = False  # it did: events stay in the spool, nothing is sent
        self._restore = False  # the later one overwrote our retained state: send it again
        self.sent = 0
        self._client = c = client(f"damas-{address.event}-{address.round}-{address.board}-"
                                  f"{self.instance}-{secrets.token_hex(3)}")
        c.will_set(address.topic("online"), _json({"v": VERSION, "instance": self.instance,
                                                   "online": False, "why": "dropped"}),
                   qos=1, retain=True)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_presence
        c.on_publish = lambda c_, u, mid, *rest: self._acked.add(mid)  # no lock: paho
        # may hold its own while it calls us, and publish() takes it under ours
        c.connect_async(address.broker.host, address.broker.port, KEEPALIVE)
        c.loop_start()
        backlog = self.spool.unacked()
        for entry in backlog:  # what the broker never acknowledged, in order
            self._send(entry)
        if self.state.game is not None and backlog:
            self._send_state()
        if problem:
            self.out(f"hall: {problem}; recording goes on, its events wait in {spool} and "
                     "go to the hall when the broker answers")
        elif backlog:
            self.out(f"hall: {len(backlog)} events from the spool sent again to "
                     f"{address.broker}")

    # --- paho's thread ------------------------------------------------------------------

    def _on_connect(self, c, userdata, flags, reason_code, properties=None):
        if reason_code.is_failure:  # paho tries again by itself: say it once
            if self.refused != refusal(reason_code):
                self.refused = refusal(reason_code)
                self.out(f"hall: {self.address.broker}: {self.refused}; recording goes on, "
                         "its events wait in the spool")
            return
        self.refused = None
        self.connected.set()
        c.subscribe(self.address.topic("online"), qos=1)  # is another board using our id?
        c.publish(self.address.topic("online"), _json({"v": VERSION, "instance":
                                                       self.instance, "online": True,
                                                       "since": self.since}),
                  qos=1, retain=True)
        payload = self._state_payload  # a broker without persistence lost its copy
        if payload is not None:
            c.publish(self.address.topic("state"), payload, qos=1, retain=True)

    def _on_disconnect(self, c, userdata, flags, reason_code, properties=None):
        self.connected.clear()

    def _on_presence(self, c, userdata, message):
        """Another board online under our number: the one that came later stops
        sending (its events stay in its spool); the first sends its state again, which
        the later one's may have replaced. Flags only: paho's thread takes no lock of ours."""
        try:
            data = json.loads(message.payload)
            other, online = data["instance"], data["online"]
            since = float(data.get("since", 0))
        except (ValueError, KeyError, TypeError):
            return
        if online is not True or other == self.instance or other == self.other_instance:
            return
        self.other_instance = other
        if since <= self.since:
            self.yielded = True
            self.out(f"hall: another board ({other}) is online as {self.address}: this "
                     "board stops publishing (its events stay in its spool); give it its "
                     "own board number and start it again")
        else:
            self._restore = True
            self.out(f"hall: another board ({other}) came online as {self.address}: the "
                     "broadcaster keeps this board; the other one stops")

    # --- the recorder's thread ----------------------------------------------------------

    def publish(self, event: dict) -> None:
        """One event of the game (a journal event): on disk, then on its way."""
        with self._lock:
            entry = self.spool.append(event)
            try:
                self.state.apply(entry["seq"], event)
            except BadEvent:
                self.state.seq = entry["seq"]
            if self.yielded:
                return
            self._send(entry)
            self._send_state()
            self._settle()

    def _send(self, entry: dict) -> None:
        message = {"v": VERSION, "instance": self.instance, "seq": entry["seq"],
                   "event": entry["event"]}
        info = self._client.publish(self.address.topic("events"), _json(message), qos=1)
        self._inflight.append((entry["seq"], info.mid))
        self.sent += 1

    def _send_state(self) -> None:
        payload = _json({"v": VERSION, "instance": self.instance, "seq": self.state.seq,
                         "state": self.state.snapshot()})
        self._state_payload = payload
        info = self._client.publish(self.address.topic("state"), payload, qos=1, retain=True)
        self._state_mids.add(info.mid)

    def _settle(self) -> None:
        """Moves the acknowledged mark over every event the broker has (in order)."""
        done = None
        while self._inflight and self._inflight[0][1] in self._acked:
            done, mid = self._inflight.popleft()
            self._acked.discard(mid)
        for mid in self._state_mids & self._acked:
            self._state_mids.discard(mid)
            self._acked.discard(mid)
        waiting = {mid for _, mid in self._inflight}  # every event's id is known here
        for mid in list(self._acked):  # (under our lock): the rest is presence and the
            if mid not in waiting:  # state sent again on reconnects, nothing to keep
                self._acked.discard(mid)
        if done is not None:
            self.spool.ack(done)

    @property
    def unacked(self) -> int:
        with self._lock:
            self._settle()
            return len(self._inflight)

    def flush(self, timeout: float = 10.0) -> bool:
        """Waits until the broker has every event (True), or `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while self.unacked:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)  # polling paho's acknowledgements: no callback to wait on
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Sends what it can within `timeout`; the rest stays in the spool for next time."""
        with self._lock:
            if self._restore and self.state.game is not None:
                self._send_state()
        delivered = self.flush(timeout)
        if not delivered:
            self.out(f"hall: {self.unacked} events not acknowledged by {self.address.broker}"
                     f" yet: they stay in {self.spool.path} and are sent at the next start")
        self._client.publish(self.address.topic("online"), _json(
            {"v": VERSION, "instance": self.instance, "online": False, "why": "closed"}),
            qos=1, retain=True)
        self._client.disconnect()  # a clean goodbye: the broker sends no last will
        self._client.loop_stop()
        with self._lock:
            self.spool.close()

    def drop(self) -> None:
        """The network goes away (for tests and benches): the socket closes without a
        goodbye, so the broker sends the last will; paho reconnects by itself."""
        sock = self._client.socket()
        if sock is not None:
            import socket

            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
