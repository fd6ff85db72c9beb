import json

import pytest

from damas.clock import Clock, TimeControl, format_clock, parse_time_control
from damas.events import GameStart, PlayedMove, Tracked
from damas.journal import Journal, JournalError, last_game, read_journal
from damas.rules import BLACK, WHITE, DamasError


@pytest.mark.parametrize("text, minutes, inc, kind", [
    ("3", 3, 0, "blitz"), ("5+3", 5, 3, "blitz"), ("15+0", 15, 0, "rapid"),
    ("21", 21, 0, "semi-rapid"), ("30+10", 30, 10, "semi-rapid"), ("45+0", 45, 0, "classical"),
    (" 90 + 30 ", 90, 30, "classical"),
])
def test_time_controls_of_seed_004(text, minutes, inc, kind):
    tc = parse_time_control(text)
    assert (tc.minutes, tc.increment, tc.kind) == (minutes, inc, kind)


@pytest.mark.parametrize("bad", ["", "abc", "0", "-5", "5+", "+3", "5+3+1", "\u0663",
                                 "9" * 5000, "1e9"])
def test_bad_time_controls(bad):
    with pytest.raises(DamasError, match="time control"):
        parse_time_control(bad)


def test_clock_runs_one_side_adds_increments_pauses_and_flags():
    c = Clock(TimeControl(1, 5))
    c.start(100.0, WHITE)
    assert c.remaining(WHITE, 130.0) == 30.0 and c.remaining(BLACK, 130.0) == 60.0
    c.press(130.0)
    assert c.remaining(WHITE, 999.0) == 35.0 and c.running == BLACK
    c.pause(140.0)
    assert c.remaining(BLACK, 500.0) == 50.0  # paused: nothing runs
    c.resume(500.0)
    assert c.remaining(BLACK, 510.0) == 40.0
    assert c.flagged(549.0) is None and c.flagged(550.0) == BLACK
    assert c.state(520.0) == {"white": 35.0, "black": 30.0, "running": "black",
                              "control": "1+5"}
    assert format_clock(65.2) == "1:06" and format_clock(3725) == "1:02:05"


def test_journal_survives_a_torn_last_line(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.write(GameStart("english", "B:W21-32:B1-12"))
        j.write(PlayedMove("11-15", "W:W21-32:B1-10,12,15", 1, "machine"))
    with open(path, "a") as f:
        f.write('{"kind": "move", "notat')  # the power went mid-write
    with Journal(path) as j:  # the next session starts a fresh line
        j.write(PlayedMove("23-19", "B:W19,21,22,24-32:B1-10,12,15", 2, "person"))
    events = read_journal(path)
    assert [e.get("notation") for e in events] == [None, "11-15", "23-19"]
    assert all(json.loads(line) for line in path.read_text().splitlines()[:2])


def test_last_game_and_errors(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.write(GameStart("english", "B:W21-32:B1-12", tags={"Round": "1"}))
        j.write(PlayedMove("11-15", "W:W21-32:B1-10,12,15", 1, "machine"))
        j.write(GameStart("english", "B:W21-32:B1-12", tags={"Round": "2"}))
    assert [e.get("round") for e in last_game(read_journal(path))] == ["2"]
    with pytest.raises(JournalError, match="nothing to resume"):
        read_journal(tmp_path / "none.jsonl")
    with pytest.raises(JournalError, match="no game"):
        last_game([])


def test_a_game_that_went_on_after_an_accepted_irregularity_is_not_replayed(tmp_path):
    from damas.journal import replay_last_game
    from damas.rules.tracker.events import Accepted

    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.write(GameStart("english", "B:W21-32:B1-12"))
        j.write(PlayedMove("11-15", "W:W21-32:B1-10,12,15", 1, "machine"))
        j.write(Tracked(Accepted(None, "5.4.02", "W:W21-32:B1-11,16")))
        j.write(PlayedMove("24-20", "B:W20-23,25-32:B1-10,12,15", 2, "person"))
    with pytest.raises(JournalError, match="accepted irregularity"):
        replay_last_game(path)


def test_clock_comments_give_both_clocks_in_the_lidraughts_style():
    from damas.clock import clock_comment

    assert clock_comment({"white": 600, "black": 600, "running": "black"}) == \
        "[%clock w0:10:00 B0:10:00]"
    assert clock_comment({"white": 3725.1, "black": 0.2, "running": "white"}) == \
        "[%clock W1:02:06 b0:00:01]"
    assert clock_comment({"white": -3, "black": 59, "running": None}) == \
        "[%clock w0:00:00 b0:00:59]"


def test_typed_events_write_the_lines_journals_always_had(tmp_path):
    """Optional fields stay out, a tag goes under its lower-case name, a None that was
    written as null still is; `read` gives a fixed-field event back, and nothing else."""
    from damas.events import GameEnd, Resumed

    path = tmp_path / "j.jsonl"
    move = PlayedMove("11-15", "W:W21-32:B1-10,12,15", 1, "machine")
    with Journal(path) as j:
        j.write(GameStart("english", "B:W21-32:B1-12", tags={"White": "Ana"},
                          machine=["black"]))
        j.write(move)
        j.write(GameEnd("*", None, 1))
        j.write(Resumed(1, move.fen, start={}, moves=[]))
    start, moved, end, resumed = read_journal(path)
    assert list(start) == ["kind", "seq", "wall", "variant", "fen", "machine", "white"]
    assert start["white"] == "Ana" and start["machine"] == ["black"]
    assert "reason" in end and end["reason"] is None
    assert "lost" not in resumed
    assert PlayedMove.read(moved) == move
    assert PlayedMove.read(start) is None
    assert PlayedMove.read({"kind": "move", "notation": "11-15"}) is None  # fields missing
