"""One board's game as the hall knows it, rebuilt from the board's events (the recorder's
journal events, damas.record): the moves (each checked against the rules and against
the position the board recorded), the clocks, what the arbiter must look at, the result,
and the live PDN, written by the same function as the board's own record, so the two are
equal. The board keeps one too, to publish it whole as its retained `state` message
(`snapshot`), from which a late joiner rebuilds it (`from_snapshot`)."""

from __future__ import annotations

from typing import TypeVar

from damas.rules import DamasError, Game

T = TypeVar("T")

KEEP_ALERTS = 50  # per board: the arbiter's latest
STATUS = {"paused": "paused", "continued": "playing", "clock-stopped": "clock stopped",
          "clock-restarted": "playing"}


class BadEvent(ValueError):
    """An event the hall cannot use: said in one line."""


def _need(data: dict, key: str, kind: type[T]) -> T:
    value = data.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BadEvent(f"a {data.get('kind', '?')} event without {key}")
    return value


def _clip(text: str, limit: int = 600) -> str:
    """An alert's text: the board's words in it are bounded (an alert is kept)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _readable(pdn: str) -> str | None:
    """A record's PDN as a board sent it is served as it is, so only when it reads as
    one game; else the hall's own record of the game is served."""
    from damas.rules.pdn import read_pdn

    try:
        return pdn if len(read_pdn(pdn)) == 1 else None
    except DamasError:
        return None


def live_pdn(tags: dict, game: Game, comments: dict[int, list[str]]) -> str:
    """The record's PDN (damas record writes its file with this very function)."""
    from damas.rules.pdn import PdnGame, write_pdn

    outcome = game.outcome()
    return write_pdn(PdnGame(dict(tags), game, dict(comments),
                             result=outcome.result if outcome else "*"))


class BoardState:
    def __init__(self, name: str):
        self.name = name  # "round/board"
        self.seq = 0  # the last event applied
        self.wall: float | None = None  # when the board wrote its last move
        self.tags: dict[str, str] = {}
        self.game: Game | None = None
        self.comments: dict[int, list[str]] = {}
        self.clock: dict | None = None
        self.status = "waiting for the board"
        self.result: str | None = None
        self.alerts: list[dict] = []
        self.record_pdn: str | None = None  # after an accepted irregularity: the board's text
        self._pdn: str | None = None

    # --- events -------------------------------------------------------------------------

    def apply(self, seq: int, event: dict) -> dict | None:
        """Apply the board's event number `seq`; returns an arbiter alert it raises, if
        any. Raises BadEvent (the state unchanged) for an event that does not fit."""
        kind = event.get("kind")
        if not isinstance(kind, str):
            raise BadEvent("an event without its kind")
        alert = None
        if kind == "game-start":
            self._start(event)
        elif kind == "resumed":
            start, moves = _need(event, "start", dict), _need(event, "moves", list)
            self._start(start)
            for move in moves:
                if not isinstance(move, dict):
                    raise BadEvent("a resumed event with a damaged move")
                self._move(move)
        elif kind == "move":
            self._move(event)
        elif kind in ("tracker-irregular", "tracker-accepted", "resume-mismatch", "paused"):
            alert = self._alert(seq, event)
            if kind == "paused":
                self.status = f"paused: {event.get('reason', '?')}"
        elif kind in STATUS:
            self.status = STATUS[kind]
            if isinstance(event.get("clock"), dict):
                self.clock = dict(event["clock"], paused=kind == "clock-stopped")
        # other kinds (the tracker's setup, pending, restored...) change nothing here
        self.seq = seq
        return alert

    def _start(self, event: dict) -> None:
        variant, fen = _need(event, "variant", str), _need(event, "fen", str)
        tags = event.get("tags")
        if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
            raise BadEvent("a game-start event without its tags")
        try:
            game = Game(variant, fen=fen)
        except (DamasError, ValueError) as e:
            raise BadEvent(f"a game-start event with a bad position ({e})") from None
        self.tags, self.game, self.comments = dict(tags), game, {}
        self.clock, self.result, self.record_pdn, self._pdn = None, None, None, None
        self.status = "playing"

    def _move(self, event: dict) -> None:
        if self.game is None:
            raise BadEvent("a move before the game's start")
        notation, fen = _need(event, "notation", str), _need(event, "fen", str)
        ply, comment = _need(event, "ply", int), _need(event, "clock_comment", str)
        if ply != self.game.ply + 1:
            raise BadEvent(f"ply {ply} where ply {self.game.ply + 1} comes")
        try:
            move = self.game.position.parse_move(notation)
            after = self.game.position.after(move)
        except (DamasError, ValueError):
            raise BadEvent(f"ply {ply} {notation!r} is not legal there") from None
        if after.fen() != fen:
            raise BadEvent(f"ply {ply} {notation} does not lead to the position recorded")
        self.game.push(move)
        self.comments[ply] = [comment]
        if isinstance(event.get("clock"), dict):
            self.clock = dict(event["clock"], paused=False)
        if isinstance(event.get("record_pdn"), str):
            self.record_pdn = _readable(event["record_pdn"])
        self.result = event.get("result") if isinstance(event.get("result"), str) else None
        if isinstance(event.get("wall"), int | float):
            self.wall = float(event["wall"])
        self._pdn = None

    def _alert(self, seq: int, event: dict) -> dict:
        kind = event["kind"]
        if kind == "tracker-irregular":
            text = (f"irregular {event.get('article', '?')}: {event.get('message_en', '?')} "
                    f"(squares {event.get('squares', [])})")
        elif kind == "tracker-accepted":
            text = f"irregularity accepted, play went on: {event.get('message_en', '')}".strip()
        elif kind == "resume-mismatch":
            text = f"after a restart the board differs on squares {event.get('squares', [])}"
        else:
            text = f"the board's camera is away: {event.get('reason', '?')}"
        alert = {"board": self.name, "seq": seq, "kind": kind, "text": _clip(text),
                 "wall": event.get("wall"), "ply": self.game.ply if self.game else 0}
        self.alerts = (self.alerts + [alert])[-KEEP_ALERTS:]
        return alert

    # --- views --------------------------------------------------------------------------

    @property
    def ply(self) -> int:
        return self.game.ply if self.game is not None else 0

    def pdn(self) -> str | None:
        if self.game is None:
            return None
        if self.record_pdn is not None:
            return self.record_pdn
        if self._pdn is None:  # made once per move, however many ask
            self._pdn = live_pdn(self.tags, self.game, self.comments)
        return self._pdn

    def summary(self) -> dict:
        """What the tournament page shows of every board at a glance."""
        moves = self.game.notations() if self.game is not None else []
        return {"board": self.name, "white": self.tags.get("White", "?"),
                "black": self.tags.get("Black", "?"), "ply": self.ply,
                "last": moves[-1] if moves else None, "clock": self.clock,
                "status": self.status, "result": self.result, "alerts": len(self.alerts),
                "variant": self.game.variant.name if self.game is not None else None}

    def detail(self) -> dict:
        """One board: its tags, clocks, moves with their clock comments, and alerts."""
        moves = self.game.notations() if self.game is not None else []
        return {**self.summary(), "tags": self.tags, "seq": self.seq,
                "moves": [{"ply": n, "move": m, "clock": self.comments.get(n, [""])[0]}
                          for n, m in enumerate(moves, start=1)],
                "first_ply": (0 if self.game is None or self.game.start.turn ==
                              self.game.variant.first_to_move else 1),
                "fen": self.game.position.fen() if self.game is not None else None,
                "alert_list": self.alerts}

    # --- the retained message -----------------------------------------------------------

    def snapshot(self) -> dict:
        game = self.game
        return {"seq": self.seq, "wall": self.wall, "tags": self.tags,
                "variant": game.variant.name if game else None,
                "fen": game.start.fen() if game else None,
                "position": game.position.fen() if game else None,  # the current one
                "moves": [[m, self.comments.get(n, [""])[0]]
                          for n, m in enumerate(game.notations() if game else [], start=1)],
                "clock": self.clock, "status": self.status, "result": self.result,
                "alerts": self.alerts, "record_pdn": self.record_pdn}

    @classmethod
    def from_snapshot(cls, name: str, data: dict, seq: int) -> BoardState:
        """The board as its retained message (number `seq`) holds it, every move checked."""
        state = cls(name)
        if data.get("variant") is not None:
            state._start({"kind": "state", "variant": data.get("variant"),
                          "fen": data.get("fen"), "tags": data.get("tags")})
            moves = data.get("moves")
            if not isinstance(moves, list):
                raise BadEvent("a state message without its moves")
            game = state.game
            assert game is not None  # _start set it or raised
            for item in moves:
                if (not isinstance(item, list) or len(item) != 2
                        or not all(isinstance(x, str) for x in item)):
                    raise BadEvent("a state message with a damaged move")
                try:
                    game.push(item[0])
                except (DamasError, ValueError):
                    raise BadEvent(f"a state message whose ply {game.ply + 1} "
                                   f"{item[0]!r} is not legal") from None
                state.comments[game.ply] = [item[1]]
        for key, kind in (("clock", dict), ("status", str), ("result", str),
                          ("record_pdn", str), ("wall", float)):
            if isinstance(data.get(key), kind):
                setattr(state, key, data[key])
        if state.record_pdn is not None:
            state.record_pdn = _readable(state.record_pdn)
        if isinstance(data.get("alerts"), list):  # only the fields an alert has
            state.alerts = [
                {"board": name, "seq": a.get("seq"), "kind": _clip(str(a.get("kind")), 40),
                 "text": _clip(str(a.get("text"))), "wall": a.get("wall")
                 if isinstance(a.get("wall"), int | float) else None,
                 "ply": a.get("ply") if isinstance(a.get("ply"), int) else 0}
                for a in data["alerts"][-KEEP_ALERTS:] if isinstance(a, dict)]
        state.seq = seq
        return state
