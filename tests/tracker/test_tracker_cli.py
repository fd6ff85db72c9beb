"""`damas track FILE` and `damas bench tracker`: JSON events out, clear one-line errors."""

import io
import json
import subprocess
import sys

import pytest

from damas.cli import main
from damas.rules import Position
from damas.rules.tracker.board import Observation
from damas.rules.tracker.format import format_observation


def line(position_or_pieces, variant, time=None, **kw) -> str:
    pieces = (position_or_pieces.pieces() if isinstance(position_or_pieces, Position)
              else position_or_pieces)
    v = Position.start(variant).variant
    return format_observation(Observation.from_pieces(v, pieces, time, **kw))


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(x) for x in out.splitlines()], err


def test_an_english_opening_without_time_stamps(tmp_path, capsys):
    start = Position.start("english")
    lifted = dict(start.pieces())
    del lifted[11]
    after = start.play(start.parse_move("11-15"))
    f = tmp_path / "game.obs"
    f.write_text("# a recorded opening\n\n" + "\n".join(
        [line(start, "english"), line(lifted, "english"), line(after, "english")]) + "\n")
    code, events, err = run(capsys, ["track", "--variant", "english", str(f)])
    assert code == 0 and err == ""
    assert events == [
        {"event": "setup", "t": 1.0, "fen": "B:W21-32:B1-12", "start": True},
        {"event": "pending", "t": 1.0, "squares": [15, 16], "moves": ["11-15", "11-16"],
         "runner_up": "nothing moved", "margin": 3.94},
        {"event": "move", "t": 3.0, "notation": "11-15", "fen": "W:W21-32:B1-10,12,15",
         "ply": 1, "side": "black", "move": {"path": [11, 15], "captured": []},
         "result": None, "runner_up": "11-15 under way", "margin": 7.94},
    ]


def test_the_issue_example_in_a_tournament(tmp_path, capsys):
    fen = "W:W32,33,45:B3,29"
    pos = Position.from_fen(fen, "international")
    played = dict(pos.pieces())
    played[27] = played.pop(32)
    answered = dict(played)
    answered[38] = answered.pop(29)
    del answered[33]
    f = tmp_path / "t.obs"
    f.write_text("\n".join([
        "t=0 " + line(pos, "international"),
        "t=2.0 " + line(played, "international"),
        "t=5.0 " + line(answered, "international"),
        "t=5.2 commit",
    ]) + "\n")
    code, events, _ = run(capsys, ["track", "--variant", "international", "--fen", fen,
                                   "--policy", "tournament", str(f)])
    assert code == 0
    assert [e["event"] for e in events] == ["setup", "irregular", "accepted", "move"]
    irregular = events[1]
    assert irregular["article"] == "5.4.06" and irregular["squares"] == [27, 32]
    assert irregular["t"] == 3.0  # shown at 2.0, settled one second later
    assert irregular["message_pt"].startswith("A captura é obrigatória")
    assert events[3]["notation"] == "29x38" and events[3]["t"] == 5.2  # the commit


def test_stdin_grouped_readings_light_squares_and_settle(capsys, monkeypatch):
    start = Position.start("international")
    grouped = " ".join(line(start, "international")[i:i + 5] for i in range(0, 50, 5))
    knocked = dict(start.pieces())
    del knocked[19]
    text = f"t=0 {grouped}\nt=0.5 {line(knocked, 'international')} light=g6:b\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, events, _ = run(capsys, ["track", "--settle", "0.25", "-"])
    assert code == 0
    assert events == [
        {"event": "setup", "t": 0.25, "fen": "W:W31-50:B1-20", "start": True},
        {"event": "displaced", "t": 0.5, "squares": [19], "light": ["g6"]},
    ]


def test_resuming_a_game_record(tmp_path, capsys):
    pdn = tmp_path / "g.pdn"
    pdn.write_text('[GameType "21"]\n1. 11-15 23-19 *\n')
    pos = Position.start("english")
    for m in ("11-15", "23-19"):
        pos = pos.play(pos.parse_move(m))
    nxt = pos.play(pos.parse_move("8-11"))
    f = tmp_path / "r.obs"
    f.write_text(line(pos, "english") + "\n" + line(nxt, "english") + "\n")
    code, events, _ = run(capsys, ["track", "--variant", "english", "--resume", str(pdn),
                                   str(f)])
    assert code == 0
    assert [(e["event"], e.get("notation"), e.get("ply")) for e in events] == [
        ("setup", None, None), ("move", "8-11", 3)]


@pytest.mark.parametrize("content, message", [
    ("e" * 49, "line 1: expected 50 square readings for international"),
    ("# fine\n" + "x" * 50, "line 2: unknown square reading 'x'"),
    ("t=soon " + "e" * 50, "line 1: time stamp 't=soon' is not a number"),
    ("e" * 50 + " light=b2:w", "line 1: 'b2' is not a light square"),
    ("e" * 50 + " light=b1", "line 1: light square report 'b1' must look like b1:w"),
    ("t=5 " + "e" * 50 + "\nt=4 " + "e" * 50, "line 2: time 4.0 is before the previous one"),
])
def test_bad_observations_exit_2_with_one_line(tmp_path, capsys, content, message):
    f = tmp_path / "bad.obs"
    f.write_text(content + "\n")
    code = main(["track", str(f)])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("damas: " + message)
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["track", "/nonexistent/x.obs"], "cannot read the observation file"),
    (["track", "--fen", "X:1", "-"], "FEN"),
    (["track", "--variant", "chess", "-"], "unknown variant 'chess'"),
    (["track", "--policy", "casual", "-"], "invalid choice: 'casual'"),
    (["track", "--settle", "-1", "-"], "settle time"),
    (["track", "--fen", "W:W1:B2", "--resume", "g.pdn", "-"], "not both"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, monkeypatch, argv, message):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 2 and message in err and err.count("\n") == 1


def test_the_real_command_prints_no_traceback(tmp_path):
    f = tmp_path / "bad.obs"
    f.write_text("e" * 32 + "\n" + "w" * 31 + "\n")
    done = subprocess.run([sys.executable, "-m", "damas", "track", "--variant", "brazilian",
                           str(f)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == ("damas: line 2: expected 32 square readings for brazilian "
                           "(e w b W B ?), found 31\n")


def test_bench_tracker_prints_its_figures(capsys):
    assert main(["bench", "tracker", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["moves_seen"] > 100 and figures["observations"] > figures["moves_seen"]
    assert 0 < figures["median_ms"] <= figures["p90_ms"] <= figures["max_ms"]


def test_probability_lines_let_the_game_outvote_a_misread(tmp_path, capsys):
    """JSON lines carry the camera's probabilities: a man misread with confidence 0.9 on
    the square the move leaves alone is outvoted; the move is recorded with the square
    named as read otherwise."""
    start = Position.start("english")
    after = start.play(start.parse_move("11-15"))
    squares = [after.pieces().get(s, "e") for s in range(1, 33)]
    noisy: list = list(squares)
    noisy[20] = {"e": 0.9, "w": 0.1}  # square 21's white man read as empty
    lines = [json.dumps({"t": 0, "squares": [start.pieces().get(s, "e")
                                             for s in range(1, 33)]}),
             json.dumps({"t": 2, "squares": noisy}),
             json.dumps({"t": 2.5, "squares": noisy}),
             json.dumps({"t": 3.2, "commit": True})]
    f = tmp_path / "game.jsonl"
    f.write_text("\n".join(lines) + "\n")
    code, events, err = run(capsys, ["track", "--variant", "english", str(f)])
    assert code == 0 and err == ""
    moves = [e for e in events if e["event"] == "move"]
    assert [m["notation"] for m in moves] == ["11-15"]
    assert moves[0]["disagree"] == [21] and moves[0]["margin"] >= 2
    assert not [e for e in events if e["event"] == "irregular"]


def test_a_letter_misread_is_outvoted_too(tmp_path, capsys):
    start = Position.start("english")
    after = start.play(start.parse_move("11-15"))
    wrong = line(after, "english")
    wrong = wrong[:27] + "e" + wrong[28:]  # square 28's man read as empty
    f = tmp_path / "game.obs"
    f.write_text(f"t=0 {line(start, 'english')}\nt=2 {wrong}\nt=2.2 commit\n")
    code, events, err = run(capsys, ["track", "--variant", "english", str(f)])
    assert code == 0, err
    assert [e["notation"] for e in events if e["event"] == "move"] == ["11-15"]


def test_bad_probability_lines_are_one_line_each(tmp_path, capsys):
    f = tmp_path / "bad.jsonl"
    for text, message in [
            ('{"squares": ["e"]}', "squares must list 32 readings"),
            ('{"t": NaN, "squares": []}', "not a JSON object"),
            ('{"t": 1, "sqares": []}', "unknown key 'sqares'"),
            ('{"squares": [' + ", ".join(['{"x": 1}'] * 32) + ']}', "square 1: a reading")]:
        f.write_text(text + "\n")
        code, events, err = run(capsys, ["track", "--variant", "english", str(f)])
        assert code == 2 and events == [], text
        assert message in err and err.count("\n") == 1, err
