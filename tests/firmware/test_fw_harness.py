"""The harness itself: it announces its pty, answers queries, resets, and leaves nothing behind."""

import os
import signal

import pytest

from damas.robot.simavr import Harness

BANNER = "Grbl 1.1h ['$' for help]"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"


def test_stops_cleanly_on_sigterm_and_leaves_no_process(make_firmware):
    fw = make_firmware()
    pid = fw.process.pid
    fw.process.send_signal(signal.SIGTERM)
    # the timeout only keeps a hung harness from hanging the suite: how fast is not asserted
    assert fw.process.wait(timeout=30) == 0
    assert fw.events[-1].kind == "EXIT" or fw.wait_event("EXIT").fields["reason"] == "signal"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_quit_query_ends_the_harness(default_build):
    harness = Harness()
    try:
        assert harness.launch(default_build / "damas-sim",
                              [str(default_build / "damas.elf")]).startswith("/dev/")
        harness.query("quit")
        assert harness.process.wait(timeout=5) == 0
    finally:
        harness.stop()


def test_hardware_reset_query_reboots_the_firmware(fw):
    fw.unlock()
    fw.ok("G0 X3")
    fw.wait_state("Idle")
    fw.power_cycle()  # like the reset button: power-up state again, not a soft reset
    assert fw.expect_banner()[-1] == BANNER
    assert fw.next_line() == UNLOCK_HINT
    status = fw.status()
    assert status.state == "Alarm" and status.mpos == (0, 0, 0)
    assert fw.position().num("x") == pytest.approx(33.0)  # the carriage did not move


def test_hardware_reset_then_homing_works(fw):
    fw.power_cycle()
    fw.expect_banner()
    assert fw.next_line() == UNLOCK_HINT
    fw.ok("$H", timeout=30)  # the switches read open again after the reset
    pos = fw.position()
    assert abs(pos.num("x")) <= 1e-9 and abs(pos.num("y")) <= 1e-9


def test_corners_between_queued_moves_are_reported(fw):
    """Queued moves follow each other with no 20 ms rest; the harness still reports the
    point between them ("pause"), so a host can rebuild the path as straight lines."""
    fw.unlock(soft_limits=False)
    since = fw.mark()
    fw.write(b"G1 X10 F2000\nG1 X10 Y10\nG1 X0 Y10\nG4 P0\n")
    assert [fw.reply()[0] for _ in range(4)] == ["ok"] * 4
    fw.wait_event("POS", lambda e: e.fields["why"] == "rest", since)
    points = [(e.num("x") - 30, e.num("y") - 25) for e in fw.events_of("POS", since)
              if e.fields["why"] in ("pause", "rest")]
    for corner in [(10, 0), (10, 10), (0, 10)]:
        assert any(abs(x - corner[0]) <= 1e-9 and abs(y - corner[1]) <= 1e-9
                   for x, y in points), (corner, points)
    # every reported point lies on the path (a ramp's last step may add one a step away)
    for x, y in points:
        assert min(abs(y), abs(x - 10), abs(y - 10)) <= 1 / 80 + 1e-9, (x, y)


def test_magnet_events_say_where_the_carriage_is(fw):
    fw.unlock(soft_limits=False)
    since = fw.mark()
    fw.write(b"G0 X12.5 Y-3\nM3\nG0 X0 Y0\nM5\n")
    assert [fw.reply()[0] for _ in range(4)] == ["ok"] * 4
    on = fw.wait_event("MAG", lambda e: e.fields["on"] == "1", since)
    off = fw.wait_event("MAG", lambda e: e.fields["on"] == "0", since)
    assert (on.num("x"), on.num("y")) == (42.5, 22.0)
    assert (off.num("x"), off.num("y")) == (30.0, 25.0)


def test_trip_closes_a_switch_during_the_next_move(fw):
    fw.unlock()
    since = fw.mark()
    fw.hit_limit("X")  # answered by a TRIP event
    fw.ok("G0 X50")
    assert fw.next_line(timeout=10) == "ALARM:1"
    closed = fw.wait_event("LIMIT", lambda e: e.fields["closed"] == "1", since)
    opened = fw.wait_event("LIMIT", lambda e: e.fields["closed"] == "0", since)
    assert closed.fields["axis"] == "X" and 0 < opened.num("t") - closed.num("t") < 0.02
    assert fw.position().num("x") < 30 + 1  # stopped at once, within a millimetre
    fw.ok("$H", timeout=30)  # homing gets it out


def test_noise_reaches_the_host_and_is_not_a_reply(fw):
    since = fw.mark()
    fw.query("noise " + b"\x00#junk\r\n".hex())
    assert fw.wait_event("NOISE", since=since).fields["n"] == "8"
    assert fw.next_line() == "\x00#junk"
    assert fw.command("$X") == "ok"
    fw.query("noise zz")  # not hex: refused, nothing sent
    assert fw.wait_event("ERROR", since=since).raw.endswith("'noise zz'")


def test_exit_reports_where_the_carriage_stopped(fw):
    fw.unlock()
    fw.ok("G0 X7")
    fw.wait_state("Idle")
    fw.process.send_signal(signal.SIGTERM)
    assert fw.process.wait(timeout=5) == 0
    last = fw.wait_event("EXIT")
    pos = fw.wait_event("POS", lambda e: e.fields["why"] == "exit")
    assert fw.events.index(pos) == fw.events.index(last) - 1
    assert pos.num("x") == pytest.approx(37.0)
