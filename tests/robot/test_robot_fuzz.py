"""Property tests at the command line's edge: whatever a controller answers and whatever a
machine file holds, `damas robot play-pdn` ends with success or one line on stderr and
exit status 2 - never a traceback, never a hang - and a machine file it accepts is a
sane one (reject, never mis-accept)."""

import json
import math
import os
import pty
import select
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from damas.cli import main
from damas.robot.machine import EXAMPLES, load_machine
from damas.robot.replies import parse_reply
from damas.rules import Game
from damas.rules.pdn import PdnGame, write_pdn

KINDS = {"ok", "error", "alarm", "banner", "status", "message", "report", "setting", "empty",
         "noise"}

digits = st.text("0123456789", min_size=1, max_size=5000)
number = st.builds(lambda i, f: f"{i}.{f}", st.integers(-99999, 99999),
                   st.text("0123456789", max_size=4))
reply_line = st.one_of(
    st.just("ok"),
    st.builds(lambda d: f"error:{d}", digits),
    st.builds(lambda d: f"ALARM:{d}", digits),
    st.builds(lambda s, x, y, z, rest: f"<{s}|MPos:{x},{y},{z}{rest}>",
              st.sampled_from(["Idle", "Run", "Alarm", "Hold:0", "Home", "X" * 40]),
              number, number, number, st.sampled_from(["", "|FS:0,0", "|WCO:1,2,3", "|Bf:x"])),
    st.builds(lambda x: f"<Idle|WPos:{x},0,0|WCO:0,0,0>", number),
    st.just("[GC:G0 G54 G17 G21 G90 G94 M5 M9 T0 F0 S0]"),
    st.sampled_from(["[VER:1.1h.20190830:]", "[VER:1.1h.damas:]", "[VER:0.9j:]",
                     "[OPT:V,15,128]", "[MSG:Reset to continue]", "[G54:1,2,3]",
                     "Grbl 1.1h ['$' for help]", "$100=80.000", "$22=1", "$130=" + "9" * 40]),
    st.text(max_size=60),
)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(reply_line, st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_the_reply_parser_reads_anything_without_raising(line):
    reply = parse_reply(line)
    assert reply.kind in KINDS
    if reply.kind in ("error", "alarm"):
        code = line.strip()[6:]
        assert reply.code == (int(code) if code.isdigit() and len(code) <= 6 else None)
    assert len(reply.shown) <= 40 and reply.shown.isprintable()


class Controller:
    """Something on a pty that answers each thing the host sends with the next of
    `script` (bytes), and hangs up when the script ends or the host stays quiet."""

    def __init__(self, script: list[bytes]):
        self.master, self._slave = pty.openpty()
        self.port = os.ttyname(self._slave)
        self.script = list(script)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        quiet_since = time.monotonic()
        while self.script and time.monotonic() - quiet_since < 0.3:
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                os.read(self.master, 512)
                os.write(self.master, self.script.pop(0))
            except OSError:
                break
            quiet_since = time.monotonic()
        os.close(self.master)  # the host's reads fail: the line is gone

    def close(self):
        self._thread.join(5)
        os.close(self._slave)


def pdn_file(folder) -> str:
    game = Game("english")
    game.push(game.position.parse_move("11-15"))
    path = folder / "g.pdn"
    if not path.exists():
        path.write_text(write_pdn(PdnGame.from_game(game)))
    return str(path)


def ends_cleanly(capsys, status: int) -> str:
    out = capsys.readouterr()
    assert status in (0, 1, 2)
    if status == 2:
        assert out.err.count("\n") == 1 and out.err.startswith("damas: "), out.err
    assert "Traceback" not in out.err
    return out.err


@pytest.mark.slow
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(banner=st.booleans(),
       replies=st.lists(st.lists(reply_line, min_size=1, max_size=4), max_size=12),
       noise=st.binary(max_size=30))
def test_whatever_the_controller_answers_play_pdn_ends_cleanly(tmp_path, capsys, banner,
                                                               replies, noise):
    first = noise + (b"\r\nGrbl 1.1h ['$' for help]\r\n" if banner else b"")
    script = [first] + [("\r\n".join(lines) + "\r\n").encode("latin-1", "replace")
                        for lines in replies]
    controller = Controller(script)
    try:
        status = main(["robot", "play-pdn", pdn_file(tmp_path), "--port", controller.port])
    finally:
        controller.close()
    ends_cleanly(capsys, status)


EXAMPLE = json.loads((EXAMPLES / "grbl-gantry-8x8.json").read_text())
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 400, 10 ** 400) |
    st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=8)


def paths(value, prefix=()):
    """Every place in a JSON document where a value sits."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:3]):
            yield from paths(item, prefix + (i,))


PLACES = [p for p in paths(EXAMPLE) if p and p[0] not in ("format", "version")]


@st.composite
def mutated_machine(draw):
    body = json.loads(json.dumps(EXAMPLE))
    for _ in range(draw(st.integers(1, 3))):
        place = draw(st.sampled_from(PLACES))
        holder = body
        try:
            for key in place[:-1]:
                holder = holder[key]
            if draw(st.booleans()) and isinstance(holder, dict):
                holder.pop(place[-1], None)
            else:
                holder[place[-1]] = draw(json_value)
        except (KeyError, IndexError, TypeError):
            continue
    return body


def sane(machine) -> bool:
    numbers = [machine.pitch, machine.piece_diameter, machine.feed_carry, machine.feed_travel,
               *machine.workspace, *(v for row in machine.board_to_machine for v in row),
               *(c for slots in (*machine.trays.values(), *machine.reserve.values())
                 for point in slots for c in point),
               *machine.heights.values(), *machine.controller.settings.values()]
    return (all(isinstance(v, float) and math.isfinite(v) for v in numbers)
            and machine.board_size in (8, 10) and isinstance(machine.name, str)
            and set(machine.trays) == set(machine.reserve) == {"white", "black"}
            and all(isinstance(k, int) for k in machine.controller.settings))


@pytest.mark.slow
@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=mutated_machine())
def test_whatever_a_machine_file_holds_it_is_refused_in_one_line_or_sane(tmp_path, capsys,
                                                                         body):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"format": "damas-machine", "version": 1, **body}))
    status = main(["robot", "play-pdn", pdn_file(tmp_path), "--machine", str(path),
                   "--port", "/dev/no-such-port"])
    assert status == 2
    err = ends_cleanly(capsys, status)
    if "cannot open /dev/no-such-port" in err:  # accepted: then it must be sane
        assert sane(load_machine(path))
    else:
        assert str(path) in err or "machine is for" in err


def test_a_number_of_thousands_of_digits_in_a_machine_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "m.json"
    text = json.dumps({"format": "damas-machine", "version": 1, **EXAMPLE})
    path.write_text(text.replace('"pitch": 40.0', '"pitch": ' + "4" * 5000))
    assert main(["robot", "play-pdn", pdn_file(tmp_path), "--machine", str(path),
                 "--port", "/dev/no-such-port"]) == 2
    assert "a number too long" in ends_cleanly(capsys, 2)
    for trays in ('"trays": "left"', '"trays": null', '"reserve": 7', '"reserve": []'):
        body = json.loads(text)
        key, value = trays.split(": ")
        body[key.strip('"')] = json.loads(value)
        path.write_text(json.dumps(body))
        assert main(["robot", "play-pdn", pdn_file(tmp_path), "--machine", str(path),
                     "--port", "/dev/no-such-port"]) == 2
        assert "must be an object with" in ends_cleanly(capsys, 2)
