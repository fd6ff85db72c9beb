"""Kiosk mode, unattended: 50 consecutive games in simulation with faults injected (camera
dropouts, the USB cable pulled and plugged back, firmware resets, a visitor's irregular
moves, a visitor walking away, visitors stopping attract play), and not one game lost or
corrupted: the archive holds every game exactly as the journal and the players made it."""

from collections import Counter

import pytest

from damas.journal import read_journal
from damas.kiosk import Kiosk, KioskOptions
from damas.play import PlayOptions
from damas.rules import WHITE, Game
from damas.rules.pdn import read_pdn
from damas.simulation import Faults, simulated_world

GAMES = 50


def games_in(events):
    """The journal split into games: (game-start event, events up to its game-end)."""
    games, current = [], None
    for e in events:
        if e["kind"] == "game-start":
            current = [e]
            games.append(current)
        elif current is not None:
            current.append(e)
    return games


# two of each fault at set moments, whatever the random ones do
SCHEDULE = {400: "serial_drop", 1200: "firmware_reset", 2000: "camera_dropout",
            5000: "serial_drop", 7000: "firmware_reset", 9000: "camera_dropout"}


@pytest.fixture(scope="module")
def soak(tmp_path_factory, progress):
    folder = tmp_path_factory.mktemp("kiosk")
    faults = Faults(camera_dropout=0.0006, serial_drop=0.0004, firmware_reset=0.0004,
                    at_frames=SCHEDULE)
    world = simulated_world("english", seed=7, faults=faults, slip_rate=0.08,
                            arrive_rate=0.004)
    made_by_game = []

    def on_game_start(visitor_game: bool, session):
        world.visitor.join((WHITE,) if visitor_game else (), session)
        visitors = sum(1 for v, _ in made_by_game if v) + visitor_game
        world.visitor.leave_rate = 1.0 if visitor_game and visitors == 2 else 0.0
        if not visitor_game and len(made_by_game) == 3:
            kiosk.new_game()  # someone asks for a game as this attract game begins
        made_by_game.append((visitor_game, len(world.visitor.made)))

    options = KioskOptions(PlayOptions(variant="english", engine="builtin:level=1,seed=3",
                                       settle=0.3, retry=1.0),
                           attract_plies=80, idle_limit=20.0,
                           archive=str(folder / "archive.pdn"),
                           journal=str(folder / "kiosk.jsonl"),
                           current=str(folder / "current.pdn"))
    def out(line: str) -> None:  # a line a game: the soak takes minutes
        if line.startswith("kiosk game "):
            progress(f"kiosk soak: {line.removeprefix('kiosk ')} (of {GAMES})")

    kiosk = Kiosk(options, world.watch, world.mover, clock=world.clock,
                  wait=world.wait, out=out, on_game_start=on_game_start)
    world.visitor.on_arrival = kiosk.new_game
    try:
        played = kiosk.run(games=GAMES)
    finally:
        world.close()
    made = world.visitor.made
    bounds = [n for _, n in made_by_game] + [len(made)]
    per_game = [(v, made[bounds[i]:bounds[i + 1]]) for i, (v, _) in enumerate(made_by_game)]
    return {"kiosk": kiosk, "played": played, "world": world, "per_game": per_game,
            "events": read_journal(options.journal),
            "archive": read_pdn((folder / "archive.pdn").read_text(encoding="utf-8"))}


def test_every_game_is_played_and_archived(soak):
    assert soak["played"] == GAMES
    assert soak["kiosk"].errors == 0
    assert len(soak["archive"]) == GAMES
    journal_games = games_in(soak["events"])
    assert len(journal_games) == GAMES
    for recorded, events in zip(soak["archive"], journal_games, strict=True):
        (end,) = [e for e in events if e["kind"] == "game-end"]
        moves = [e["notation"] for e in events if e["kind"] == "move"]
        assert recorded.game.notations() == moves
        assert recorded.result == end["result"]
        replay = Game("english")
        for notation in moves:
            replay.push(notation)  # every recorded move is legal where it was played


def test_the_record_is_what_was_played(soak):
    """Machine moves are the engine's answers; a visitor's moves are the ones they made."""
    journal_games = games_in(soak["events"])
    for (visitor_game, made), events in zip(soak["per_game"], journal_games, strict=True):
        engine = [e["notation"] for e in events if e["kind"] == "engine-move"]
        by_machine = [e["notation"] for e in events
                      if e["kind"] == "move" and e["by"] == "machine"]
        by_person = [e["notation"] for e in events
                     if e["kind"] == "move" and e["by"] == "person"]
        assert by_machine == engine[:len(by_machine)]
        assert len(engine) - len(by_machine) <= 1  # a move cut short by a stop
        assert by_person == made
        assert visitor_game or not by_person


def test_faults_struck_and_were_recovered(soak):
    injected = soak["world"].table.injected
    assert all(count >= 2 for count in injected.values()), injected
    kinds = Counter(e["kind"] for e in soak["events"])
    assert kinds["paused"] == kinds["continued"] >= injected["camera_dropout"]
    devices = Counter(e["device"] for e in soak["events"] if e["kind"] == "paused")
    assert devices["camera"] == injected["camera_dropout"]  # each one noticed and waited out
    # a pulled cable or a reset is found when the robot next moves (in a game or a reset)
    assert kinds["robot-fault"] + kinds["kiosk-reset-failed"] >= 1
    assert kinds["mismatch"] >= 1  # and the board was looked at and put right


def test_visitors_came_slipped_and_left(soak):
    kinds = Counter(e["kind"] for e in soak["events"])
    ends = Counter(e["reason"] for e in soak["events"] if e["kind"] == "game-end")
    visitor_games = sum(1 for v, _ in soak["per_game"] if v)
    assert 5 <= visitor_games < GAMES
    assert soak["world"].visitor.slips >= 3
    assert kinds["tracker-irregular"] == soak["world"].visitor.slips  # every slip flagged
    assert kinds["tracker-restored"] == kinds["tracker-irregular"]
    assert ends["stopped"] >= 1  # a visitor's request ended an attract game
    assert ends["abandoned"] == 1  # the second visitor walked away
    assert kinds["kiosk-reset"] == GAMES
