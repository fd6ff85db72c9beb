"""`damas record --web`: the tournament page shows the players, the clocks counting
down, the moves and the live PDN, and its clock button stops the clocks."""

import random
import urllib.request

from damas.clock import parse_time_control
from damas.journal import read_journal
from damas.record import Recorder
from damas.rules import Game
from damas.sim.handmove import move_by_hand
from damas.vision.render import Renderer
from damas.vision.scene import SceneRanges, random_scene
from damas.web import Display, WebServer


def test_the_record_page_and_its_clock_button(tmp_path):
    rng = random.Random(5)
    scene = random_scene(rng, SceneRanges(sizes=(8,), tilt=(0, 20), noise=(0, 2),
                                          blur=(0, 0.5)))
    game = Game("english")
    steps = [(game.position.pieces(), ())] * 12
    for _ in range(2):
        move = rng.choice(game.legal_moves())
        steps += [(s.pieces, s.hands) for s in move_by_hand(scene, game.position, move, rng)]
        game.push(move)
    steps += [(game.position.pieces(), ())] * 12
    display = Display()
    server = WebServer(display).start()
    recorder = Recorder("english", parse_time_control("5+3"), tmp_path / "j.jsonl",
                        tmp_path / "live.pdn", white="Ana", black="Bia", event="Open",
                        settle=0.3, out=lambda *a: None, display=display)
    renderer = Renderer()

    def frames():
        for k, (pieces, hands) in enumerate(steps):
            if k == len(steps) - 6:  # the arbiter stops the clocks at the end
                request = urllib.request.Request(server.url + "action/clock", method="POST",
                                                 headers={"X-Damas-Token": server.token})
                assert urllib.request.urlopen(request, timeout=10).status == 200
            yield renderer.render(scene.with_(hands=hands, noise_seed=k), pieces).image

    try:
        recorder.run(frames(), fps=10)
        state = display.state()
        pdn = urllib.request.urlopen(server.url + "game.pdn", timeout=10).read().decode()
    finally:
        server.stop()
    assert state["moves"] == game.notations()
    assert state["tags"]["White"] == "Ana" and state["tags"]["Event"] == "Open"
    clocks = state["clocks"]
    assert clocks["counting"] == "down" and clocks["paused"] is True
    assert 0 < clocks["white"] <= 303 and 0 < clocks["black"] <= 303
    assert state["actions"] == ["clock"] and state["frame"] > 0
    # the evaluation bar: the native search's score of the last position, White's side
    assert isinstance(state["evaluation"], float) and abs(state["evaluation"]) < 5
    assert game.notations()[0] in pdn and '[White "Ana"]' in pdn
    assert [e["kind"] for e in read_journal(tmp_path / "j.jsonl")].count("clock-stopped") == 1
