"""The broadcaster's HTTP side: the PDNs, a board's detail, the arbiter's alerts, the
round's export, the Host check, and the tournament page in headless Chromium."""

import http.client
import json

import pytest

from damas.hall.broadcaster import Broadcaster, Hall
from damas.hall.server import HallServer
from damas.hall.sim import SimBoard, wait_until
from damas.rules.pdn import read_pdn


def _get(server, path, host="127.0.0.1"):
    h, port = server.address
    conn = http.client.HTTPConnection(h, port, timeout=10)
    conn.request("GET", path, headers={"Host": f"{host}:{port}"})
    r = conn.getresponse()
    body = r.read().decode()
    conn.close()
    return r.status, dict(r.getheaders()), body


@pytest.fixture
def hall_of_two(mosquitto, tmp_path):
    hall = Hall("club", out=lambda line: None)
    caster = Broadcaster(mosquitto.broker, hall)
    boards = [SimBoard(mosquitto.broker, "club", "4", str(n), tmp_path / str(n), plies=14,
                       seed=n, slip_at=5 if n == 2 else None) for n in (10, 2)]
    for b in boards:
        b.start().join(30)
        assert b.error is None and b.publisher.flush(10)
    for b in boards:
        wait_until(lambda b=b: hall.board_pdn(b.address.name) == b.pdn.read_text(), 20,
                   f"board {b.address.name} at the broadcaster")
    server = HallServer(hall).start()
    yield hall, server, {b.address.board: b for b in boards}
    server.stop()
    caster.stop()
    for b in boards:
        b.close()


def test_the_hall_serves_each_board_the_round_and_the_alerts(hall_of_two):
    hall, server, boards = hall_of_two
    status, _, text = _get(server, "/board/4/10.pdn")
    assert status == 200 and text == boards["10"].pdn.read_text()
    status, _, body = _get(server, "/board/4/2.json")
    detail = json.loads(body)
    assert [m["move"] for m in detail["moves"]] == read_pdn(
        boards["2"].pdn.read_text(), "english")[0].game.notations()
    assert all(m["clock"].startswith("[%clock ") for m in detail["moves"])
    assert detail["clock"]["white"] > 0 and detail["white"] == "White 2"
    status, headers, round_pdn = _get(server, "/round/4.pdn?download")
    assert status == 200 and 'attachment; filename="club-round-4.pdn"' in \
        headers["Content-Disposition"]
    assert [g.tags["Board"] for g in read_pdn(round_pdn, "english")] == ["2", "10"]
    alerts = json.loads(_get(server, "/alerts.json")[2])["alerts"]
    assert [(a["board"], a["kind"]) for a in alerts] == [("4/2", "tracker-irregular")]
    assert "5.4" in alerts[0]["text"]
    state = json.loads(_get(server, "/state")[2])
    assert [(b["board"], b["alerts"]) for b in state["boards"]] == [("4/2", 1), ("4/10", 0)]
    assert _get(server, "/board/4/99.pdn")[0] == 404
    assert _get(server, "/round/7.pdn")[0] == 404
    assert _get(server, "/board/4/10.pdn", host="evil.example")[0] == 421  # rebinding


def test_the_tournament_page_shows_every_board_and_one_boards_moves(hall_of_two):
    from app.browser import open_browser  # tests/ is on the path, as for tests/app

    hall, server, boards = hall_of_two
    browser = open_browser()
    try:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        browser.get(server.url)
        wait = WebDriverWait(browser, 20)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".board")) == 2)
        cards = browser.find_elements(By.CSS_SELECTOR, ".board")
        assert [c.find_element(By.CSS_SELECTOR, ".id").text for c in cards] == \
            ["board 4/2", "board 4/10"]
        assert "1 alert(s)" in cards[0].text
        cards[1].click()
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#detail li")) ==
                   len(boards["10"].moves))
        assert "White 10" in browser.find_element(By.ID, "detail").text
        assert "5.4" in browser.find_element(By.ID, "alerts").text
    finally:
        browser.quit()
