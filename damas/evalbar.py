"""The evaluation bar of a recorded game: the native search's score of each position the
board reaches, in White's men, on the live page of `damas record` (the broadcast).

The search runs in a thread of its own for a fraction of a second per position; a move
on the board stops the search of the position before it, so the bar never lags the game.

>>> import threading
>>> from damas.rules import Game
>>> class Page:
...     def __init__(self): self.shown = threading.Event()
...     def update(self, **fields): self.fields = fields; self.shown.set()
>>> page, game = Page(), Game("english", fen="B:W18,27:B14")
>>> with EvaluationBar("english", page, seconds=0.05) as bar:
...     bar.show(game)
...     page.shown.wait(30)
True
>>> page.fields["evaluation"]  # Black, to move, takes both men and wins
'Black wins in 1'
"""

from __future__ import annotations

import threading
import time

from damas.engine import Search
from damas.rules import Game
from damas.rules import variant as get_variant

SECONDS = 0.3  # a search per position: deep enough for the bar, light on the machine
TABLE_MB = 8  # a hall records many boards at once


class EvaluationBar:
    def __init__(self, variant, display, seconds: float = SECONDS):
        self.search = Search(get_variant(variant), tt_mb=TABLE_MB)
        self.display = display
        self.seconds = seconds
        self._wanted: Game | None = None
        self._closed = False
        self._finishing = False  # closed, but the last position is still evaluated
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="evaluation bar", daemon=True)
        self._thread.start()

    def show(self, game: Game) -> None:
        """Evaluate the game's position now (any search of an earlier one stops)."""
        with self._changed:
            self._wanted = game.copy()
            self._changed.notify()
        self.search.stop()

    def close(self, finish: bool = False) -> None:
        """Stop; with `finish`, after showing the evaluation of the last position."""
        with self._changed:
            self._closed, self._finishing = True, finish
            self._changed.notify()
        if not finish:
            self.search.stop()
        self._thread.join()

    def __enter__(self) -> EvaluationBar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _run(self) -> None:
        from .web import white_men

        while True:
            with self._changed:
                while self._wanted is None and not self._closed:
                    self._changed.wait()
                if self._wanted is None or (self._closed and not self._finishing):
                    return
                game, self._wanted = self._wanted, None
            if game.outcome() is not None:
                self.display.update(evaluation=None)
                continue
            deadline = time.perf_counter() + self.seconds
            result = self.search.run(game.position, history=game.positions[:-1],
                                     soft_deadline=deadline, hard_deadline=deadline,
                                     ending_run=game.plies_in_ending())
            with self._changed:
                stale = self._wanted is not None or (self._closed and not self._finishing)
            if not stale and result.depth:
                self.display.update(evaluation=white_men(result.score, game.position.turn))
