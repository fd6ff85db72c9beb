"""The live web page: what the server answers (and refuses), and the page in headless
Chromium, down to the pixels of its board."""

import http.client
import json
import socket
import threading
import urllib.request

import cv2
import numpy as np
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from damas.rules import Game
from damas.web import Display, WebServer, game_view, white_men

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


def ask(server, method: str, path: str, headers: dict | None = None):
    host, port = server.address
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request(method, path, headers=headers or {})
    reply = conn.getresponse()
    body = reply.read()
    conn.close()
    return reply.status, body


def test_state_and_actions_need_the_runs_token(served):
    display, server = served
    pressed = []
    display.actions["new-game"] = lambda: pressed.append(1)
    display.update(status="White to move", moves=["32-28"])
    state = json.loads(urllib.request.urlopen(server.url + "state").read())
    assert state["status"] == "White to move" and state["moves"] == ["32-28"]
    assert state["actions"] == ["new-game"]
    token = {"X-Damas-Token": server.token}
    assert ask(server, "POST", "/action/new-game")[0] == 403  # no token
    assert ask(server, "POST", "/action/new-game", {"X-Damas-Token": "guess"})[0] == 403
    assert pressed == []
    assert ask(server, "POST", "/action/new-game", token) == (200, b'{"ok": true}')
    assert pressed == [1]
    assert ask(server, "POST", "/action/nope", token)[0] == 404
    # the page carries the token; nothing else does
    page = urllib.request.urlopen(server.url).read().decode()
    assert server.token in page
    assert server.token not in json.dumps(display.state())


def test_other_sites_are_refused(served):
    display, server = served
    display.actions["new-game"] = lambda: None
    host, port = server.address
    token = {"X-Damas-Token": server.token}
    # a DNS-rebinding page reaches us under its own name: it cannot read the state
    assert ask(server, "GET", "/state", {"Host": f"attacker.example:{port}"})[0] == 421
    assert ask(server, "GET", "/", {"Host": f"attacker.example:{port}"})[0] == 421
    # a page of another origin cannot act, token or not
    evil = {**token, "Origin": "http://attacker.example"}
    assert ask(server, "POST", "/action/new-game", evil)[0] == 403
    same = {**token, "Origin": f"http://{host}:{port}"}
    assert ask(server, "POST", "/action/new-game", same)[0] == 200
    assert ask(server, "GET", "/state", {"Host": f"localhost:{port}"})[0] == 200


def test_half_open_and_vanishing_clients_cost_nothing(capfd):
    display = Display()
    server = WebServer(display, request_timeout=0.5).start()
    host, port = server.address
    silent = [socket.create_connection((host, port)) for _ in range(300)]
    try:
        # the server still answers, from its one thread
        assert ask(server, "GET", "/state")[0] == 200
        assert threading.active_count() < 10  # no thread per connection
        for s in silent[:20]:  # and hangs up on those that say nothing
            s.settimeout(60)
            assert s.recv(1) == b""
        for s in silent[:10]:  # clients that go away in the middle of a request
            s.sendall(b"GET /state HTTP/1.1\r\nHo")
            s.close()
        for _ in range(5):  # and in the middle of an event stream
            s = socket.create_connection((host, port))
            s.sendall(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            s.recv(100)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()  # a reset
        display.update(status="after the resets")
        assert ask(server, "GET", "/state")[0] == 200
    finally:
        for s in silent:
            s.close()
        server.stop()
    assert capfd.readouterr().err == ""  # no tracebacks


def test_the_pdn_and_the_game_view(served):
    display, server = served
    game = Game("english")  # Black moves first: PDN numbers from the first mover
    for move in ("11-15", "23-19"):
        game.push(move)
    view = game_view(game)
    assert view["first_ply"] == 0 and view["moves"] == ["11-15", "23-19"]
    assert view["last"] == {"path": [23, 19], "captured": []}
    cells = set(view["layout"].values())
    assert len(view["history"]) == 3 and len(cells) == 32
    assert all((row + col) % 2 == 1 for row, col in cells)  # the dark squares
    assert white_men(35, 0) == 0.35 and white_men(35, 1) == -0.35
    assert ask(server, "GET", "/game.pdn")[0] == 404
    display.set_pdn('[Event "x"]\n\n1. 11-15 23-19 *\n')
    status, body = ask(server, "GET", "/game.pdn")
    assert status == 200 and b"11-15 23-19" in body


# --- the page in the browser --------------------------------------------------------------

COLOURS = {  # the page's CSS colours, RGB
    "light": (0xEC, 0xD9, 0xB0), "dark": (0x8B, 0x5A, 0x2B), "last": (0xB0, 0x7C, 0x3C),
    "w": (0xF6, 0xF1, 0xE4), "b": (0x2A, 0x2A, 0x2A), "crown": (0xD4, 0xA0, 0x17),
}


def nearest(rgb) -> str:
    return min(COLOURS, key=lambda k: sum((a - b) ** 2 for a, b in zip(COLOURS[k], rgb,
                                                                        strict=True)))


def board_in_screenshot(browser, size: int, layout: dict) -> dict[int, str]:
    """Each dark square as the screenshot shows it: 'e' (empty, highlighted or not),
    'w', 'b', 'W', 'B' (a gilt centre, the piece's colour around it)."""
    element = browser.find_element(By.ID, "board")
    png = np.frombuffer(element.screenshot_as_png, np.uint8)
    image = cv2.cvtColor(cv2.imdecode(png, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    h, w = image.shape[:2]
    units = size * 10 + 8  # the viewBox: 10 a square and a 4-unit border
    scale = min(w, h) / units

    def colour(x, y):
        px, py = int(round(x * scale)), int(round(y * scale))
        return nearest(image[py - 1:py + 2, px - 1:px + 2].reshape(-1, 3).mean(axis=0))

    seen = {}
    for sq, (row, col) in layout.items():
        cx, cy = 4 + col * 10 + 5, 4 + row * 10 + 5
        centre, body = colour(cx, cy), colour(cx + 2.9, cy)
        if centre in ("dark", "last"):
            seen[int(sq)] = "e"
        elif centre == "crown":
            seen[int(sq)] = body.upper()
        else:
            seen[int(sq)] = centre
    return seen


def test_page_shows_the_game_and_follows_pushed_updates(served, browser):
    display, server = served
    clicks = []
    game = Game("international")
    for move in ("32-28", "19-23", "28x19", "14x23"):
        game.push(move)
    display.update(**game_view(game), status="White to move",
                   tags={"White": "Ana Souza", "Black": "damas", "Event": "Club night",
                         "Round": "3"},
                   clocks={"white": 290.0, "black": 301.0, "running": "white",
                           "counting": "down"}, evaluation=white_men(35, 1))
    browser.set_window_size(1400, 1000)
    browser.get(server.url)
    wait = WebDriverWait(browser, 20)
    wait.until(lambda d: d.find_element(By.ID, "status").text == "White to move")
    assert browser.find_element(By.ID, "players").text == "Ana Souza – damas"
    assert browser.find_element(By.ID, "meta").text == "Club night · round 3 · international"
    assert browser.find_element(By.ID, "evaluation").text == "-0.35"  # White's side, men
    # PDN numbering, the current move marked
    rows = [r.text.split() for r in
            browser.find_elements(By.CSS_SELECTOR, "#moves .row:not(.head)")]
    assert rows == [["1.", "32-28", "19-23"], ["2.", "28x19", "14x23"]]
    assert browser.find_element(By.CSS_SELECTOR, "#moves .current").text == "14x23"
    # the board, as the SVG says and as the pixels say
    pieces = {int(e.get_attribute("data-square")): e.get_attribute("data-piece")
              for e in browser.find_elements(By.CSS_SELECTOR, "circle[data-square]")}
    assert pieces == game.position.pieces()
    truth = {sq: game.position.piece(sq) or "e" for sq in range(1, 51)}
    assert board_in_screenshot(browser, 10, game_view(game)["layout"]) == truth
    assert "last" in browser.find_element(By.CSS_SELECTOR, '[data-dark="23"]') \
        .get_attribute("class")
    # no buttons for actions the session does not have; the PDN link once there is one
    assert browser.find_elements(By.CSS_SELECTOR, "button[data-action]") == []
    assert not browser.find_element(By.ID, "pdn").is_displayed()
    # the running clock ticks between updates
    white = browser.find_element(By.CSS_SELECTOR, "#clock-white span")
    first = white.text
    wait.until(lambda d: white.text != first)
    assert "running" in browser.find_element(By.ID, "clock-white").get_attribute("class")
    # updates are pushed: a king, a new action, the PDN
    display.actions["new-game"] = lambda: clicks.append("new-game")
    game.push(game.legal_moves()[0])
    display.update(**game_view(game), arrow={"path": [19, 14]})
    display.set_pdn('[Event "Club night"]\n\n1. 32-28 19-23 *\n')
    wait.until(lambda d: d.find_elements(By.ID, "action-new-game"))
    wait.until(lambda d: d.find_element(By.ID, "pdn").is_displayed())
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, 'polyline[data-arrow="19-14"]'))
    browser.find_element(By.ID, "action-new-game").click()
    wait.until(lambda d: clicks == ["new-game"])
    kings = Game("international", fen="W:WK46,31:BK5,20")
    display.update(**game_view(kings), arrow=None)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "circle[data-square]")) == 4)
    truth = {sq: kings.position.piece(sq) or "e" for sq in range(1, 51)}
    assert board_in_screenshot(browser, 10, game_view(kings)["layout"]) == truth
    assert server.requests.get("/state", 0) == 0 and server.requests["/events"] == 1


@pytest.mark.parametrize("variant", ["english", "brazilian"])
def test_small_boards_are_drawn_as_the_rules_number_them(served, browser, variant):
    display, server = served
    game = Game(variant)
    for move in game.legal_moves()[:1]:
        game.push(move)
    display.update(**game_view(game), status=variant)
    browser.get(server.url)
    WebDriverWait(browser, 20).until(lambda d: d.find_element(By.ID, "status").text == variant)
    truth = {sq: game.position.piece(sq) or "e" for sq in range(1, 33)}
    assert board_in_screenshot(browser, 8, game_view(game)["layout"]) == truth


def test_the_board_fills_a_large_screen(served, browser):
    display, server = served
    display.update(**game_view(Game("international")), status="big")
    browser.set_window_size(1920, 1080)
    browser.get(server.url)
    WebDriverWait(browser, 20).until(lambda d: d.find_element(By.ID, "status").text == "big")
    height = browser.execute_script("return window.innerHeight")
    board = browser.find_element(By.ID, "board").size
    assert board["width"] == board["height"] and board["height"] > 0.85 * height


def test_a_port_that_cannot_be_had_is_a_usage_error(served):
    from damas.rules import DamasError
    from damas.web import serve_page

    _, server = served
    with pytest.raises(DamasError, match="0 to 65535"):
        serve_page(99999)
    with pytest.raises(DamasError, match="cannot serve the live page"):
        serve_page(server.address[1])  # busy
