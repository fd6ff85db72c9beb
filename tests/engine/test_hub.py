"""Hub: the wire format, our client against our server (`damas hub`) for whole games,
pydraughts' client against our server, and a client that survives engines that die,
fall silent or answer nonsense."""

import os
import signal
import sys
from pathlib import Path

import pytest
from engine_helpers import DAMAS, play_out

from damas.engine import (
    BuiltinEngine,
    EngineCrashed,
    EngineIllegalMove,
    EngineTimeout,
    HubEngine,
    Limit,
    RandomEngine,
)
from damas.engine.hubwire import format_line, parse_line, position_from_hub, position_to_hub
from damas.rules import Game, Position, variant

HANDSHAKE = """
    import sys
    def say(line):
        print(line, flush=True)
    for line in sys.stdin:
        cmd = line.split()[0] if line.split() else ""
        if cmd == "hub":
            say("id name=fake"); say("wait")
        elif cmd == "init":
            say("ready")
        elif cmd == "go":
            {on_go}
        elif cmd == "quit":
            break
"""


def test_lines_round_trip_with_quotes_and_words():
    line = format_line("info", depth=3, score="0.25", pv="32-28 19-23")
    parsed = parse_line(line)
    assert parsed.command == "info"
    assert parsed.args == {"depth": "3", "score": "0.25", "pv": "32-28 19-23"}
    assert parse_line("level infinite").words == ("infinite",)
    assert parse_line('param name=x value="" type=string').args["value"] == ""


@pytest.mark.parametrize("name", ["international", "brazilian", "english"])
def test_positions_round_trip(name):
    game = Game(name)
    for _ in range(12):
        game.push(game.legal_moves()[-1])
    pos = game.position
    text = position_to_hub(pos)
    assert len(text) == pos.variant.squares + 1
    assert position_from_hub(text, variant(name)) == pos


def test_start_position_string_is_scans():
    assert position_to_hub(Position.start("international")) == "W" + "b" * 20 + "e" * 10 + "w" * 20


@pytest.mark.parametrize("name", ["international", "english"])
def test_our_client_plays_a_whole_game_against_damas_hub(name):
    with HubEngine(DAMAS + ["hub"], name) as hub:
        assert hub.id["name"] == "damas"
        assert hub.ping() >= 0
        infos = []
        game = Game(name)
        first = hub.play(game, Limit(depth=3), on_info=infos.append)
        assert infos and infos[-1].depth == 3 and infos[-1].pv[0] == first.move
        opponent = RandomEngine(seed=2) if name == "international" else BuiltinEngine(
            name, level=2, seed=2)
        play_out(game, {0: hub, 1: opponent}, Limit(depth=3))
        assert game.outcome() is not None or game.ply == 300


def test_pydraughts_client_plays_damas_hub():
    """An independent Hub client (pydraughts 0.6.7) understands our server."""
    draughts = pytest.importorskip("draughts")
    from draughts.engine import HubEngine as TheirHub
    from draughts.engine import Limit as TheirLimit

    # pydraughts resolves symlinks in the command (the venv's python would become the
    # system one), so start the venv's `damas` script.
    engine = TheirHub([str(Path(sys.executable).parent / "damas"), "hub"])
    try:
        engine.init()
        board = draughts.Board(variant="standard")
        game = Game("international")
        for _ in range(8):
            result = engine.play(board, TheirLimit(depth=2), ponder=False)
            move = result.move
            board.push(move)
            game.push("x".join(map(str, move.steps_move)) if move.captures else
                      f"{move.steps_move[0]}-{move.steps_move[-1]}")
            assert game.position.fen().split(":")[0] in "WB"
    finally:
        engine.quit()
        engine.kill_process()


def test_a_killed_engine_raises_and_the_game_goes_on():
    with HubEngine(DAMAS + ["hub"], "international") as hub:
        game = Game("international")
        game.push("32-28")
        before = list(game.moves)

        def kill_when_thinking(info):
            os.kill(hub._proc.proc.pid, signal.SIGKILL)

        with pytest.raises(EngineCrashed, match="killed by signal 9"):
            hub.play(game, Limit(movetime=600), on_info=kill_when_thinking)
        assert game.moves == before  # the game is unchanged
        play_out(game, {0: RandomEngine(seed=1), 1: hub}, Limit(depth=2), max_plies=40)
        assert game.ply == 40 or game.outcome() is not None


def test_an_engine_that_exits_at_once_is_a_crash(script):
    command = script("dies", "import sys; sys.stderr.write('no licence\\n'); sys.exit(3)")
    with pytest.raises(EngineCrashed, match="status 3.*no licence"):
        HubEngine(command, "international", handshake_timeout=5)


def test_an_engine_silent_at_the_handshake_times_out(script):
    command = script("mute", "import sys\nfor line in sys.stdin: pass\n")
    with pytest.raises(EngineTimeout, match="answering `hub`"):
        HubEngine(command, "international", handshake_timeout=0.5)


def test_an_engine_silent_while_thinking_is_stopped_then_killed(script):
    command = script("hangs", HANDSHAKE.format(on_go="pass"))
    hub = HubEngine(command, "international", grace=0.3)
    game = Game("international")
    proc = hub._proc
    with pytest.raises(EngineTimeout, match="killed"):
        hub.play(game, Limit(movetime=0.2))
    assert not proc.alive and game.ply == 0
    with pytest.raises(EngineTimeout):  # a fresh process, as silent as the first
        hub.play(game, Limit(movetime=0.1))
    hub.close()


def test_an_engine_that_answers_after_stop_is_fine(script):
    on_go = """
            for line in sys.stdin:
                if line.startswith("stop"):
                    say("done move=32-28"); break
    """
    command = script("slow", HANDSHAKE.format(on_go=on_go.strip()))
    with HubEngine(command, "international", grace=0.3) as hub:
        assert hub.play(Game("international"), Limit(movetime=0.1)).move.short == "32-28"


def test_an_illegal_answer_is_refused_and_the_game_is_unchanged(script):
    command = script("cheat", HANDSHAKE.format(on_go='say("done move=32-23")'))
    with HubEngine(command, "international") as hub:
        game = Game("international")
        with pytest.raises(EngineIllegalMove, match="32-23"):
            hub.play(game, Limit(depth=1))
        assert game.ply == 0


def test_nonsense_is_an_illegal_move_too(script):
    command = script("babble", HANDSHAKE.format(on_go='say("done move=banana")'))
    with HubEngine(command, "international") as hub, pytest.raises(EngineIllegalMove):
        hub.play(Game("international"), Limit(depth=1))


def test_damas_hub_answers_ping_and_stop_while_analysing():
    from damas.engine.process import LineProcess

    proc = LineProcess(DAMAS + ["hub"], "damas hub")
    try:
        for line in ("hub", "init", "pos pos=" + position_to_hub(Position.start("international"))):
            proc.send(line)
        assert [proc.readline(30, "handshake") for _ in range(5)][-1] == "ready"
        proc.send("go analyze")
        first = parse_line(proc.readline(30, "analysing"))
        assert first.command == "info" and first.args["depth"] == "1"
        proc.send("ping")
        seen = []
        while "pong" not in seen:  # pong comes while the search goes on
            seen.append(parse_line(proc.readline(30, "answering ping")).command)
        assert "done" not in seen
        proc.send("stop")
        while True:
            line = parse_line(proc.readline(30, "stopping"))
            if line.command == "done":
                break
        move = Position.start("international").parse_move(line.args["move"])
        assert move in Position.start("international").legal_moves()
    finally:
        proc.send("quit")
        proc.terminate()


def test_damas_hub_reports_bad_positions_as_errors():
    from damas.engine.process import LineProcess

    proc = LineProcess(DAMAS + ["hub"], "damas hub")
    try:
        proc.send("pos pos=Wxyz")
        line = parse_line(proc.readline(30, "complaining"))
        assert line.command == "error" and "bad Hub position" in line.args["message"]
        proc.send('pos moves="32-27 32-28 99-98"')
        line = parse_line(proc.readline(30, "complaining"))
        assert line.command == "error"
    finally:
        proc.send("quit")
        proc.terminate()


def test_damas_hub_ponder_hit_turns_pondering_into_thinking():
    from damas.engine.process import LineProcess

    proc = LineProcess(DAMAS + ["hub"], "damas hub")
    try:
        for line in ("hub", "init", "level move-time=0.2", "go ponder"):
            proc.send(line)
        while parse_line(proc.readline(30, "pondering")).command != "info":
            pass
        proc.send("ponder-hit")  # from now on 0.2 s: `done` comes without a `stop`
        while True:
            line = parse_line(proc.readline(30, "thinking after ponder-hit"))
            if line.command == "done":
                break
        assert Position.start("international").parse_move(line.args["move"])
    finally:
        proc.send("quit")
        proc.terminate()


def test_an_engine_that_reports_an_error_is_restarted_at_the_next_move(script):
    command = script("grumpy", HANDSHAKE.format(on_go='say("error message=\\"no book\\"")'))
    with HubEngine(command, "international") as hub:
        first = hub._proc
        with pytest.raises(Exception, match="no book"):
            hub.play(Game("international"), Limit(depth=1))
        assert not first.alive
        with pytest.raises(Exception, match="no book"):  # a new process, same temper
            hub.play(Game("international"), Limit(depth=1))
        assert hub._proc is None or hub._proc is not first


HUB1_ENGINE = """
    import sys
    from damas.rules import Game, Position
    def say(line):
        print(line, flush=True)
    say("Fake 1.0 by nobody")  # Scan 2.0 greets before anything: not a Hub line
    heard = open(sys.argv[1], "a")
    game = None
    for line in sys.stdin:
        heard.write(line); heard.flush()
        words = line.split()
        if not words:
            continue
        if words[0] == "hub":
            say("name Fake 1.0"); say("author nobody"); say("country Nowhere"); say("wait")
        elif words[0] == "init":
            say("init eval"); say("ready")
        elif words[0] == "pos":
            side, board = words[1][0], words[1][1:]
            pieces = {sq: c for sq, c in enumerate(board, 1) if c != "e"}
            game = Game(start=Position.from_pieces("international", pieces, "wb".index(side)))
        elif words[0] == "move":
            game.push(words[1])
        elif words[0] == "go":
            move = game.legal_moves()[0]
            say(f"info 3 2.5 -7 1234 0.01 0.1 {move.hub}")
            say(f"move {move.hub}")
        elif words[0] == "quit":
            break
"""


def test_a_hub1_engine_is_told_by_its_handshake_and_spoken_to_in_hub1(script, tmp_path):
    """Scan 2.0's dialect, as `hub1.py` describes it, without Scan: the engine is a
    script that keeps the game from our lines and answers its first legal move."""
    heard = tmp_path / "heard.txt"
    engine = HubEngine([*script("hub1", HUB1_ENGINE), str(heard)], "international")
    try:
        assert engine.dialect == 1 and engine.id["name"] == "Fake 1.0"
        game = play_out(Game("international"), {0: engine, 1: RandomEngine(seed=3)},
                        Limit(movetime=0.25), max_plies=12)
        assert game.ply == 12
        result = engine.play(game, Limit(time=61.5, inc=1, moves_to_go=30))
        assert result.info.depth == 3 and result.info.score == -7
        assert result.move == game.legal_moves()[0]
    finally:
        engine.close()
    lines = heard.read_text().splitlines()
    assert lines[:2] == ["hub", "init"] and "new" in lines
    assert lines.count("time 250") == 6 and "level 30 61500 1000" in lines
    last = len(lines) - 1 - lines[::-1].index(next(x for x in reversed(lines)
                                                   if x.startswith("pos ")))
    assert lines[last].startswith("pos wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwww")
    assert [x[5:] for x in lines[last + 1:last + 13]] == [m.hub for m in game.moves]


def test_a_hub1_engine_is_refused_for_a_variant_it_cannot_play(script, tmp_path):
    from damas.engine import EngineProtocolError

    with pytest.raises(EngineProtocolError, match="international draughts only"):
        HubEngine([*script("hub1", HUB1_ENGINE), str(tmp_path / "h")], "brazilian")
