"""The live page of a running demo game, clicked through in headless Chromium."""

import os
import signal
import subprocess
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from damas.rules import Game

from .browser import open_browser


# the page redraws as the game goes on: read it in one go, not element by element
def board_shown(browser) -> dict[int, str]:
    pieces = browser.execute_script(
        "return [...document.querySelectorAll('circle[data-square]')]"
        ".map(e => [e.dataset.square, e.dataset.piece])")
    return {int(sq): piece for sq, piece in pieces}


def moves_shown(browser) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll('#moves [data-ply]')].map(e => e.textContent)")


def click_ply(browser, ply: int) -> bool:
    return browser.execute_script(
        f"const e = document.querySelector('#moves [data-ply=\"{ply}\"]');"
        "if (e) e.click(); return !!e;")


def test_clicking_through_a_running_demo_game(tmp_path):
    browser = open_browser()
    proc = subprocess.Popen([sys.executable, "-m", "damas", "demo", "--variant", "english",
                             "--seed", "4", "--max-plies", "40", "--robot", "sim-python",
                             "--journal", str(tmp_path / "j.jsonl"), "--web", "0", "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert line.startswith("live page: "), line
        browser.get(line.split(": ", 1)[1].strip())
        wait = WebDriverWait(browser, 240)
        wait.until(lambda d: len(moves_shown(d)) >= 4)
        moves = moves_shown(browser)
        # the demo has no clock to press and no game to start: no buttons for them
        assert browser.find_elements(By.CSS_SELECTOR, "button[data-action]") == []
        assert browser.find_element(By.ID, "players").text == "person – damas"
        game = Game("english")
        positions = [game.position]
        for text in moves:
            game.push(text)
            positions.append(game.position)
        # click each of the first moves: the board shows the position after it
        for ply in (1, 2, 3):
            assert click_ply(browser, ply)
            wait.until(lambda d, p=ply: d.find_element(By.TAG_NAME, "body")
                       .get_attribute("data-review") == str(p))
            wait.until(lambda d, p=ply: board_shown(d) == positions[p].pieces())
        # back to the live game: the board follows the moves as they are played
        browser.find_element(By.ID, "live").click()
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute(
            "data-review") == "")
        shown = moves_shown(browser)
        live = Game("english")
        for text in shown:
            live.push(text)  # every move shown is legal in sequence
        assert shown[: len(moves)] == moves
    finally:
        proc.kill()
        proc.wait(timeout=30)
        browser.quit()


def _ctrl_c_as_in_a_terminal() -> None:
    """A test run started in the background by a shell without job control ignores
    SIGINT, and its children inherit that, so Python gives them no KeyboardInterrupt: the
    demo is started as a terminal starts it, with SIGINT at its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_the_finished_game_stays_on_the_page_until_ctrl_c(tmp_path):
    """After the game the page keeps the result and the final position (read back from a
    screenshot), the log ends with the game's end, and Ctrl-C stops the server cleanly."""
    import cv2
    import numpy as np

    from damas.rules.pdn import read_pdn
    from damas.web import game_view

    from .test_web import board_in_screenshot

    browser = open_browser()
    journal = tmp_path / "j.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "damas", "demo", "--variant", "english",
                             "--seed", "3", "--max-plies", "7", "--robot", "sim-python",
                             "--journal", str(journal), "--web", "0", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
                            preexec_fn=_ctrl_c_as_in_a_terminal)
    try:
        line = proc.stderr.readline()
        assert line.startswith("live page: "), line
        browser.get(line.split(": ", 1)[1].strip())
        wait = WebDriverWait(browser, 240)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-result"))
        # the game is over and the server still answers: its line says so
        told = proc.stderr.readline()
        while "the live page stays" not in told:
            assert told, "the demo ended without saying the page stays"
            told = proc.stderr.readline()
        assert "Ctrl-C" in told and proc.poll() is None
        browser.refresh()  # a person who opens the page late sees the end too
        wait.until(lambda d: d.find_element(By.ID, "result").is_displayed())
        assert browser.find_element(By.ID, "result").text == "Result * (move limit)"
        (game,) = read_pdn((tmp_path / "j.pdn").read_text(), "english")
        final = game.game
        assert len(final.moves) == 7
        assert board_shown(browser) == final.position.pieces()
        assert board_in_screenshot(browser, 8, game_view(final)["layout"]) == \
            {sq: p for sq, p in final.position.pieces().items()} | \
            {sq: "e" for sq in range(1, 33) if sq not in final.position.pieces()}
        # the event log shows its newest entry, the end; each machine move once
        log = browser.execute_script(
            "const e = document.getElementById('events'); return [e.scrollTop + "
            "e.clientHeight - e.scrollHeight, e.scrollHeight > e.clientHeight, "
            "[...e.querySelectorAll('li')].map(li => li.textContent)]")
        gap, overflows, entries = log
        assert overflows and abs(gap) <= 1
        assert entries[-1] == "game over: * (move limit)"
        machine = [e for e in entries if "machine" in e]
        assert machine and all(e.endswith("(machine)") for e in machine)
        assert len(machine) == len(set(machine))
        # labels: clocks count time used, the evaluation is White's, Black moves first
        assert browser.find_element(By.CSS_SELECTOR, "#clock-white small").text == \
            "White · time used"
        for side in ("white", "black"):  # stopped: the game is over
            assert "running" not in browser.find_element(By.ID, f"clock-{side}") \
                .get_attribute("class")
        assert "White's side" in browser.find_element(By.ID, "eval-row").text
        head = browser.find_elements(By.CSS_SELECTOR, "#moves .head span")
        assert [h.text for h in head] == ["move", "Black", "White"]
        # the scrollbars are the theme's: the event log's thumb and track are dark
        shot = tmp_path / "finished.png"
        browser.save_screenshot(str(shot))
        image = cv2.imread(str(shot))
        rect = browser.execute_script(
            "const r = document.getElementById('events').getBoundingClientRect();"
            "return [r.right, r.top, r.bottom, window.devicePixelRatio]")
        right, top, bottom, ratio = rect
        bar = image[int(top * ratio) + 2:int(bottom * ratio) - 2,
                    int((right - 4) * ratio):int((right - 1) * ratio)]
        assert bar.size and bar.max() < 128, bar.reshape(-1, 3).max(axis=0)
        banner = browser.find_element(By.ID, "result").rect
        x, y = int((banner["x"] + 3) * ratio), int((banner["y"] + 3) * ratio)
        assert np.abs(image[y, x].astype(int) - (0xb6, 0x6f, 0x3d)).max() < 12  # BGR
        # the camera view enlarges on a click, and a second click puts it back
        frame = browser.find_element(By.ID, "frame")
        small = frame.size["width"]
        frame.click()
        wait.until(lambda d: frame.size["width"] > 2 * small)
        frame.click()
        wait.until(lambda d: frame.size["width"] == small)
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            # SIGABRT makes the fault handler print every thread's stack: the failure
            # says where it hangs
            proc.send_signal(signal.SIGABRT)
            _, err = proc.communicate(timeout=30)
            raise AssertionError(f"the demo did not stop on Ctrl-C:\n{err}") from None
        assert proc.returncode == 0, err
        assert out.splitlines()[0].startswith("1 english game: 7 plies")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        browser.quit()
