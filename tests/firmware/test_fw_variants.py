"""Other builds: CoreXY kinematics, the Mega 2560, an 8x8 board with Z on a plain pin."""

import pytest

ONE_STEP_MM = 1 / 80  # config.h: 80 steps/mm


def test_corexy_moves_decode_to_the_commanded_point(make_firmware):
    fw = make_firmware(start=(12.0, 8.0), KINEMATICS="corexy")
    fw.send("$I")
    assert "[MSG:CoreXY LEDs=50]" in fw.reply()[1]
    fw.ok("$H", timeout=30)
    for line, x, y in [
        ("G0 X20 Y10", 20, 10),
        ("G0 X35", 35, 10),
        ("G1 Y30 F3000", 35, 30),
        ("G0 X40.0125 Y30.0125", 40.0125, 30.0125),
    ]:
        fw.ok(line)
        status = fw.wait_state("Idle")
        pos = fw.position()
        assert abs(pos.num("x") - x) <= ONE_STEP_MM and abs(pos.num("y") - y) <= ONE_STEP_MM, (
            pos.raw
        )
        assert status.mpos[:2] == pytest.approx((x, y), abs=ONE_STEP_MM)
        # The motors really are belts: A = X + Y, B = X - Y (in steps).
        assert int(pos.fields["a"]) == round((x + y) * 80) and int(pos.fields["b"]) == round(
            (x - y) * 80
        )


def test_mega2560_build_runs(make_firmware):
    fw = make_firmware(start=(5.0, 5.0), MCU="atmega2560")
    fw.ok("$H", timeout=30)
    fw.ok("G0 X10 Y7")
    fw.wait_state("Idle")
    pos = fw.position()
    assert (pos.num("x"), pos.num("y")) == pytest.approx((10, 7), abs=ONE_STEP_MM)
    since = fw.mark()
    fw.ok("M3")
    fw.wait_event("MAG", lambda e: e.fields["on"] == "1", since)
    fw.ok("M150 I2 R9 U8 B7")
    fw.ok("M151")
    frame = fw.wait_event("LED", since=since)
    assert frame.fields["bad"] == "0" and frame.words[2] == "090807" and len(frame.words) == 50
    fw.ok("G0 Z15")  # servo on OC2B here
    fw.wait_event("Z", lambda e: abs(e.num("z") - 15) < 0.6, since)


def test_8x8_board_with_z_on_a_pin(make_firmware):
    fw = make_firmware(LEDS="32", ZMODE="pin")
    fw.unlock()
    since = fw.mark()
    assert fw.command("M150 I32 R1") == "error:38"  # 32 LEDs: 0..31
    fw.ok("M150 I31 B255")
    fw.ok("M151")
    frame = fw.wait_event("LED", since=since)
    assert frame.fields["n"] == "32" and frame.words[31] == "0000ff"
    fw.ok("G0 Z20")
    fw.wait_event("Z", lambda e: e.fields["pin"] == "1", since)
    fw.ok("G0 Z0")
    fw.wait_event("Z", lambda e: e.fields["pin"] == "0", since)
