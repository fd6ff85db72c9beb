"""The G-code driver, the executor and the LED grid on both machine simulators - the
Python one and our firmware in simavr - in normal play and under every fault the issue
names: the line dropped, garbage on the line, a reset mid-stream, error:N replies and
limit alarms. The physical board (from the firmware's pins, or the Python simulator's
tool) must always agree with what the driver reports."""

import math
import random
import time

import pytest

from damas.robot.executor import execute
from damas.robot.grbl import AlarmError, DriverError, GrblDriver, LinkLost
from damas.robot.leds import COLOURS, LedGrid
from damas.robot.planner import Planner
from damas.rules import Game, Position

STEP_MM = 1 / 80  # the firmware places the carriage to a step (config.h: 80 steps/mm)
BANNER = "Grbl 1.1h ['$' for help]"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"


def squares_seen(rig):
    layout = rig.layout()
    return {int(k): v for k, v in layout["squares"].items() if v != "e"}, layout


def raw_lines(rig, until, timeout=10.0):
    """Lines read straight from the port, up to the first for which until(line) holds
    (bytes after it are kept for the next call). Not to be mixed with the driver's own
    reads until it reconnects: each would keep part of the other's line."""
    deadline = time.monotonic() + timeout
    lines = []
    while time.monotonic() < deadline:
        rig.unread += rig.driver.port.read(rig.driver.port.in_waiting or 1)
        while b"\n" in rig.unread:
            raw, rig.unread = rig.unread.split(b"\n", 1)
            line = raw.decode("ascii", "replace").strip()
            if line:
                lines.append(line)
                if until(line):
                    return lines
    raise AssertionError(f"no such line in {timeout} s; got {lines}")


def raw_status(rig):
    rig.driver.port.write(b"?")
    return raw_lines(rig, lambda s: s.startswith("<"))[-1]


def reply(rig, line):
    """Sends a line; returns the lines up to its ok / error:N."""
    rig.driver.port.write(line.encode("ascii") + b"\n")
    return raw_lines(rig, lambda s: s == "ok" or s.startswith("error:"))


def test_a_game_is_played_and_the_pieces_end_where_the_rules_say(rig):
    r = rig("english")
    planner = Planner(r.machine)
    game = Game("english")
    rng = random.Random(5)
    while game.ply < 30 and game.outcome() is None:
        move = rng.choice(game.legal_moves())
        run = execute(r.driver, r.machine, planner.plan_move(r.state, move),
                      on_done=r.state.apply)
        assert run.complete
        game.push(move)
    seen, layout = squares_seen(r)
    assert seen == game.position.pieces() and not layout["stray"]
    assert r.world.min_clearance >= r.machine.piece_diameter - STEP_MM


def test_banner_and_version(rig):
    r = rig()
    assert r.driver.version == "1.1h"
    assert r.driver.status().state == "Idle"


def test_a_wrong_port_is_a_clear_error():
    with pytest.raises(LinkLost, match="cannot open /dev/no-such-port"):
        GrblDriver("/dev/no-such-port", timeout=1).connect()


def test_error_replies_stop_the_stream(rig):
    r = rig()
    acked = []
    with pytest.raises(DriverError, match=r"line 2 \(`G99`\): error:20 \(unsupported"):
        r.driver.stream(["G0 X10 Y10", "G99", "G0 X20"], on_ack=acked.append)
    assert acked == [0]


def test_garbage_on_the_line_is_ignored(rig):
    r = rig()
    r.sim.send_garbage(b"\x00\xfe#junk\r\n[MSG:noise]\r\n")
    r.driver.stream(["G0 X5 Y5", "G0 X6 Y6", "G4 P0"])
    assert r.driver.status().position[:2] == (6.0, 6.0)
    assert any("noise" in m for m in r.driver.messages)


def test_soft_limit_pushes_alarm_2_and_refuses_the_line(rig):
    r = rig()
    assert reply(r, "G0 X5000") == ["ALARM:2", "error:15"]  # as GRBL: alarm, then the reply
    assert r.driver.status().state == "Alarm"
    r.driver.connect()  # a reset and homing unlock it
    with pytest.raises(AlarmError, match="soft limit") as caught:
        r.driver.stream(["G0 X5 Y5", "G0 X5000", "G4 P0"])
    assert caught.value.code == 2
    r.driver.connect()
    status = r.driver.status()
    assert status.state == "Idle" and status.position[:2] == (0.0, 0.0)


def test_a_reset_mid_move_pushes_alarm_3_before_the_banner(rig):
    r = rig(speed=4)  # the move must still run when the reset comes
    r.driver.port.write(b"G1 X100 F2000\n")
    deadline = time.monotonic() + 10
    while not raw_status(r).startswith("<Run"):
        assert time.monotonic() < deadline, "the move never started"
    r.driver.port.write(b"\x18")
    lines = raw_lines(r, lambda s: s == BANNER)
    assert "ALARM:3" in lines  # the position is lost: the host must home again
    assert raw_lines(r, bool) == [UNLOCK_HINT]
    assert raw_status(r).startswith("<Alarm")


def test_a_restarted_controller_is_locked_until_homed(rig):
    r = rig()
    r.sim.power_cycle()
    lines = raw_lines(r, lambda s: s == BANNER)
    assert not any(s.startswith("ALARM") for s in lines)
    assert raw_lines(r, bool) == [UNLOCK_HINT]
    assert reply(r, "G0 X5") == ["error:9"]
    r.driver.connect()
    status = r.driver.status()
    assert status.state == "Idle" and status.position[:2] == (0.0, 0.0)


FEN = "W:W19,21:B15,11"


def carriage(r):
    """(x, y, tool on) of the machine now: from the pins, or the Python simulator."""
    if r.simulator == "firmware":
        pos = r.sim.position()
        return pos.num("x"), pos.num("y"), pos.fields["magnet"] == "1"
    x, y, _ = r.sim.position
    return x, y, r.sim.tool_on


def set_speed(r, speed):
    """Simulated seconds per wall second (0: as fast as it goes)."""
    if r.simulator == "firmware":
        r.sim.set_speed(speed)
    else:
        r.sim.config.speedup = speed or 400.0


def wait_until_sliding(r, start, mm=15.0, timeout=20.0):
    """Waits (watching, not sleeping) until the magnet carries a piece `mm` from `start`."""
    deadline = time.monotonic() + timeout
    while True:
        x, y, on = carriage(r)
        if on and math.dist((x, y), start) >= mm:
            return
        assert time.monotonic() < deadline, "the slide never started"


def distance_to_path(point, path):
    def to_segment(p, a, b):
        ab = (b[0] - a[0], b[1] - a[1])
        t = ((p[0] - a[0]) * ab[0] + (p[1] - a[1]) * ab[1]) / (ab[0] ** 2 + ab[1] ** 2)
        t = max(0.0, min(1.0, t))
        return math.dist(p, (a[0] + t * ab[0], a[1] + t * ab[1]))
    return min(to_segment(point, a, b) for a, b in zip(path, path[1:], strict=False))


@pytest.mark.parametrize("fault", ["drop", "reset", "limit"])
def test_a_fault_mid_slide_is_reported_exactly(rig, fault):
    """The fault comes while the capturing man slides: the report names the capture as
    done and the slide as interrupted; every other piece is where the report says, and
    the slid man stands on its path, where the magnet let go of it (more than the
    layout's tolerance from either end: it is off its squares)."""
    r = rig("english", fen=FEN)
    planner = Planner(r.machine)
    move = Position.from_fen(FEN, "english").parse_move("19x10")
    steps = planner.plan_move(r.state, move)
    assert [s.reason for s in steps] == ["capture", "move"]
    inject = {"drop": r.sim.drop_line, "reset": r.sim.power_cycle, "limit": r.sim.hit_limit}
    grab = r.machine.to_machine(steps[1].path[0])

    def after(step):
        r.state.apply(step)
        if step is steps[0]:
            set_speed(r, 4)  # the slide then takes about a second: time to act mid-way
            wait_until_sliding(r, grab)
            inject[fault]()
            if fault != "drop":
                set_speed(r, 0)  # recovery at full speed

    run = execute(r.driver, r.machine, steps, on_done=after, reconnect_attempts=1)
    assert run.done == (steps[0],) and run.interrupted == steps[1]
    expected = {"drop": "lost the line", "reset": "restarted", "limit": "hard limit"}[fault]
    assert expected in run.error
    assert run.recovered == (fault != "drop")
    seen, layout = squares_seen(r)
    assert seen == {21: "w", 11: "b"}
    assert layout["trays"]["black"].count("b") == 1
    [stray] = layout["stray"]
    assert stray["piece"] == "w"
    where = tuple(stray["at"])
    assert distance_to_path(where, steps[1].path) <= 0.1  # layout rounds to 0.1 mm
    assert min(math.dist(where, steps[1].path[0]), math.dist(where, steps[1].path[-1])) > 4
    if run.recovered:
        status = r.driver.status()
        assert status.state == "Idle" and status.position[:2] == (0.0, 0.0)  # homed again


def test_led_grid_shows_a_move_and_an_irregularity(rig):
    r = rig("english")
    grid = LedGrid(r.driver, 32)
    move = Game("english").legal_moves()[0]
    grid.show_move(move)
    frame = r.frames[-1]
    assert len(frame) == 32
    assert frame[move.start - 1] == COLOURS["from"] and frame[move.end - 1] == COLOURS["to"]
    assert sum(1 for c in frame if c != (0, 0, 0)) == 2
    grid.show_irregular([27, 32])
    frame = r.frames[-1]
    assert [i + 1 for i, c in enumerate(frame) if c != (0, 0, 0)] == [27, 32]
    assert frame[26] == COLOURS["irregular"]
    grid.clear()
    assert set(r.frames[-1]) == {(0, 0, 0)}


def test_led_grid_shows_a_capture_with_its_path(rig):
    r = rig("international", fen="W:W33:B28,19,29")
    grid = LedGrid(r.driver, 50)
    move = Position.from_fen("W:W33:B28,19,29", "international").parse_move("33x13")
    assert len(move.captured) == 2
    grid.show_move(move)
    lit = {i + 1: c for i, c in enumerate(r.frames[-1]) if c != (0, 0, 0)}
    assert lit == {33: COLOURS["from"], 24: COLOURS["path"], 13: COLOURS["to"],
                   29: COLOURS["remove"], 19: COLOURS["remove"]}


@pytest.mark.parametrize("colour, code", [((300, 0, 0), 38), ((-1, 0, 0), 4),
                                          ((1.5, 0, 0), 23)])
def test_bad_led_values_are_refused_clearly(rig, colour, code):
    r = rig()
    grid = LedGrid(r.driver, 32)
    with pytest.raises(DriverError, match=f"error:{code} "):
        grid.show({5: colour})
    grid.show({1: (1, 2, 3)})  # the grid still works
    assert r.frames[-1][0] == (1, 2, 3)


def test_send_and_wait_streaming_plays_moves_too(rig):
    r = rig("english")
    r.driver.send_and_wait = True
    planner = Planner(r.machine)
    game = Game("english")
    for text in ("11-15", "24-20", "15-19", "23x16"):
        move = game.position.parse_move(text)
        assert execute(r.driver, r.machine, planner.plan_move(r.state, move),
                       on_done=r.state.apply).complete
        game.push(move)
    seen, layout = squares_seen(r)
    assert seen == game.position.pieces() and not layout["stray"]
