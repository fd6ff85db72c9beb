"""The page's server under 200 clients at once (and 300 silent connections) while a
simulated game runs: every client answered as it should be, every read event stream saw
the game to its end, the game played every move, and the threads stayed few. The
figures (latency, the game loop's gaps) are printed, not asserted: `damas bench web`."""

import json

from damas.websoak import soak


def test_two_hundred_clients_while_a_game_runs():
    figures = soak(clients=200, half_open=300, plies=40)
    print(json.dumps(figures.summary()))
    assert figures.finished and figures.plies > 10  # the game went on to its end
    assert figures.bad_answers == 0 and figures.answers >= 150
    assert figures.streams_read == 50 and figures.streams_saw_end == 50
    # one thread serves 550 connections: the process keeps the handful it had
    assert figures.threads_most - figures.threads_before <= 8
