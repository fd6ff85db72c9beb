"""Files and limits at the command line (issue 45): a full disk mid-game, output paths
that cannot be written, a killed run's temporary files, images that declare billions of
pixels, FIFOs and devices where a file is expected, configuration files and names beyond
their bounds. Each is the real CLI in a subprocess: one line on stderr, status 2, no
traceback, nothing of the record lost."""

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from damas.journal import read_journal
from damas.rules.pdn import read_pdn


def _damas(*args, timeout=60, **kw):
    return subprocess.run([sys.executable, "-m", "damas", *args], capture_output=True,
                          text=True, timeout=timeout, **kw)


def _one_line(proc, *words):
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("demo: ")]
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("damas: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


DEMO = ["demo", "--variant", "english", "--seed", "11", "--robot", "sim-python", "--json"]
TABLE = ["--camera", "sim-board", "--robot", "sim-python", "--variant", "english", "--level",
         "1", "--settle", "0.3"]
PLAY, KIOSK = ["play", *TABLE], ["kiosk", *TABLE, "--json"]


@pytest.fixture
def small_disk(tmp_path):
    """A filesystem of 12 kB (tmpfs), filled by a demo's journal within its game."""
    folder = tmp_path / "disk"
    folder.mkdir()
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12k", "tmpfs", str(folder)],
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"cannot mount a small tmpfs here (root only): {e}")
    yield folder
    subprocess.run(["umount", str(folder)], capture_output=True)


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_resume_says_how_far(small_disk):
    """Case 7: a full disk ended `damas demo` with two chained tracebacks, status 1."""
    proc = _damas(*DEMO, "--max-plies", "80", "--data-dir", str(small_disk), timeout=600)
    _one_line(proc, "No space left on device", "--resume")
    moves = [e for e in read_journal(small_disk / "demo.jsonl") if e["kind"] == "move"]
    assert moves  # the game had begun: the record is kept as far as it was written
    (live,) = read_pdn((small_disk / "demo.pdn").read_text())
    recorded = [m["notation"] for m in moves]
    assert live.game.notations() == recorded[:live.game.ply]
    assert len(recorded) - live.game.ply <= 1
    subprocess.run(["mount", "-o", "remount,size=1m", str(small_disk)], check=True)
    done = _damas(*DEMO, "--resume", "--max-plies", str(len(recorded) + 2), "--data-dir",
                  str(small_disk), timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"damas: resumed after {len(recorded)} plies: " in done.stderr
    (after,) = read_pdn((small_disk / "demo.pdn").read_text())
    assert after.game.notations()[:len(recorded)] == recorded


def test_play_on_a_full_disk_is_one_line_and_resume_goes_on(small_disk):
    """The same wrapper for `damas play`: one line, status 2, the record kept as far as
    it was written, and --resume goes on from there once there is room."""
    proc = _damas(*PLAY, "--max-plies", "200", "--data-dir", str(small_disk), timeout=600)
    _one_line(proc, "No space left on device", "--resume")
    moves = [e for e in read_journal(small_disk / "play.jsonl") if e["kind"] == "move"]
    assert moves
    (live,) = read_pdn((small_disk / "play.pdn").read_text())
    recorded = [m["notation"] for m in moves]
    assert live.game.notations() == recorded[:live.game.ply]
    subprocess.run(["mount", "-o", "remount,size=1m", str(small_disk)], check=True)
    done = _damas(*PLAY, "--resume", "--max-plies", str(len(recorded) + 2), "--data-dir",
                  str(small_disk), timeout=600)
    assert done.returncode == 0, done.stderr
    (after,) = read_pdn((small_disk / "play.pdn").read_text())
    assert after.game.notations()[:len(recorded)] == recorded


def test_a_kiosk_on_a_full_disk_is_one_line_and_archives_the_game_when_started_again(
        small_disk):
    """The kiosk has no --resume: its line says to start it again, and then the game
    the disk cut short goes to the archive."""
    proc = _damas(*KIOSK, "--games", "3", "--attract-plies", "200", "--data-dir",
                  str(small_disk), timeout=600)
    line = _one_line(proc, "No space left on device", "start it again")
    assert "--resume" not in line
    assert [e for e in read_journal(small_disk / "kiosk.jsonl") if e["kind"] == "move"]
    subprocess.run(["mount", "-o", "remount,size=1m", str(small_disk)], check=True)
    done = _damas(*KIOSK, "--games", "1", "--attract-plies", "2", "--data-dir",
                  str(small_disk), timeout=600)
    assert done.returncode == 0, done.stderr
    games = read_pdn((small_disk / "kiosk.pdn").read_text())
    assert len(games) == 2 and games[0].tags["Result"] == "*"  # the one cut short first


@pytest.mark.parametrize("args, words", [
    (["record", "--camera", "none", "--pdn", "{tmp}"], ["the PDN", "is a folder"]),
    (["record", "--camera", "none", "--journal", "/dev/null", "--pdn", "{tmp}/r.pdn"],
     ["the journal /dev/null is a device"]),
    ([*DEMO, "--pdn", "/proc/version", "--data-dir", "{tmp}"], ["cannot write the PDN"]),
    ([*DEMO, "--video", "{tmp}", "--data-dir", "{tmp}"], ["the video", "is a folder"]),
    ([*PLAY, "--data-dir", "{tmp}", "--pdn", "{tmp}"], ["the PDN", "is a folder"]),
    ([*PLAY, "--data-dir", "{tmp}", "--journal", "/proc/version"],
     ["cannot write the journal /proc/version"]),
    ([*PLAY, "--resume", "--journal", "/dev/null", "--pdn", "{tmp}/p.pdn"],
     ["the journal /dev/null is a device"]),
    ([*KIOSK, "--data-dir", "{tmp}", "--journal", "/dev/null"],
     ["the journal /dev/null is a device"]),
    ([*KIOSK, "--data-dir", "{tmp}", "--archive", "{tmp}"], ["the archive", "is a folder"]),
    ([*KIOSK, "--data-dir", "{tmp}", "--archive", "/proc/version/k.pdn"],
     ["cannot write the archive /proc/version/k.pdn"]),
    ([*KIOSK, "--data-dir", "{tmp}", "--archive", "{tmp}/k.pdn"],
     ["the current game's PDN", "is a folder"]),
])
def test_output_paths_are_checked_before_the_first_move(tmp_path, args, words):
    """Case 8: `record --pdn DIR` started, then raised IsADirectoryError at the first
    move; `demo --pdn /proc/version` raised FileNotFoundError. `play` and `kiosk` write a
    journal and PDNs too: checked the same way, before the simulated table is set up."""
    (tmp_path / "k-current.pdn").mkdir()  # where `kiosk --archive k.pdn` plays its game
    proc = _damas(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    _one_line(proc, *words)
    assert not list(tmp_path.glob("*.jsonl"))  # nothing began


def test_a_killed_runs_temporary_files_go_at_the_next_start(tmp_path):
    """Case 9: a SIGKILL between a temporary file's write and its rename left
    `.record.pdn.<hex>.tmp` beside the record, and no later run removed it."""
    strays = [tmp_path / ".demo.pdn.0123456789ab.tmp", tmp_path / ".demo.jsonl.a1b2c3d4e5f6.tmp"]
    others = [tmp_path / ".demo.pdn.notours.tmp", tmp_path / ".other.pdn.0123456789ab.tmp",
              tmp_path / "notes.txt"]
    for path in strays + others:
        path.write_text("half a record")
    proc = _damas(*DEMO, "--max-plies", "2", "--data-dir", str(tmp_path), timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert not any(p.exists() for p in strays)
    assert all(p.exists() for p in others)
    assert len(read_pdn((tmp_path / "demo.pdn").read_text())) == 1


@pytest.mark.parametrize("args, outputs", [
    ([*PLAY, "--max-plies", "2"], ["play.pdn", "play.jsonl"]),
    ([*KIOSK, "--games", "1", "--attract-plies", "2"],
     ["kiosk.pdn", "kiosk-current.pdn", "kiosk.jsonl"]),
])
def test_play_and_kiosk_remove_a_killed_runs_temporary_files(tmp_path, args, outputs):
    """Case 9 for the other commands that write: `play` and `kiosk` leave
    `.play.pdn.<hex>.tmp` and the like when killed mid-write; the next start removes them
    (and only them)."""
    strays = [tmp_path / f".{name}.0123456789ab.tmp" for name in outputs]
    others = [tmp_path / f".{outputs[0]}.notours.tmp", tmp_path / "notes.txt"]
    for path in strays + others:
        path.write_text("half a record")
    proc = _damas(*args, "--data-dir", str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not any(p.exists() for p in strays)
    assert all(p.exists() for p in others)
    assert len(read_pdn((tmp_path / outputs[0]).read_text())) == 1


def _png(path: Path, width: int, height: int) -> None:
    """A grey PNG of any size, its pixels compressed row by row (a few hundred kB)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    squeeze = zlib.compressobj(9)
    row = b"\x00" + bytes(width)
    data = b"".join(squeeze.compress(row) for _ in range(height)) + squeeze.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(
        ">IIBBBBB", width, height, 8, 0, 0, 0, 0)) + chunk(b"IDAT", data) + chunk(b"IEND", b""))


# the command run as `damas` would run it, then its own peak memory (VmHWM: of this
# process's memory map only; ru_maxrss from wait4 would also count the pytest process it
# was forked from, hundreds of MB late in a whole test run)
_PEAK = ("import atexit, sys\n"
         "def peak():\n"
         "    kb = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
         "    open(sys.argv[1], 'w').write(kb)\n"
         "atexit.register(peak)\n"
         "from damas.cli import main\n"
         "sys.exit(main(sys.argv[2:]))\n")


def _peak_mb(args, tmp_path: Path) -> tuple[subprocess.CompletedProcess, float]:
    """The command's result and its own peak memory in MB."""
    peak = tmp_path / "peak.kb"
    done = subprocess.run([sys.executable, "-c", _PEAK, str(peak), *args],
                          capture_output=True, text=True, timeout=300)
    return done, int(peak.read_text()) / 1024


@pytest.mark.parametrize("side", [20000, 40000])
def test_read_checks_the_pixel_count_before_decoding(tmp_path, side):
    """Case 10: a 20000x20000 PNG of 389 kB cost 2.4 GB before its one line; 40000x40000
    gave a cv2.error traceback."""
    image = tmp_path / "huge.png"
    _png(image, side, side if side == 20000 else 2)  # 40000 x 2 is not huge: see below
    if side == 40000:  # the header alone says 40000 x 40000
        data = bytearray(image.read_bytes())
        data[20:24] = struct.pack(">I", 40000)
        data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
        image.write_bytes(bytes(data))
    proc, peak = _peak_mb(["read", str(image)], tmp_path)
    _one_line(proc, f"{side} x {side} pixels", "50 megapixels")
    assert peak < 500


def test_read_refuses_a_fifo(tmp_path):
    """Case 10: a FIFO named x.png hung `damas read`."""
    fifo = tmp_path / "x.png"
    os.mkfifo(fifo)
    _one_line(_damas("read", str(fifo), timeout=30), "not a regular file")


@pytest.mark.parametrize("make, words", [
    (lambda tmp: "/dev/zero", ["/dev/zero is a device"]),
    (lambda tmp: (os.mkfifo(tmp / "fifo.toml"), str(tmp / "fifo.toml"))[1], ["a FIFO"]),
    (lambda tmp: ((tmp / "big.toml").write_text("x = [" + "1," * 2_000_000 + "]\n"),
                  str(tmp / "big.toml"))[1], ["larger than 1 MB"]),
    (lambda tmp: ((tmp / "name.toml").write_text(f'[record]\nwhite = "{"A" * 300}"\n'),
                  str(tmp / "name.toml"))[1], ["white", "at most 200 characters"]),
])
def test_config_files_are_bounded_and_regular(tmp_path, make, words):
    """Case 11: `--config /dev/zero` grew to a MemoryError, a FIFO hung, a 50 MB array
    parsed for over a minute, a 50 MB player name was accepted."""
    proc = _damas("record", "--camera", "none", "--data-dir", str(tmp_path), "--config",
                  make(tmp_path), timeout=30)
    _one_line(proc, *words)


@pytest.mark.parametrize("name, words", [
    ("Ana\n\n1. 9-13 1-0", ["one line"]), ("A" * 300, ["at most 200 characters"])])
def test_names_are_one_line_of_bounded_length(tmp_path, name, words):
    """Case 3 at the command line: `damas record --white $'Ana\\n\\n1. 9-13 1-0'` was
    accepted, and its PDN then held a fake move and result."""
    proc = _damas("record", "--camera", "none", "--data-dir", str(tmp_path), "--white", name)
    _one_line(proc, "--white", *words)


@pytest.mark.parametrize("args, words", [
    (["record", "--publish", "mqtt://127.0.0.1/Open%0A%0A1.%209-13%201-0/1/1"],
     ["--publish", "the event", "one line"]),
    (["record", "--publish", f"mqtt://127.0.0.1/{'A' * 300}/1/1"],
     ["--publish", "the event", "at most 200 characters, not 300"]),
    (["record", "--publish", f"mqtt://127.0.0.1/Open/{'7' * 201}/1"],
     ["--publish", "the round", "at most 200 characters"]),
    (["record", "--publish", "mqtt://127.0.0.1/Open/1/%E2%80%A8"],
     ["--publish", "the board", "one line"]),
    (["broadcast", "--event", "E" * 300], ["--event", "at most 200 characters"]),
])
def test_the_hall_addresss_names_are_bounded_as_players_names_are(tmp_path, args, words):
    """The event, round and board of `record --publish mqtt://HOST/EVENT/ROUND/BOARD` go
    into the PDN's tags (Event, Round, Board) and the spool's file name: a `%0A` in them
    made a PDN tag of two lines and a spool file named over three; any length passed.
    `broadcast --event` names the same event."""
    extra = ["--camera", "none", "--data-dir", str(tmp_path)] if args[0] == "record" else []
    proc = _damas(*args, *extra, timeout=30)
    line = _one_line(proc, *words)
    assert len(line) < 400
    assert not list(tmp_path.iterdir())  # no spool, no journal


def test_a_config_files_hall_address_is_bounded_too(tmp_path):
    config = tmp_path / "hall.toml"
    config.write_text(f'[record]\npublish = "mqtt://127.0.0.1/{"A" * 300}/1/1"\n')
    proc = _damas("record", "--camera", "none", "--data-dir", str(tmp_path / "data"),
                  "--config", str(config), timeout=30)
    _one_line(proc, "publish", "at most 200 characters")
