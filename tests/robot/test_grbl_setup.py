"""Stock GRBL 1.1h in simavr as a user meets it: `damas doctor` names wrong settings and
prints the lines to send, `damas robot configure` sends them, `damas calibrate robot`
fits the board, faults mid-slide are reported exactly and recovered under GRBL's reset
rules, and bad input - settings that contradict the machine file, a port that is not
GRBL, a setting GRBL refuses, homing on a stock GRBL - is one line on stderr, exit 2,
with nothing moved (the step pins never pulsed)."""

import json
import math
import os
import pty
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest

from damas.cli import main
from damas.doctor import report, run_checks
from damas.robot.executor import execute
from damas.robot.grbl import GrblDriver
from damas.robot.grblsim import GrblSimulator
from damas.robot.leds import LedGrid
from damas.robot.machine import save_machine
from damas.robot.physics import World
from damas.robot.planner import Planner
from damas.robot.state import PhysicalState
from damas.rules import DamasError, Game, Position
from damas.rules.pdn import PdnGame, write_pdn


@pytest.fixture
def grbl_sim():
    """Factory: grbl_sim(machine, **GrblSimulator options) -> a started simulator."""
    made = []

    def start(machine, world=None, **options):
        sim = GrblSimulator(machine, world, **options)
        made.append(sim)
        sim.start()
        return sim

    yield start
    for sim in made:
        sim.stop()


def steps_so_far(sim) -> int:
    return int(sim.position().fields["steps"])


def short_game(tmp_path):
    game = Game("english")
    for text in ("11-15", "23-19"):
        game.push(game.position.parse_move(text))
    path = tmp_path / "g.pdn"
    path.write_text(write_pdn(PdnGame.from_game(game)))
    return path


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("damas: ") and "Traceback" not in err, err
    return err


def test_doctor_names_wrong_settings_and_prints_the_lines_to_send(grbl_machine, grbl_sim,
                                                                  tmp_path):
    machine = grbl_machine(8, "$H")
    path = tmp_path / "m.json"
    save_machine(machine, path)
    wrong = {**machine.controller.settings, 100: 250, 22: 0, 20: 0, 110: 500}
    sim = grbl_sim(machine, settings=wrong)
    text = report(run_checks(camera=None, port=sim.port, machine=str(path)))
    assert "stock GRBL 1.1h ([VER:1.1h.20190830:], [OPT:V,15,128])" in text
    assert "homing off ($22)" in text and "X 250 steps/mm" in text
    assert "[FAIL]" in text
    assert "$100=250 (X steps/mm) but the machine file says 20: send $100=20" in text
    assert '$22=0 (homing) but the machine file homes with "$H"' in text
    lines = [line.strip() for line in text.split("send these lines")[1].splitlines()[1:]]
    assert lines[:2] == ["$22=1", "$20=1"] and "$100=20" in lines and "$110=36000" in lines
    assert steps_so_far(sim) == 0

    # `damas robot configure` sends exactly those lines; then the settings fit
    assert main(["robot", "configure", "--port", sim.port, "--machine", str(path)]) == 0
    text = report(run_checks(camera=None, port=sim.port, machine=str(path)))
    assert "[FAIL]" not in text and "settings fit the machine file" in text
    assert steps_so_far(sim) == 0


def test_settings_that_contradict_the_machine_file_stop_before_anything_moves(
        grbl_machine, grbl_sim, tmp_path, capsys):
    machine = grbl_machine(8, "$H")
    path = tmp_path / "m.json"
    save_machine(machine, path)
    cases = [
        ({100: 80}, "$100=80 (X steps/mm) but the machine file says 20: send $100=20"),
        ({131: 200}, "$131=200 (Y maximum travel, mm) but the machine file says 302: "
                     "send $131=302"),
        ({27: 5}, "send $27=2"),
    ]
    for change, expected in cases:
        sim = grbl_sim(machine, settings={**machine.controller.settings, **change})
        assert main(["robot", "play-pdn", str(short_game(tmp_path)), "--machine", str(path),
                     "--port", sim.port]) == 2
        err = one_line_error(capsys)
        assert expected in err and "Nothing was moved" in err
        assert steps_so_far(sim) == 0
        sim.stop()
    # the soft limits of a machine whose file lists no travel: the needed one is named
    loose = grbl_machine(8, "$H")
    settings = {k: v for k, v in loose.controller.settings.items() if k not in (130, 131)}
    unlisted = type(loose.controller)("grbl", "$H", "machine", settings)
    from dataclasses import replace

    save_machine(replace(loose, controller=unlisted), path)
    sim = grbl_sim(loose, settings={**loose.controller.settings, 130: 300})
    assert main(["robot", "play-pdn", str(short_game(tmp_path)), "--machine", str(path),
                 "--port", sim.port]) == 2
    err = one_line_error(capsys)
    assert "GRBL's soft limits allow X -300 .. 0: send $130=348" in err
    assert steps_so_far(sim) == 0


def test_a_setting_grbl_refuses_is_one_line(grbl_machine, grbl_sim, tmp_path, capsys):
    machine = grbl_machine(8, "none")
    sim = grbl_sim(machine, settings={})  # GRBL's defaults: nothing sent yet
    bad = grbl_machine(8, "none", settings={0: 2})  # a step pulse GRBL does not allow
    path = tmp_path / "m.json"
    save_machine(bad, path)
    assert main(["robot", "configure", "--port", sim.port, "--machine", str(path)]) == 2
    err = one_line_error(capsys)
    assert "refused `$0=2`: error:6 (step pulse under 3 microseconds)" in err
    assert steps_so_far(sim) == 0


def test_homing_on_a_stock_grbl_says_why_it_fails(grbl_machine, grbl_sim, tmp_path, capsys):
    machine = grbl_machine(8, "$H")
    path = tmp_path / "m.json"
    save_machine(machine, path)
    # stock GRBL: its homing cycle moves Z first, and a gantry has no Z switch
    sim = grbl_sim(machine, variant="stock",
                   settings={**machine.controller.settings, 132: 5})
    assert main(["robot", "play-pdn", str(short_game(tmp_path)), "--machine", str(path),
                 "--port", sim.port]) == 2
    err = one_line_error(capsys)
    assert "controller alarm 9: homing failed: no limit switch was found" in err
    assert "Stock GRBL homes Z first" in err and '"homing": "none"' in err
    assert steps_so_far(sim) == 0  # Z has no motor on this gantry: X and Y never moved


class NotGrbl:
    """A device on a pty that is not a GRBL 1.1: it answers whatever `answer` says."""

    def __init__(self, answer):
        self.master, slave = pty.openpty()
        self.port = os.ttyname(slave)
        self._slave = slave
        self.answer = answer
        self.received = b""
        self._stop = False
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        import select

        while not self._stop:
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.master, 256)
            except OSError:
                return
            self.received += data
            reply = self.answer(data)
            if reply:
                os.write(self.master, reply)

    def close(self):
        self._stop = True
        time.sleep(0.1)
        os.close(self.master)
        os.close(self._slave)


@pytest.mark.parametrize("device, expected", [
    (lambda data: b"hello from a 3D printer\r\n" if b"\x18" in data else b"",
     "no banner from {port} after a reset: is this a GRBL controller at 115200 baud?"),
    (lambda data: (b"\r\nGrbl 0.9j ['$' for help]\r\n" if b"\x18" in data else b"")
     + (b"[0.9j.20160303:]\r\nok\r\n" if b"$I" in data else b""),
     "runs 0.9j.20160303; damas speaks GRBL 1.1"),
])
def test_a_port_that_is_not_grbl_1_1_is_one_line(tmp_path, capsys, device, expected):
    fake = NotGrbl(device)
    try:
        assert main(["robot", "play-pdn", str(short_game(tmp_path)), "--port",
                     fake.port]) == 2
    finally:
        fake.close()
    assert expected.format(port=fake.port) in one_line_error(capsys)
    assert b"G0" not in fake.received and b"$H" not in fake.received  # nothing moved


def test_the_led_grid_is_not_on_stock_grbl(grbl_machine, grbl_sim):
    sim = grbl_sim(grbl_machine(8, "none"))
    driver = GrblDriver(sim.port, timeout=5, home=False)
    driver.connect()
    try:
        with pytest.raises(DamasError, match="the LED grid runs the damas firmware"):
            LedGrid(driver, 32)
        with pytest.raises(DamasError, match=r"refused `M150 R0 U0 B0`: error:20"):
            driver.command("M150 R0 U0 B0")  # what stock GRBL says to our LED command
    finally:
        driver.close()


def test_calibrate_robot_on_stock_grbl(grbl_machine, grbl_sim, tmp_path):
    """The user jogs to four squares of a board lying 0.8 degrees askew; the fit finds
    its map, in GRBL's machine coordinates, and the carriage went where the jogs said."""
    machine = grbl_machine(8, "$H")
    path = tmp_path / "m.json"
    save_machine(machine, path)
    sim = grbl_sim(machine)
    angle = math.radians(0.8)
    (_, _, x0), (_, _, y0) = machine.board_to_machine
    true = ((math.cos(angle), -math.sin(angle), x0 + 1.5),
            (math.sin(angle), math.cos(angle), y0 - 2.25))
    answers, last = [], None
    from damas.robot.calibrate import default_squares

    for square in default_squares(8):
        u, v = machine.square_centre(square)
        last = (true[0][0] * u + true[0][1] * v + true[0][2],
                true[1][0] * u + true[1][1] * v + true[1][2])
        answers += ["x+5", f"x={last[0]:.3f}", f"y={last[1]:.3f}", "ok"]
    answers.insert(1, "x+900")  # beyond the soft limits: GRBL alarms, calibration goes on
    proc = subprocess.run([sys.executable, "-m", "damas", "calibrate", "robot", "--port",
                           sim.port, "--machine", str(path)],
                          input="\n".join(answers) + "\n", capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "controller alarm 2: soft limit" in proc.stdout and "residual" in proc.stdout
    from damas.robot.machine import load_machine

    fitted = load_machine(path).board_to_machine
    for row_fit, row_true in zip(fitted, true, strict=True):
        assert row_fit == pytest.approx(row_true, abs=0.06)  # to a step: 1/20 mm
    x, y, _ = sim.carriage()
    assert (x, y) == pytest.approx(last, abs=0.05)


@contextmanager
def capture_on_grbl(machine):
    """W:W19,21:B15,11 on stock GRBL, connected: (state, world, sim, driver, the steps of
    19x10: the capture, then the move)."""
    position = Position.from_fen("W:W19,21:B15,11", "english")
    state = PhysicalState.at_start(machine, position)
    world = World.from_state(machine, state)
    sim = GrblSimulator(machine, world)
    driver = GrblDriver(sim.start(), timeout=5, machine=machine)
    try:
        driver.connect()
        steps = Planner(machine).plan_move(state, position.parse_move("19x10"))
        yield state, world, sim, driver, steps
    finally:
        driver.close()
        sim.stop()


@pytest.mark.parametrize("fault", ["limit", "reset", "drop"])
def test_a_fault_mid_slide_on_grbl_is_reported_exactly(grbl_machine, fault):
    """A limit switch trips (ALARM:1, then GRBL waits for `Reset to continue`), the
    controller restarts, or its line drops while the capturing man slides: the report
    names the capture done and the slide interrupted, the man stands on his path where
    the magnet let go, and the machine is homed again when it can be."""
    machine = grbl_machine(8, "$H")
    with capture_on_grbl(machine) as (state, world, sim, driver, steps):
        assert [s.reason for s in steps] == ["capture", "move"]
        grab = machine.to_machine(steps[1].path[0])
        inject = {"drop": sim.drop_line, "reset": sim.power_cycle, "limit": sim.hit_limit}

        def after(step):
            state.apply(step)
            if step is steps[0]:
                sim.set_speed(1)  # the slide then takes a while: time to act mid-way
                deadline = time.monotonic() + 20
                while True:
                    x, y, on = sim.carriage()
                    if on and math.dist((x, y), grab) >= 15:
                        break
                    assert time.monotonic() < deadline, "the slide never started"
                inject[fault]()
                if fault != "drop":
                    sim.set_speed(0)

        run = execute(driver, machine, steps, on_done=after, reconnect_attempts=1)
        assert run.done == (steps[0],) and run.interrupted == steps[1]
        assert {"drop": "lost the line", "reset": "restarted",
                "limit": "hard limit"}[fault] in run.error
        assert run.recovered == (fault != "drop")
        sim.sync()
        layout = world.layout()
        assert {int(k): v for k, v in layout["squares"].items() if v != "e"} == {21: "w",
                                                                                 11: "b"}
        [stray] = layout["stray"]
        assert stray["piece"] == "w"
        if run.recovered:
            status = driver.status()
            assert status.state == "Idle"
            assert status.mpos[:2] == pytest.approx((-350.0, -300.0))  # homed again


@pytest.mark.parametrize("repeated", [
    b"ok\r\n",
    b"[GC:G1 G54 G17 G21 G90 G94 M5 M9 T0 F18000 S0]\r\nok\r\n",
    b"<Run|MPos:-12.5,-40.0,0.000|FS:0,0|Ov:100,100,11 G54 G17 G21 G90 G94 M5 M9 T0 F1\r\n"
    b"ok\r\nok\r\n",
], ids=["ok", "parser-state", "garbled-status"])
def test_old_replies_grbl_sends_again_mid_move_are_counted_out(grbl_machine, repeated):
    """Stock GRBL now and then sends up to a buffer's worth of old output again (its
    transmit interrupt can run with the buffer empty): an `ok` twice, an old parser-state
    report, a status report cut into by old text. Every line still ran: the driver
    recounts and the move ends as planned, nothing reset or homed."""
    machine = grbl_machine(8, "none")
    with capture_on_grbl(machine) as (state, world, sim, driver, steps):
        def after(step):
            state.apply(step)
            if step is steps[0]:
                sim.send_garbage(repeated)  # the slide's lines are on their way

        run = execute(driver, machine, steps, on_done=after, reconnect_attempts=1)
        assert run.complete, run.error
        assert driver.recounts == 1
        sim.sync()
        layout = world.layout()
        assert {int(k): v for k, v in layout["squares"].items() if v != "e"} == {
            10: "w", 21: "w", 11: "b"}
        assert layout["stray"] == [] and sum(t.count("b") for t in layout["trays"].values()) == 1
        assert driver.status().state == "Idle"
        x, y, _ = sim.carriage()
        assert (x, y) == pytest.approx(machine.to_machine(steps[1].path[-1]), abs=0.05)


def test_play_pdn_on_a_real_port_calls_the_planners_record_that(grbl_machine, grbl_sim,
                                                                tmp_path, capsys):
    """Through a port damas did not start, nothing sees the board: the command says the
    planner's record matches, never that the board does."""
    machine = grbl_machine(8, "none")
    path = tmp_path / "m.json"
    save_machine(machine, path)
    sim = grbl_sim(machine)
    game = short_game(tmp_path)
    assert main(["robot", "play-pdn", str(game), "--machine", str(path), "--port",
                 sim.port]) == 0
    out = capsys.readouterr().out
    assert "the planner's record matches the game's final position; nothing watched the " \
           "board itself: look at it" in out
    assert "the board" not in out.replace("the board itself", "")
    assert main(["robot", "play-pdn", str(game), "--machine", str(path), "--port", sim.port,
                 "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["seen"] is False and result["record_matches_game"] is True
    assert "matches_game" not in result
    assert steps_so_far(sim) > 0  # it did play, on GRBL
