"""Motion as seen from the step/dir pins: end points, ramps, hold/resume, reset, streaming."""

from itertools import pairwise

import pytest

BANNER = "Grbl 1.1h ['$' for help]"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"
ONE_STEP_MM = 1 / 80  # config.h: 80 steps/mm

START = (30.0, 25.0)  # where the harness powers the carriage up, in mm
F_CPU = 16e6


def carriage(fw):
    """Carriage position relative to power-up (the firmware's origin until it homes)."""
    pos = fw.position()
    return pos.num("x") - START[0], pos.num("y") - START[1]


def assert_at(fw, x, y):
    got = carriage(fw)
    assert abs(got[0] - x) <= ONE_STEP_MM and abs(got[1] - y) <= ONE_STEP_MM, (
        f"carriage at {got}, wanted {(x, y)}"
    )


def step_intervals_us(fw, motor=0, since_cycle=0):
    cycles = [c for c, _, _ in fw.step_times(motor) if c >= since_cycle]
    return [(b - a) / F_CPU * 1e6 for a, b in pairwise(cycles)]


def wait_rest(fw, since):
    """The harness flushes its step log when the carriage comes to rest."""
    return fw.wait_event("POS", lambda e: e.fields["why"] == "rest", since)


def test_moves_end_where_commanded(fw):
    fw.unlock(soft_limits=False)
    targets = [
        ("G0 X12.5 Y3", 12.5, 3),
        ("G1 X-7.3 Y11.11 F4000", -7.3, 11.11),
        ("G0 Y0", -7.3, 0),
        ("G91 G0 X10.0125 Y-2", 2.7125, -2),
        ("G1 X-2.7125 Y2 F2000", 0, 0),
    ]
    for line, x, y in targets:
        fw.ok(line)
        status = fw.wait_state("Idle")
        assert_at(fw, x, y)
        assert abs(status.mpos[0] - x) <= ONE_STEP_MM and abs(status.mpos[1] - y) <= ONE_STEP_MM


def test_trapezoid_ramp_accelerates_cruises_and_decelerates(fw):
    fw.unlock()
    since = fw.mark()
    fw.ok("G1 X40 F3000")  # 50 mm/s: cruise interval 250 us at 80 steps/mm
    fw.wait_state("Idle")
    wait_rest(fw, since)
    intervals = step_intervals_us(
        fw
    )  # between steps: the interval before the first step is not seen
    assert len(intervals) == 40 * 80 - 1
    cruise = sorted(intervals)[len(intervals) // 2]
    assert cruise == pytest.approx(250, rel=0.02)
    n_accel = next(i for i, v in enumerate(intervals) if v < cruise * 1.01)
    n_decel = len(intervals) - next(
        i for i, v in enumerate(reversed(intervals)) if v < cruise * 1.01
    )
    # 800 mm/s^2 to 50 mm/s: v^2 / 2a = 1.5625 mm = 125 steps each way.
    assert 100 < n_accel < 150 and 100 < len(intervals) - n_decel < 150
    ramp_up, ramp_down = intervals[:n_accel], intervals[n_decel:]
    assert all(b <= a * 1.02 for a, b in pairwise(ramp_up)), "acceleration is not monotonic"
    assert all(b >= a * 0.98 for a, b in pairwise(ramp_down)), "deceleration is not monotonic"
    assert intervals[0] > 4 * cruise and intervals[-1] > 4 * cruise
    # Constant acceleration: speed after n steps is sqrt(2 a n s).
    elapsed = sum(ramp_up) / 1e6
    speed = 1 / (ramp_up[-1] / 1e6) / 80  # mm/s
    assert speed / elapsed == pytest.approx(800, rel=0.15)
    # Cruise: steady, up to the few microseconds other interrupts shift a pulse by.
    assert all(i == pytest.approx(cruise, abs=8) for i in intervals[n_accel:n_decel])
    # Symmetric: deceleration mirrors acceleration.
    # (the step log starts at the first step, so c1 is its first interval and c0 = c1 * 5 / 3)
    assert ramp_down[-10:] == pytest.approx(
        list(reversed(intervals[:9])) + [intervals[0] * 5 / 3], rel=0.05
    )


def test_short_move_is_a_triangle(fw):
    fw.unlock()
    since = fw.mark()
    fw.ok("G1 X1 F6000")  # too short to reach 100 mm/s
    fw.wait_state("Idle")
    wait_rest(fw, since)
    intervals = step_intervals_us(fw)
    fastest = intervals.index(min(intervals))
    assert abs(fastest - len(intervals) / 2) <= 2
    assert min(intervals) > 1e6 / (100 * 80)  # never reached the feed rate


def test_feed_hold_decelerates_and_resume_finishes(make_firmware):
    fw = make_firmware(speed=1)  # the hold must come while the move runs
    fw.unlock()
    fw.ok("G1 X50 F1500")  # 2 s at 25 mm/s
    fw.wait_state("Run")
    fw.wait_status(lambda s: s.mpos[0] >= 10, what="X past 10 mm")
    fw.write(b"!")
    held = fw.wait_state("Hold:0", timeout=5)
    first = carriage(fw)
    assert 10 < first[0] < 45
    assert carriage(fw) == first  # really stopped
    assert abs(held.mpos[0] - first[0]) <= ONE_STEP_MM
    # It decelerated: the last intervals before the stop grow.
    stops = step_intervals_us(fw)
    assert stops[-1] > 3 * min(stops)
    fw.write(b"~")
    fw.wait_state("Idle")
    assert_at(fw, 50, 0)


def test_hold_before_motion_keeps_queued_moves_until_resume(fw):
    fw.unlock()
    fw.write(b"!")
    assert fw.wait_state("Hold:0").state == "Hold:0"
    fw.ok("G0 X5")
    assert fw.status().state == "Hold:0"
    assert fw.position().num("steps") == 0
    fw.write(b"~")
    fw.wait_state("Idle")
    assert_at(fw, 5, 0)


def test_soft_reset_mid_move_gives_alarm_3_and_banner(make_firmware):
    fw = make_firmware(speed=1)  # the reset must come while the move runs
    fw.unlock()
    fw.ok("G1 X50 F1500")
    fw.wait_state("Run")
    fw.wait_status(lambda s: s.mpos[0] >= 5, what="X past 5 mm")
    fw.write(b"\x18")
    lines = fw.expect_banner()
    assert "ALARM:3" in lines
    assert fw.next_line() == UNLOCK_HINT
    status = fw.status()
    assert status.state == "Alarm"
    stopped = carriage(fw)
    assert 5 <= stopped[0] < 50
    assert carriage(fw) == stopped  # pulses stopped at once
    assert fw.command("G0 X0") == "error:9"
    fw.ok("$X")
    fw.ok("G0 X0")  # the position survived the reset
    fw.wait_state("Idle")
    assert_at(fw, 0, 0)


def test_soft_reset_when_idle_has_no_alarm(fw):
    fw.unlock()
    fw.write(b"\x18")
    lines = fw.expect_banner()
    assert not any(line.startswith("ALARM") for line in lines)
    assert fw.status().state == "Idle"


def test_character_counting_streaming_100_lines(fw):
    fw.unlock(soft_limits=False)
    lines = ["G91", "G1 F6000"]
    x = y = 0.0
    for i in range(98):
        if i % 10 == 9:
            lines.append(f"M150 I{i % 50} R{i} U3 B4 (led)")
        elif i % 7 == 3:
            lines.append("G4 P0")
        else:
            dx, dy = (0.5, 0.25) if i % 2 else (-0.25, 0.5)
            x, y = x + dx, y + dy
            lines.append(f"G1 X{dx} Y{dy}")
    window, in_flight, replies = 127, [], []
    for line in lines:
        data = (line + "\n").encode()
        while sum(in_flight) + len(data) > window:
            replies.append(fw.reply()[0])
            in_flight.pop(0)
        fw.write(data)
        in_flight.append(len(data))
    while in_flight:
        replies.append(fw.reply()[0])
        in_flight.pop(0)
    assert replies == ["ok"] * len(lines)
    fw.wait_state("Idle")
    assert_at(fw, x, y)


def test_z_servo_pulse_follows_z(fw):
    fw.unlock()
    since = fw.mark()
    fw.ok("G0 Z12.5")
    event = fw.wait_event("Z", lambda e: abs(e.num("z") - 12.5) < 0.6, since)
    assert 1000 <= event.num("us") <= 2000
    fw.ok("G0 X2 Z3")
    fw.wait_state("Idle")
    pos = fw.position()
    assert pos.num("z") == pytest.approx(
        3, abs=0.6
    )  # 8 us pulse steps are 0.24 mm; simavr adds jitter
    assert fw.command("G0 Z31") == "error:15"  # beyond the servo's range


def test_magnet_switches_in_order_with_motion(fw):
    fw.unlock()
    since = fw.mark()
    # Sent back to back: the firmware, not the host, must keep them in order.
    fw.write(b"G1 X8 F3000\nM3\nG4 P0.3\nM5\n")
    assert [fw.reply()[0] for _ in range(4)] == ["ok"] * 4
    on = fw.wait_event("MAG", lambda e: e.fields["on"] == "1", since)
    off = fw.wait_event("MAG", lambda e: e.fields["on"] == "0", since)
    assert off.num("t") - on.num("t") == pytest.approx(
        0.3, abs=0.02
    )  # the dwell, in simulated time
    wait_rest(fw, since)
    steps = fw.step_times()
    assert len(steps) == 8 * 80
    assert steps[-1][0] / F_CPU <= on.num("t")  # the magnet waited for the last step
    assert fw.position().fields["magnet"] == "0"


def test_program_end_turns_magnet_off(fw):
    fw.unlock()
    since = fw.mark()
    fw.ok("M8")
    fw.wait_event("MAG", lambda e: e.fields["on"] == "1", since)
    fw.ok("M2")
    fw.wait_event("MAG", lambda e: e.fields["on"] == "0", since)
