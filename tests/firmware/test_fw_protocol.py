"""Line protocol: banner, one reply per line, GRBL error numbers, status reports, settings."""

import random

import pytest

BANNER = "Grbl 1.1h ['$' for help]"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"


def test_power_up_shows_banner_and_is_locked_until_unlocked(fw):
    # fw already consumed the banner; a locked machine refuses G-code but takes '$' commands.
    assert fw.status().state == "Alarm"
    assert fw.command("G0 X1") == "error:9"
    fw.send("$X")
    answer, pushed = fw.reply()
    assert answer == "ok" and pushed == ["[MSG:Caution: Unlocked]"]
    assert fw.status().state == "Idle"


def test_power_up_lines(make_firmware):
    fw = make_firmware(power_up=False)
    fw.power_on()
    assert fw.next_line() == BANNER  # the pty sees the very first bytes after power-up
    assert fw.next_line() == UNLOCK_HINT


def test_every_line_gets_exactly_one_reply(fw):
    fw.unlock()
    lines = [
        "",
        "   ",
        "(only a comment)",
        "; also a comment",
        "G90",
        "g91",
        "G90 (mode) ; back",
        "$G",
        "$I",
        "$$",
        "G21 G17 G94 G54",
        "N10 G4 P0",
        "M5",
        "M9",
        "S1000",
        "T1",
        "G20",
    ]
    for line in lines:
        fw.send(line)
    replies = [fw.reply()[0] for _ in lines]
    assert replies == ["ok"] * 15 + ["error:20", "error:20"]
    # And nothing more is pending: the next line's reply is its own.
    assert fw.command("G4 P0") == "ok"


def test_crlf_counts_as_one_line_end(fw):
    fw.unlock()
    fw.write(b"G4 P0\r\nG4 P0\r\n")
    assert [fw.reply()[0], fw.reply()[0]] == ["ok", "ok"]
    assert fw.command("$X") == "ok"  # no extra ok was queued before this one


@pytest.mark.parametrize(
    "line, code",
    [
        ("#5", 1),  # not a command letter
        ("G0 X", 2),  # letter without number
        ("G0 X1.2.3", 1),  # second '.' is where the next word should start
        ("FOO", 2),
        ("$Q", 3),
        ("$100=5", 3),  # compile-time setting
        ("F-5", 4),
        ("G4 P-1", 4),
        ("M150 R-1", 4),
        ("G20", 20),  # inches
        ("G38.2 X1", 20),
        ("M7", 20),
        ("A5", 20),  # axis we do not have
        ("G0 G1 X1", 21),
        ("M3 M5", 21),
        ("G1 X10", 22),  # no feed rate yet
        ("G1 X10 F0", 22),
        ("M150 I1.5", 23),
        ("G28 X0", 24),
        ("G0 X1 X2", 25),
        ("G4", 28),
        ("G0 X1 P2", 36),  # P used by nothing here
        ("M150 I50 R1", 38),  # LEDs are 0..49
        ("M150 U256", 38),
    ],
)
def test_error_numbers(fw, line, code):
    fw.unlock()
    assert fw.command(line) == f"error:{code}"
    # A rejected line changes nothing: no motion, still idle.
    assert fw.status().state == "Idle"
    assert fw.position().num("steps") == 0


def test_overlong_line_is_error_11_and_the_next_line_works(fw):
    fw.unlock()
    assert fw.command("G4P0" + "0" * 80) == "error:11"
    assert fw.command("G4 P0" + " " * 100) == "ok"  # spaces do not count, as on GRBL
    assert fw.command("G4 P0") == "ok"


def test_settings_and_homing_switches(fw):
    fw.send("$$")
    answer, lines = fw.reply()
    assert answer == "ok"
    settings = dict(line.split("=") for line in lines)
    assert settings["$20"] == "1" and settings["$22"] == "1" and settings["$100"] == "80.000"
    assert fw.command("$22=0") == "ok"
    assert fw.command("$20=1") == "error:10"  # soft limits need homing
    assert fw.command("$H") == "error:5"  # homing disabled
    assert fw.command("$22=1") == "ok"
    assert fw.command("$20=0") == "ok"
    fw.send("$$")
    assert "$20=0" in fw.reply()[1]


def test_build_info_and_parser_state(fw):
    fw.send("$I")
    answer, lines = fw.reply()
    assert answer == "ok" and lines[0].startswith("[VER:1.1h")
    assert any(line.startswith("[OPT:") and line.endswith(",127]") for line in lines)
    fw.unlock()
    fw.ok("G91 G1 F1234")
    fw.send("$G")
    answer, lines = fw.reply()
    assert lines == ["[GC:G1 G54 G17 G21 G91 G94 M5 M9 T0 F1234 S0]"]


def test_status_report_format(make_firmware):
    fw = make_firmware(speed=1)  # a report must come while the move runs
    fw.write(b"?")
    assert fw.next_line() == "<Alarm|MPos:0.000,0.000,0.000|FS:0,0>"
    fw.unlock()
    fw.ok("G0 Z12.5 X0.0125")
    fw.write(b"?")
    assert fw.next_line() == "<Idle|MPos:0.013,0.000,12.500|FS:0,0>"  # three decimals, as GRBL
    fw.ok("G1 X20 F3000")
    running = fw.wait_state("Run")
    assert 0 < running.feed <= 3000 and 0 < running.mpos[0] < 20


def test_garbage_bytes_give_replies_not_hangs(fw):
    fw.unlock()
    rng = random.Random(5)
    # Anything but line ends and the real-time bytes (which act, not answer).
    alphabet = [b for b in range(256) if b not in b"\r\n?!~\x18"]
    count = 30
    for _ in range(count):
        fw.write(bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) + b"\n")
        answer = fw.reply()[0]  # one at a time: stays within the 128-byte receive buffer
        assert answer == "ok" or answer.startswith("error:")
    fw.write(bytes(rng.choice(alphabet) for _ in range(300)) + b"\n")  # long garbage too
    assert fw.reply()[0].startswith("error:")
    assert fw.command("G4 P0") == "ok"
    assert fw.status().state in (
        "Idle",
        "Alarm",
    )  # garbage may have set or locked things, never hung


def test_realtime_bytes_act_inside_a_line(fw):
    fw.unlock()
    fw.write(b"G4")
    fw.write(b"?")  # a status report in the middle of a line
    assert fw.read_status().state == "Idle"
    fw.write(b" P0\n")
    assert fw.reply()[0] == "ok"
