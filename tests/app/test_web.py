"""The live web page in headless Chromium: it shows what the session says."""

import json
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from damas.web import Display, WebServer

from .browser import open_browser


@pytest.fixture
def served():
    display = Display()
    server = WebServer(display).start()
    yield display, server
    server.stop()


@pytest.fixture
def browser():
    driver = open_browser()
    yield driver
    driver.quit()


def test_state_and_actions_over_http(served):
    display, server = served
    pressed = []
    display.actions["press"] = lambda: pressed.append(1)
    display.update(status="White to move", moves=["32-28"])
    state = json.loads(urllib.request.urlopen(server.url + "state").read())
    assert state["status"] == "White to move" and state["moves"] == ["32-28"]
    req = urllib.request.Request(server.url + "action/press", method="POST")
    assert json.loads(urllib.request.urlopen(req).read()) == {"ok": True}
    assert pressed == [1]
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(urllib.request.Request(server.url + "action/nope",
                                                      method="POST"))


def test_page_draws_board_moves_clocks_and_reacts_to_clicks(served, browser):
    display, server = served
    clicks = []
    display.actions["new-game"] = lambda: clicks.append("new-game")
    display.update(size=8, squares={"1": "b", "14": "B", "32": "w", "29": "W"},
                   moves=["11-15", "23-19"], status="Black to move",
                   clocks={"white": 290.0, "black": 301.0, "running": "black"},
                   evaluation="+0.35")
    browser.get(server.url)
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_element(By.ID, "status").text == "Black to move")
    pieces = {e.get_attribute("data-square"): e.get_attribute("data-piece")
              for e in browser.find_elements(By.CSS_SELECTOR, "circle[data-square]")}
    assert pieces == {"1": "b", "14": "B", "32": "w", "29": "W"}
    assert [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#moves li")] == \
        ["11-15", "23-19"]
    assert browser.find_element(By.ID, "clock-white").text == "4:50"
    assert "running" in browser.find_element(By.ID, "clock-black").get_attribute("class")
    browser.find_element(By.ID, "new-game").click()
    wait.until(lambda d: clicks == ["new-game"])
    display.update(moves=["11-15", "23-19", "8-11"])
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#moves li")) == 3)
