"""Progress of long work: a tqdm bar on a terminal (a real pty with a window size), plain
lines on a pipe, and stdout left to the result either way."""

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

WORK = """
from damas.progress import Progress
with Progress("bench vision", total=3, unit="frame", every=0) as p:
    for _ in range(3):
        p.update(1, "squares 99.9%")
    p.write("frame 2: read wrong")
print("the result")
"""


def test_a_bar_on_a_terminal():
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-c", WORK], stdin=child, stdout=child,
                            stderr=child)
    os.close(child)
    out = b""
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        out += data
    assert proc.wait(timeout=60) == 0
    text = out.decode()
    assert "bench vision: 100%|" in text and "3/3" in text and "squares 99.9%" in text
    assert "frame 2: read wrong" in text and "the result" in text


def test_plain_lines_elsewhere():
    proc = subprocess.run([sys.executable, "-c", WORK], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0
    assert proc.stdout == "the result\n"
    assert proc.stderr.splitlines() == [
        "bench vision: 1 of 3 frames (squares 99.9%)",
        "bench vision: 2 of 3 frames (squares 99.9%)",
        "bench vision: 3 of 3 frames (squares 99.9%)",
        "frame 2: read wrong"]
