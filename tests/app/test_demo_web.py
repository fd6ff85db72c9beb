"""The live page of a running demo game, clicked through in headless Chromium."""

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
