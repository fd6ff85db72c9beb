"""Hostile messages to the hall (issue 45), each through a real Mosquitto to a
`damas broadcast` process and read back over its HTTP side: a number too large for a
float, NaN, PDN injection through tags and clock comments, messages of megabytes, events
held in reverse, names in any script. Every time the broadcaster goes on for the other
boards, says what it dropped in one line, and serves strict JSON and readable PDN."""

import json
import random
import re
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from damas.hall.fuzz import honest_board
from damas.hall.sim import wait_until
from damas.rules import Game
from damas.rules.pdn import read_pdn

from .hallrig import BroadcasterProcess


def _strict(text: str):
    def refuse(name):
        raise ValueError(f"{name} in JSON")
    return json.loads(text, parse_constant=refuse)


class Hand:
    """A board written by hand: publishes what a test gives it, counted, so the test can
    wait until the broadcaster has had every message."""

    def __init__(self, mosquitto, caster: BroadcasterProcess, event: str):
        import paho.mqtt.client as paho

        self.caster, self.event, self.sent = caster, event, 0
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="hand")
        self.client.max_inflight_messages_set(1000)
        self.client.connect(mosquitto.broker.host, mosquitto.broker.port)
        self.client.loop_start()

    def send(self, board: str, kind: str, payload: bytes | dict) -> None:
        if isinstance(payload, dict):
            payload = json.dumps(payload).encode()
        self.client.publish(f"damas/{self.event}/{board}/{kind}", payload, qos=1,
                            retain=kind != "events").wait_for_publish(30)
        self.sent += 1

    def taken(self, timeout: float = 60) -> None:
        """Waits until the broadcaster has had every message sent (it counts them)."""
        wait_until(lambda: self.caster.process.poll() is not None or
                   self.caster.json("/stats.json")["messages"] >= self.sent, timeout,
                   "every message at the broadcaster")
        assert self.caster.process.poll() is None, self.caster.lines

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def hall(mosquitto):
    caster = BroadcasterProcess(mosquitto.url, "open")
    hand = Hand(mosquitto, caster, "open")
    yield caster, hand
    hand.close()
    caster.stop()


def _game(seed: int, plies: int = 12, instance: str = "inst"):
    """A board's honest messages: [(kind, message as a dict)], events with their states."""
    return [(kind, json.loads(p)) for kind, p in honest_board(random.Random(seed), instance,
                                                              plies)]


def _events(messages):
    return [m for kind, m in messages if kind == "events"]


def _send_game(hand, board, messages) -> Game:
    for kind, message in messages:
        hand.send(board, kind, message)
    start = _events(messages)[0]["event"]
    game = Game(start["variant"])
    for m in _events(messages)[1:]:
        if m["event"]["kind"] == "move":
            game.push(m["event"]["notation"])
    return game


def _said(caster, words: str) -> list[str]:
    return [line for line in caster.lines if words in line]


def _peak_mb(caster) -> float:
    status = Path(f"/proc/{caster.process.pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+)", status)[1]) / 1024


def test_a_number_too_large_for_a_float_stops_nothing(hall):
    """Case 1: `"wall": <400 digits>` raised OverflowError in paho's thread, and no
    board of the event was updated again."""
    caster, hand = hall
    first = _game(1, instance="a")
    hostile = json.loads(json.dumps(_events(first)[1]))
    hostile["event"]["wall"] = int("9" * 400)
    hand.send("1/1", "events", _events(first)[0])
    hand.send("1/1", "events", hostile)
    second = _game(2, instance="b")
    game = _send_game(hand, "1/2", second)
    hand.taken()
    detail = caster.json("/board/1/2.json")
    assert [m["move"] for m in detail["moves"]] == game.notations()
    line, = _said(caster, "board 1/1")
    assert "wall" in line and "out of range" in line and len(line) < 300


def test_nan_never_reaches_the_page(hall):
    """Case 2: `"clock": {"white": NaN}` was kept, and /state then carried NaN, which
    the browser's JSON.parse refuses: the page stopped for every board."""
    caster, hand = hall
    messages = _game(3, instance="a")
    hand.send("1/1", "events", _events(messages)[0])
    move = json.dumps(_events(messages)[1]).replace('"white": ', '"white": NaN, "x": ', 1)
    hand.send("1/1", "events", move.encode())
    state = json.dumps([m for kind, m in messages if kind == "state"][1]).encode()
    hand.send("1/1", "state", state.replace(b'"wall": ', b'"wall": Infinity, "x": ', 1))
    game = _send_game(hand, "1/2", _game(4, instance="b"))
    hand.taken()
    status, text = caster.get("/state")
    page = _strict(text)  # raises on NaN or Infinity
    assert [b["board"] for b in page["boards"]] == ["1/1", "1/2"]
    assert page["boards"][1]["ply"] == game.ply
    assert _said(caster, "board 1/1: a message that is not JSON")


def test_tags_and_clock_comments_cannot_inject_pdn(hall):
    """Case 3: a tag value with newlines or a clock comment with a } put a fake
    `1. 9-13 1-0` and [Event] into the board's and the round's PDN."""
    caster, hand = hall
    messages = _game(5, instance="a")
    start = _events(messages)[0]
    white = 'Ana "the hammer"] [Event "fake'
    start["event"]["tags"]["White"] = white
    start["event"]["tags"]["Black"] = "Rui \\ Costa"
    hostile = []
    for field, value in (("White", "Ana\n\n1. 9-13 1-0"), ('Black"] [Event "x', "Rui")):
        bad = json.loads(json.dumps(start))
        bad["event"]["tags"][field] = value
        hostile.append(bad)
    for bad in hostile:  # before the honest start: each one dropped, said
        hand.send("1/1", "events", bad)
    bad_move = json.loads(json.dumps(_events(messages)[1]))
    bad_move["event"]["clock_comment"] = "} 1. 9-13 1-0 [Event \"fake\"] {"
    hand.send("1/2", "events", start)
    hand.send("1/2", "events", bad_move)
    hand.taken()
    assert len(_said(caster, "board 1/1")) == 2
    assert _said(caster, "board 1/2") and "clock comment" in _said(caster, "board 1/2")[0]
    for kind, message in messages:  # the honest board 1/1
        if kind == "events" and message["seq"] == 1:
            message = start
        hand.send("1/1", kind, message)
    hand.taken()
    status, text = caster.get("/board/1/1.pdn")
    (game,) = read_pdn(text)
    assert game.tags["White"] == white and game.tags["Black"] == "Rui \\ Costa"
    assert game.tags["Event"] == "fuzz"
    status, text = caster.get("/round/1.pdn")
    games = read_pdn(text)
    assert [g.tags["White"] for g in games] == [white, white]
    assert "1-0" not in [g.result for g in games]


def test_messages_of_megabytes_leave_memory_bounded(hall):
    """Case 4: 5 moves with a 10 MB notation made /state 50 MB and the broadcaster 269
    MB (the error echoed whole); events held for a gap and alerts were bounded only in
    number."""
    caster, hand = hall
    messages = _game(6, plies=4, instance="a")
    hand.send("1/1", "events", _events(messages)[0])
    for _ in range(5):
        move = json.loads(json.dumps(_events(messages)[1]))
        move["event"]["notation"] = "32-28" + "9" * 10_000_000
        hand.send("1/1", "events", move)
    # 60 events of 200 kB wait for seq 2, which never comes
    for seq in range(3, 63):
        hand.send("1/1", "events", {"v": 1, "instance": "a", "seq": seq, "event": {
            "kind": "tracker-pending", "note": [("x" * 990)] * 200}})
    # alerts: 100 of 1 MB, then 1000 as long as allowed
    for seq in range(100, 200):
        hand.send("1/2", "events", {"v": 1, "instance": "b", "seq": seq, "event": {
            "kind": "tracker-irregular", "message_en": "x" * 1_000_000}})
    for seq in range(1, 1001):
        hand.send("1/3", "events", {"v": 1, "instance": "c", "seq": seq, "event": {
            "kind": "tracker-irregular", "article": "a" * 999, "message_en": "m" * 999}})
    hand.taken(120)
    assert _peak_mb(caster) < 100
    assert len(caster.get("/state")[1]) < 100_000
    alerts = caster.get("/alerts.json")[1]
    assert len(alerts) < 1_500_000 and len(_strict(alerts)["alerts"]) == 1000
    assert all(len(line) < 600 for line in caster.lines)
    assert len(_said(caster, "bytes (at most")) == 5 + 100
    assert _said(caster, "board 1/1: too many events wait for an earlier one")
    stats = caster.json("/stats.json")
    assert stats["held_now"] < 60 and stats["overflows"] == 1


def test_events_in_reverse_give_the_game_and_the_overflow_is_said(hall):
    """Case 5: 10,003 events in reverse left the board at ply 0 (the held queue was
    full when the first events came, and nothing said so)."""
    caster, hand = hall
    messages = _game(7, plies=40, instance="a")
    events = _events(messages)
    last = events[-1]["seq"]
    for seq in range(last + 1, 10_004):
        events.append({"v": 1, "instance": "a", "seq": seq, "event": {
            "kind": "tracker-pending", "squares": [1]}})
    for message in reversed(events):
        hand.send("1/1", "events", message)
    hand.taken(300)
    moves = [m["event"]["notation"] for m in events if m["event"]["kind"] == "move"]
    detail = caster.json("/board/1/1.json")
    assert [m["move"] for m in detail["moves"]] == moves
    assert len(_said(caster, "board 1/1: too many events wait for an earlier one")) == 1
    # the board's retained state, as its publisher sends it, has the rest
    state = [m for kind, m in messages if kind == "state"][-1]
    hand.send("1/1", "state", {**state, "seq": 10_003})
    hand.taken()
    wait_until(lambda: caster.json("/board/1/1.json")["seq"] == 10_003, 20, "the state")


def test_names_in_any_script_in_every_url_and_header(mosquitto):
    """Case 6: a round or event named 第一轮 or турнир made /round/….pdn close the
    connection without an answer (a header must be latin-1)."""
    caster = BroadcasterProcess(mosquitto.url, "турнир")
    hand = Hand(mosquitto, caster, "турнир")
    try:
        game = _send_game(hand, "第一轮/Доска 1", _game(8, instance="a"))
        hand.taken()
        page = caster.json("/state")
        assert [b["board"] for b in page["boards"]] == ["第一轮/Доска 1"]
        rnd, board = urllib.parse.quote("第一轮"), urllib.parse.quote("Доска 1")
        status, text = caster.get(f"/board/{rnd}/{board}.pdn")
        assert status == 200 and read_pdn(text)[0].game.notations() == game.notations()
        assert caster.json(f"/board/{rnd}/{board}.json")["ply"] == game.ply
        with urllib.request.urlopen(f"{caster.url}/round/{rnd}.pdn?download",
                                    timeout=10) as r:
            header = r.headers["Content-Disposition"]
            assert r.status == 200 and len(read_pdn(r.read().decode())) == 1
        assert header.startswith('attachment; filename="')
        assert urllib.parse.quote("турнир-round-第一轮.pdn") in header
    finally:
        hand.close()
        caster.stop()
