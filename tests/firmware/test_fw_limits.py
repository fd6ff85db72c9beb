"""End stops: homing with the simulated switches, hard-limit alarm, soft limits."""

import pytest

ONE_STEP_MM = 1 / 80  # config.h: 80 steps/mm

PULLOFF = 2.0  # config.h HOMING_PULLOFF: switches sit this far beyond each end of travel


def test_homing_finds_the_switches_and_sets_the_origin(make_firmware):
    fw = make_firmware(start=(17.3, 9.9))
    since = fw.mark()
    fw.send("$H")
    assert fw.wait_state("Home", "Idle").state in ("Home", "Idle")
    answer, pushed = fw.reply(timeout=30)
    assert answer == "ok" and pushed == []
    assert fw.status().state == "Idle"
    pos = fw.position()
    # Machine zero is now the physical origin, exactly: the switch closes at -PULLOFF.
    assert abs(pos.num("x")) <= 1e-9 and abs(pos.num("y")) <= 1e-9
    assert pos.fields["limits"] == "00"
    closed = [e.fields["axis"] for e in fw.events_of("LIMIT", since) if e.fields["closed"] == "1"]
    assert closed == ["X", "X", "Y", "Y"]  # seek and slow locate, X then Y
    assert fw.status().mpos == (0, 0, 0)
    fw.ok("G0 X100.5 Y42.25")
    fw.wait_state("Idle")
    pos = fw.position()
    assert abs(pos.num("x") - 100.5) <= ONE_STEP_MM and abs(pos.num("y") - 42.25) <= ONE_STEP_MM
    # G28 homes again (as on Marlin), from anywhere.
    fw.ok("G28", timeout=30)
    pos = fw.position()
    assert abs(pos.num("x")) <= 1e-9 and abs(pos.num("y")) <= 1e-9


def test_homing_from_an_alarm_is_allowed(make_firmware):
    fw = make_firmware(start=(3.0, 4.0))
    assert fw.status().state == "Alarm"
    assert fw.command("G28") == "error:9"  # G-code is locked; $H is the way out
    fw.ok("$H", timeout=30)
    assert fw.status().state == "Idle"


def test_hard_limit_during_motion_raises_alarm_1(make_firmware):
    fw = make_firmware(start=(20.0, 20.0))
    fw.unlock(soft_limits=False)  # origin = power-up point, so X-30 is 10 mm beyond the end
    fw.send("G1 X-30 F3000")
    answer, _ = fw.reply()
    assert answer == "ok"
    assert fw.next_line(timeout=10) == "ALARM:1"
    assert fw.status().state == "Alarm"
    pos = fw.position()
    # Stopped within a step of where the switch closed (or two: the interrupt runs after the pulse).
    assert pos.num("x") == pytest.approx(-PULLOFF, abs=2 * ONE_STEP_MM)
    assert pos.fields["limits"] == "10"
    assert fw.command("G0 X0") == "error:9"
    fw.ok("$X")
    fw.ok("G91 G0 X5")  # away from the switch: allowed, the switch only acts when it closes
    fw.wait_state("Idle")
    assert fw.position().fields["limits"] == "00"


def test_hard_limit_then_homing_recovers(make_firmware):
    fw = make_firmware(start=(655.0, 10.0))  # config.h X_MAX_TRAVEL: 660 mm
    fw.unlock(soft_limits=False)
    fw.send("G1 X20 F3000")  # into the far switch at 662 mm
    assert fw.reply()[0] == "ok"
    assert fw.next_line(timeout=10) == "ALARM:1"
    assert fw.position().fields["limits"] == "10"
    fw.ok("$H", timeout=60)
    pos = fw.position()
    assert abs(pos.num("x")) <= 1e-9 and abs(pos.num("y")) <= 1e-9


def test_soft_limit_refuses_a_move_out_of_travel(fw):
    fw.unlock()  # soft limits on: machine space is [0, travel]
    fw.send("G0 X-5")
    answer, pushed = fw.reply()
    assert answer == "error:15" and pushed == ["ALARM:2"]
    assert fw.status().state == "Alarm"
    assert fw.position().num("steps") == 0
    fw.ok("$X")
    fw.ok("G0 X5")
    fw.wait_state("Idle")
