"""Scan 2.0, the strong open international engine, built from its source (a GPLv3 test
oracle, never part of damas), plays whole games against the built-in engine through
Hub-1 (`scan hub`) and through DXP (`scan dxp`), with no protocol error."""

import socket
import subprocess
import time

from damas.engine import DxpEngine, MatchTimeControl, open_engine, run_match
from damas.engine.limits import Limit
from damas.rules import Game

# Scan answers at once from its book or when only one move is legal, and otherwise
# searches to depth 12 before it looks at the clock (a few hundredths of a second here).
HUB_MOVE_TIME = 0.1


def test_scan_plays_whole_games_through_hub1(scan_build, scan_folder):
    folder = scan_folder()
    spec = f"hub:cwd={folder} {scan_build / 'scan'} hub"
    with open_engine(spec, "international") as scan, \
            open_engine("builtin:level=10", "international") as ours:
        result = run_match(scan, ours, "international", 2,
                           MatchTimeControl(movetime=HUB_MOVE_TIME), max_plies=300)
        assert scan.dialect == 1 and scan.id["name"] == "Scan 2.0"
    for record in result.records:
        replay = Game(start=record.game.start)
        for move in record.game.moves:
            replay.push(move)  # every move legal
        assert record.game.outcome() is not None or record.reason.startswith("adjudicated")
        assert record.game.ply > 20
    assert {r.a_colour for r in result.records} == {0, 1}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    """Whether a socket listens on the port (Linux's table of TCP sockets): Scan takes
    one connection only, so a probe by connecting would use it up."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            if int(local.rsplit(":", 1)[1], 16) == port and state == "0A":
                return True
    return False


def _scan_dxp(scan_build, folder, port: int) -> subprocess.Popen:
    proc = subprocess.Popen([str(scan_build / "scan"), "dxp"], cwd=folder,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60  # it loads its evaluation, book and bitbases first
    while not _listening(port):
        if proc.poll() is not None:
            raise AssertionError(f"scan dxp ended: {proc.stderr.read()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("scan dxp never listened")
        time.sleep(0.05)  # polling for a state, not waiting out a race
    return proc


def test_scan_plays_a_whole_game_through_dxp_on_a_clock(scan_build, scan_folder):
    """A clock is announced as it is (one minute, the whole game): Scan plays to the end
    by the rules, managing its own time, and the game request is not cut short at a move
    count."""
    port = _free_port()
    folder = scan_folder(dxp_server="true", dxp_initiator="false", dxp_port=port)
    proc = _scan_dxp(scan_build, folder, port)
    try:
        scan = DxpEngine("127.0.0.1", port, "international", name="scan dxp")
        ours = open_engine("builtin:depth=4", "international")
        game, clocks = Game("international"), {0: 60.0, 1: 60.0}
        engines = {0: scan, 1: ours}
        while game.outcome() is None and game.ply < 300:
            side = int(game.position.turn)
            started = time.monotonic()
            result = engines[side].play(game, Limit(time=clocks[side]))
            clocks[side] -= time.monotonic() - started
            game.push(result.move)
        assert game.outcome() is not None, game.position.fen()
        assert clocks[0] > 0  # Scan kept to the minute it was told of
        scan.close()
        proc.wait(timeout=10)  # GAMEEND with stop: Scan 2.0 exits
    finally:
        if proc.poll() is None:
            proc.kill()
