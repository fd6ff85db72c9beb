"""The live page's "New game" button (POST /action/new-game) stops a kiosk's attract play
and starts a visitor's game; `Kiosk.stop()` ends the kiosk with every game archived."""

import threading
import urllib.request

from damas.journal import read_journal
from damas.kiosk import Kiosk, KioskOptions
from damas.play import PlayOptions
from damas.rules import WHITE
from damas.rules.pdn import read_pdn
from damas.simulation import simulated_world
from damas.web import Display, WebServer


def test_new_game_button_stops_attract_play_for_a_visitor(tmp_path):
    display = Display()
    server = WebServer(display).start()
    world = simulated_world("english", seed=4, slip_rate=0.0)
    visitor_game = threading.Event()

    def on_game_start(visitor: bool, session):
        world.visitor.join((WHITE,) if visitor else (), session)
        if visitor:
            visitor_game.set()
        else:  # someone walks up to the kiosk and presses the button on the screen
            request = urllib.request.Request(server.url + "action/new-game", method="POST",
                                             headers={"X-Damas-Token": server.token})
            with urllib.request.urlopen(request, timeout=10) as reply:
                assert reply.status == 200

    options = KioskOptions(PlayOptions(variant="english", engine="builtin:level=1",
                                       settle=0.3), attract_plies=400,
                           archive=str(tmp_path / "a.pdn"), journal=str(tmp_path / "k.jsonl"),
                           current=str(tmp_path / "c.pdn"))
    kiosk = Kiosk(options, world.watch, world.mover, clock=world.clock, wait=world.wait,
                  out=lambda *a: None, display=display, on_game_start=on_game_start)
    runner = threading.Thread(target=kiosk.run)
    runner.start()
    try:
        assert visitor_game.wait(timeout=120)
        kiosk.stop()
        runner.join(timeout=120)
        assert not runner.is_alive()
    finally:
        kiosk.stop()
        server.stop()
        world.close()
    events = read_journal(tmp_path / "k.jsonl")
    starts = [e for e in events if e["kind"] == "game-start"]
    ends = [e for e in events if e["kind"] == "game-end"]
    assert [s["machine"] for s in starts] == [["white", "black"], ["black"]]
    assert [e["reason"] for e in ends] == ["stopped", "stopped"]
    assert len(read_pdn((tmp_path / "a.pdn").read_text(encoding="utf-8"))) == 2
    assert "game over" in display.state()["status"]


def test_a_game_a_crash_cut_short_is_archived_at_the_next_start(tmp_path):
    from damas.events import GameStart, PlayedMove
    from damas.journal import Journal

    journal = tmp_path / "k.jsonl"
    with Journal(journal) as j:  # the last run died in the middle of its game
        j.write(GameStart("english", "B:W21-32:B1-12", machine=["black"]))
        j.write(PlayedMove("11-15", "W:W21-32:B1-10,12,15", 1, by="machine"))
        j.write(PlayedMove("23-19", "B:W19,21,22,24-32:B1-10,12,15", 2, by="person"))
    world = simulated_world("english", seed=6, slip_rate=0.0)
    options = KioskOptions(PlayOptions(variant="english", engine="builtin:level=1",
                                       settle=0.3), attract_plies=6,
                           archive=str(tmp_path / "a.pdn"), journal=str(journal),
                           current=str(tmp_path / "c.pdn"))
    kiosk = Kiosk(options, world.watch, world.mover, clock=world.clock, wait=world.wait,
                  out=lambda *a: None)
    try:
        assert kiosk.run(games=1) == 1
    finally:
        world.close()
    archived = read_pdn((tmp_path / "a.pdn").read_text(encoding="utf-8"))
    assert [g.game.notations() for g in archived][0] == ["11-15", "23-19"]
    assert archived[0].result == "*" and len(archived[1].game.notations()) == 6
    ends = [e["reason"] for e in read_journal(journal) if e["kind"] == "game-end"]
    assert ends == ["interrupted", "move limit"]
