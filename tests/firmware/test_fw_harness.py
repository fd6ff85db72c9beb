"""The harness itself: it announces its pty, answers queries, resets, and leaves nothing behind."""

import os
import signal
import subprocess
import time

import pytest

BANNER = "Grbl 1.1h ['$' for help]"
UNLOCK_HINT = "[MSG:'$H'|'$X' to unlock]"


def test_stops_promptly_on_sigterm_and_leaves_no_process(make_firmware):
    fw = make_firmware()
    pid = fw.proc.pid
    started = time.monotonic()
    fw.proc.send_signal(signal.SIGTERM)
    assert fw.proc.wait(timeout=5) == 0
    assert time.monotonic() - started < 2
    assert fw.events[-1].kind == "EXIT" or fw.wait_event("EXIT").fields["reason"] == "signal"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_quit_query_and_closed_stdin(default_build, tmp_path):
    proc = subprocess.Popen(
        [str(default_build / "damas-sim"), str(default_build / "damas.elf")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().startswith("PTY /dev/")
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=5) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_hardware_reset_query_reboots_the_firmware(fw):
    fw.unlock()
    fw.ok("G0 X3")
    fw.wait_state("Idle")
    fw.query("reset")  # like the reset button: power-up state again, not a soft reset
    assert fw.expect_banner()[-1] == BANNER
    assert fw.next_line() == UNLOCK_HINT
    status = fw.status()
    assert status.state == "Alarm" and status.mpos == (0, 0, 0)
    assert fw.position().num("x") == pytest.approx(33.0)  # the carriage did not move
