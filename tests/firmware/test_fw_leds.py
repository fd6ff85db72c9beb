"""LED grid: colours decoded from the WS2812 data pin by pulse timing."""

import random

import pytest


def frames(fw, since):
    return fw.events_of("LED", since)


def test_show_sends_one_frame_with_the_colours_asked(fw):
    fw.unlock()
    rng = random.Random(7)
    wanted = ["000000"] * 50
    since = fw.mark()
    for index in rng.sample(range(50), 12):
        r, g, b = (rng.randrange(256) for _ in range(3))
        fw.ok(f"M150 I{index} R{r} U{g} B{b}")
        wanted[index] = f"{r:02x}{g:02x}{b:02x}"
    assert frames(fw, since) == []  # nothing reaches the LEDs before the show
    fw.ok("M151")  # the ok comes after the frame was sent (interrupts were off meanwhile)
    frame = fw.wait_event("LED", since=since)
    assert frame.fields["n"] == "50" and frame.fields["extra"] == "0"
    assert frame.fields["bad"] == "0", frame.raw  # every bit within WS2812 timing
    assert frame.words == tuple(wanted)


def test_wire_timing_is_within_the_datasheet(fw):
    fw.unlock()
    since = fw.mark()
    fw.ok("M150 R170 U85 B255")  # 0xaa 0x55 0xff: zeros and ones on the wire
    fw.ok("M151")
    frame = fw.wait_event("LED", since=since)
    low0, high0 = (float(v) for v in frame.fields["h0"].split("-"))
    low1, high1 = (float(v) for v in frame.fields["h1"].split("-"))
    assert 250 <= low0 <= high0 <= 550  # T0H 400 +- 150 ns
    assert 650 <= low1 <= high1 <= 950  # T1H 800 +- 150 ns
    assert frame.words == ("aa55ff",) * 50


def test_set_all_clear_and_show_again(fw):
    fw.unlock()
    since = fw.mark()
    fw.ok("M150 R1 U2 B3")
    fw.ok("M150 I49 R255")
    fw.ok("M151")
    fw.ok("M150")  # no colour words: all off
    fw.ok("M151")
    first = fw.wait_event("LED", since=since)
    second = fw.wait_event("LED", lambda e: e is not first, since)
    assert first.words == ("010203",) * 49 + ("ff0000",)
    assert second.words == ("000000",) * 50


def test_show_waits_for_motion_and_leds_work_while_locked(fw):
    # '$' and LEDs: a locked (alarm) machine refuses G-code, M150 included.
    assert fw.command("M151") == "error:9"
    fw.unlock()
    since = fw.mark()
    fw.write(b"G1 X5 F3000\nM150 I0 U255\nM151\n")
    assert [fw.reply()[0] for _ in range(3)] == ["ok"] * 3
    frame = fw.wait_event("LED", since=since)
    rest = fw.wait_event("POS", lambda e: e.fields["why"] == "rest", since)
    last_step_t = fw.step_times()[-1][0] / 16e6
    assert frame.num("t") >= last_step_t  # the frame went out after the move, not during it
    assert rest.num("x") == pytest.approx(35.0)
    assert frame.words[0] == "00ff00"
