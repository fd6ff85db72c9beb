"""The move tracker: turns settled snapshots of a physical board into moves, and catches
the irregularities of seed 000 §5.4.

>>> from damas.rules import Position
>>> from damas.rules.tracker import Tracker
>>> from damas.rules.tracker.board import Observation
>>> t = Tracker("english", settle=0.5)
>>> start = Position.start("english")
>>> seen = lambda p, time: Observation.from_pieces(p.variant, p.pieces(), time)
>>> t.observe(seen(start, 0.0)), [e.kind for e in t.tick(0.5)]
([], ['setup'])
>>> after = start.play(start.parse_move("11-15"))
>>> t.observe(seen(after, 1.0)), [e.notation for e in t.tick(1.5)]
([], ['11-15'])

How a board is judged, fastest first: nothing moved; exactly one legal move done (one dict
look-up when every square is read); a legal move under way (piece lifted or on its way,
captured pieces removed in any order before or after it lands) -> `pending`; only then the
slow diagnosis of `tracker.diagnose`. A move is reported once the board has shown it for
`settle` seconds (a commit ends the wait), so a king put down halfway through its move, or
a capture half done, is never reported as something else. Irregularities too wait for the
settle time: a person fixing a slip at once is not flagged.

Policies: `robot` (the machine is the opponent: an irregularity stands until the board
is put right, back to the last legal position or on to the legal move) and `tournament`
(flag it for the arbiter; when the opponent plays on, it is accepted per 000 §5.7 and the
record goes on from the position the board shows).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from enum import Enum

from ..bitboard import layout as layout_of
from ..errors import DamasError
from ..game import Game
from ..move import Move
from ..position import Position
from ..variant import Variant
from ..variant import variant as get_variant
from .board import Board, Observation, ObservationError, dark_neighbours, read_board
from .decode import BKING, WKING, Choice, Decoder, Hypothesis, hypothesis
from .diagnose import Finding, History, diagnose, judge_unfinished
from .events import (
    Accepted,
    Displaced,
    Event,
    Irregular,
    MoveSeen,
    Pending,
    Restored,
    Setup,
    side_name,
)
from .hypotheses import expected, irregular_of, moves_of, start_of, taken_back
from .match import Complete, Expectation, Partial, Same, Shape
from .messages import render
from .record import Record

EPSILON = 1e-9  # time stamps are floats: 3.9 - 3.4 < 0.5
EXPLAINED_KEPT = 8  # recent boards looked back on when the opponent seems to play on
REPEATS = 2  # a board left as it is counts again once a settle time, this many times


class Policy(Enum):
    ROBOT = "robot"
    TOURNAMENT = "tournament"


def policy_of(name: str | Policy) -> Policy:
    if isinstance(name, Policy):
        return name
    try:
        return Policy(name)
    except ValueError:
        raise DamasError(f"unknown policy {name!r} (choose robot or tournament)") from None


# --- what the held board is, until it settles --------------------------------------------

@dataclass(frozen=True)
class _Unexplained:
    board: Board
    stray_light: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Accepting:
    """The opponent made a legal move from the irregular position (tournament)."""

    shape: Shape


@dataclass(frozen=True)
class _Waiting:
    """Nothing to decide yet (an irregular board unchanged, the opponent's move begun)."""


@dataclass(frozen=True)
class _SetupSeen:
    position: Position
    start: bool


@dataclass
class _Held:
    board: Board
    verdict: object
    since: float
    settled: bool = False
    judged: bool = False  # a commit has ruled on this unfinished move


@dataclass
class _Active:
    """An irregularity reported and not yet put right or accepted."""

    finding: Finding
    event: Irregular
    board: Board
    expectation: Expectation | None  # of the position the board shows, opponent to move


class Mode(Enum):
    SETUP = "setup"  # waiting for the board to show the expected (or start) position
    PLAY = "play"
    OVER = "over"  # the game has ended; waiting for a new setup


MAX_SETTLE = 3600.0  # seconds; longer and no move would ever count
MAX_TIME = 1e9  # seconds (32 years): beyond, adding a settle time no longer changes a time


class Tracker:
    def __init__(self, variant: Variant | str = "international", fen: str | None = None, *,
                 game: Game | None = None, policy: str | Policy = "robot",
                 settle: float = 1.0):
        """Track a game from the start position, from `fen`, or resuming `game` (a Game
        whose moves were already played). Play begins when the board first shows that
        position (or the start position)."""
        if game is not None:
            self.variant = game.variant
            resumed = Game(game.variant, start=game.start, ending_plies=game.ending_plies_before)
            for m in game.moves:
                resumed.push(m)
        else:
            self.variant = get_variant(variant)
            resumed = Game(self.variant, fen)
        if not 0 <= settle <= MAX_SETTLE:  # also refuses nan
            raise DamasError(f"the settle time must be 0 to {MAX_SETTLE:g} seconds, not "
                             f"{settle!r}")
        self.policy = policy_of(policy)
        self.settle = float(settle)
        self.record = Record.of(resumed)
        self.mode = Mode.SETUP
        self._start = Position.start(self.variant)
        self._plies = resumed.ply
        self._expect = Expectation(resumed.position)
        self._held: _Held | None = None
        self._active: _Active | None = None
        # boards a legal move explained since the last position, latest last
        self._explained: list[tuple[Board, Complete | Partial]] = []
        self._pending_shown: tuple | None = None
        self._displaced: tuple[tuple[int, str], ...] = ()
        self._away = False  # the board has left the expected position since it was seen
        self._now: float | None = None
        self._decoder = Decoder(self._start.layout)
        self._unfinished: tuple[tuple[Board, Position], Position | None] | None = None
        self._choice: Choice | None = None  # how the board held was chosen
        # the last observation, when it came, when it last counted, how often it counted again
        self._seen: tuple[Observation, float, float, int] | None = None

    # --- reading the state --------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The last legal (or accepted) position: what the board should show."""
        return self._expect.position

    @property
    def game(self) -> Game:
        """The game being played (since the last accepted irregularity, if any)."""
        return self.record.game

    @property
    def irregular(self) -> Irregular | None:
        """The irregularity standing now, if any."""
        return self._active.event if self._active else None

    @property
    def under_way(self) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
        """The legal move the board shows under way now, if any: (the squares still to
        change, the moves it may become), as the last `pending` event said."""
        held = self._held
        if held is None or not isinstance(held.verdict, Partial):
            return None
        return held.verdict.squares, held.verdict.moves

    # --- feeding it ---------------------------------------------------------------------

    def observe(self, observation: Observation) -> list[Event]:
        """Process one settled snapshot; returns the events it decides (often none)."""
        t = self._time_of(observation.time)
        board = read_board(self.variant, observation)
        events = self._elapse(t)
        self._seen = (observation, t, t, 0)
        events += self._decide(observation, board, t)
        return self._explain(events)

    def _decide(self, observation: Observation, board: Board, t: float,
                since: float | None = None) -> list[Event]:
        """The decoder weighs the board against the game; the board it chooses (if any
        beats the others by the margin) is judged as seen, as shown since `since` (the
        time of the observation: a board counted again has stood there all along)."""
        frame = self._decoder.frame(observation.class_probabilities())
        base, candidates, extra = self._hypotheses()
        choice = self._decoder.decide(frame, base, candidates, extra)
        chosen = self._chosen_board(choice, board, frame.unknown)
        if chosen is None:
            # in doubt: the board held stays until the next boards decide, and its settle
            # time starts again (it has not been seen for sure since)
            held = self._held
            if held is not None and not held.settled:
                held.since = t
            self._now = t
            return []
        held = self._held
        if held is not None and held.board == chosen:
            self._choice = choice
            return []
        verdict, seen = self._judge(chosen, t)
        self._held = _Held(chosen, verdict, t if since is None else since)
        self._choice = choice
        return seen + self._elapse(t)

    def _chosen_board(self, choice: Choice, board: Board, unknown: int) -> Board | None:
        """The board to judge: the hypothesis chosen; or, when the best ones differ only
        where nothing was read, the board as read there (a hand over the square a piece
        went to), which the exact matching keeps pending; None when in doubt."""
        h = choice.hypothesis
        if h is None:
            rival = choice.runner_up
            if rival is None:
                return None
            pairs = zip(choice.best.masks, rival.masks, strict=True)
            if any((a ^ b) & ~unknown for a, b in pairs):
                return None
            best = choice.best.board
            return best.replace(known=best.known & ~unknown, white=best.white & ~unknown,
                                black=best.black & ~unknown, kings=best.kings & ~unknown,
                                light=board.light)
        if h.kind == "as-read":
            return board  # exactly as read, unknown squares and crowns included
        chosen = h.board.replace(light=board.light)
        if board.light:
            chosen = _knocked_off(self.variant.size, chosen, board)
        return chosen

    def _hypotheses(self) -> tuple[Hypothesis, list[Hypothesis], list[Hypothesis]]:
        """The expected position, the boards the game allows from it, and boards whose
        irregular variants are worth weighing too."""
        p = self.position
        base = expected(p)
        start = start_of(p.variant)
        candidates: list[Hypothesis] = []
        extra: list[Hypothesis] = []
        if self.mode is Mode.PLAY:
            candidates += moves_of(p)
            candidates += irregular_of(p)
            if len(self.game.positions) > 1:
                candidates += taken_back(self.game.positions[-2])
            candidates += self._answers()
            active = self._active
            if active is not None:
                standing = _standing(p, active.board)
                candidates.append(standing)
                extra.append(standing)
                if active.finding.situation is not None:
                    candidates += moves_of(active.finding.situation)
        if base.masks != start.masks:
            candidates.append(start)
        return base, candidates, extra

    def _answers(self) -> list[Hypothesis]:
        """The opponent's moves from the last board a legal move explained: the mover's
        move seen done, or left unfinished (which the opponent may play on from, 000
        §5.7)."""
        if not self._explained:
            return []
        board, verdict = self._explained[-1]
        if isinstance(verdict, Complete):
            after, said = self.position.after(verdict.shape.move), verdict.shape.notation
        elif isinstance(verdict, Partial):
            key = (board, self.position)
            if self._unfinished is None or self._unfinished[0] != key:
                finding = judge_unfinished(self.position, board, verdict)
                self._unfinished = (key, finding.situation)
            if self._unfinished[1] is None:
                return []
            after, said = self._unfinished[1], "unfinished"
        else:
            return []
        if isinstance(verdict, Complete):
            return [Hypothesis(h.masks, "answer" if h.kind == "move" else "answer-under-way",
                               f"{said}, then {h.label}", h.board) for h in moves_of(after)]
        # after a move left unfinished, only an answer made: an opponent's piece gone
        # beside it is as likely a piece taken off wrongly (5.4.12) as one lifted
        return [Hypothesis(h.masks, "answer-unfinished", f"{said}, then {h.label}", h.board)
                for h in moves_of(after) if h.kind == "move"]

    def _explain(self, events: list[Event]) -> list[Event]:
        """Moves, irregularities and pending moves say how sure the board was: the
        runner-up, its margin, and the squares read otherwise."""
        choice = self._choice
        if choice is None or not events:
            return events
        runner = choice.runner_up.label if choice.runner_up is not None else None
        margin = round(choice.margin, 2) if math.isfinite(choice.margin) else None
        out = []
        for e in events:
            if isinstance(e, (MoveSeen, Irregular, Pending)) and e.runner_up is None:
                e = dataclasses.replace(e, runner_up=runner, margin=margin,
                                        disagree=choice.disagree)
            out.append(e)
        return out

    def tick(self, time: float) -> list[Event]:
        """Time has passed with the board unchanged."""
        t = self._time_of(time)
        events: list[Event] = []
        seen = self._seen
        if seen is not None and seen[3] < REPEATS and t - seen[2] >= self.settle - EPSILON:
            # a camera that passes on only new boards saw this one again all along: that
            # counts before the board held settles
            observation, first, _, repeats = seen
            self._seen = (observation, first, t, repeats + 1)
            events += self._decide(observation, read_board(self.variant, observation), t,
                                   since=first)
        events += self._elapse(t)
        return self._explain(events)

    def flush(self) -> list[Event]:
        """The last board stays as it is (the end of a recording): let it settle."""
        if self._now is None:
            return []
        return self.tick(self._now + self.settle)

    def commit(self, time: float | None = None) -> list[Event]:
        """The mover says the move is done (a clock press): decide now, without waiting."""
        return self._explain(self._commit(time))

    def _commit(self, time: float | None) -> list[Event]:
        t = self._time_of(time if time is not None else self._now or 0.0)
        events = self._elapse(t)
        held = self._held
        if held is None:
            return events
        if isinstance(held.verdict, Partial) and self.mode is Mode.PLAY:
            # a move under way stays pending however long it takes, until the mover
            # says it is done: then what is missing is an irregularity
            if held.judged:
                return events
            held.judged = True
            finding = judge_unfinished(self.position, held.board, held.verdict)
            return events + self._report(finding, held.board, t)
        if held.settled:
            return events
        return events + self._settle(t)

    def _time_of(self, time: float | None) -> float:
        if time is None:
            time = (self._now + self.settle) if self._now is not None else 0.0
        if not (math.isfinite(time) and abs(time) <= MAX_TIME):
            raise ObservationError(f"time {time!r} is not a number of seconds within "
                                   f"±{MAX_TIME:g}")
        if self._now is not None and time < self._now:
            raise ObservationError(f"time {time} is before the previous one ({self._now})")
        return float(time)

    def _elapse(self, t: float) -> list[Event]:
        events: list[Event] = []
        for _ in range(4):  # a settled move may leave a board that settles in turn
            held = self._held
            if held is None or held.settled or t - held.since < self.settle - EPSILON:
                break
            events += self._settle(held.since + self.settle)
        self._now = t
        return events

    # --- judging a new board -------------------------------------------------------------

    def _judge(self, board: Board, t: float) -> tuple[object, list[Event]]:
        if self.mode is not Mode.PLAY:
            return self._judge_setup(board), []
        if self._shows_new_start(board):
            return _SetupSeen(self._start, True), []
        events: list[Event] = []
        fixed, stray = self._put_back_displaced(board, t, events)
        if stray:
            self._away = True
            return _Unexplained(fixed, stray), events
        verdict = self._expect.classify(fixed)
        if isinstance(verdict, Same):
            if fixed.kings & ~self.position.kings & fixed.occupied:
                return _Unexplained(fixed), events  # a crown on a man (000 §3.5)
            if self._away and not self._displaced:
                events.append(Restored(t, self.position.fen()))
                self._away = False
            self._active = self._pending_shown = None
            self._explained = []
            return verdict, events
        self._away = True
        if isinstance(verdict, (Complete, Partial)):
            self._explained = [*self._explained[-(EXPLAINED_KEPT - 1):], (fixed, verdict)]
            if isinstance(verdict, Partial):
                key = (verdict.squares, verdict.moves)
                if key != self._pending_shown:
                    events.append(Pending(t, verdict.squares, verdict.moves))
                    self._pending_shown = key
            return verdict, events
        active = self._active
        if active is not None:
            if active.board == fixed:
                return _Waiting(), events
            if self.policy is Policy.TOURNAMENT and active.expectation is not None:
                answer = active.expectation.classify(fixed)
                if isinstance(answer, Complete):
                    return _Accepting(answer.shape), events
                if answer is not None:
                    return _Waiting(), events
        if self._explained:
            played_on = self._played_on(fixed, t, events)
            if played_on is not None:
                return played_on, events
        return _Unexplained(fixed), events

    def _played_on(self, board: Board, t: float, events: list[Event]):
        """A board a legal move explained, then the opponent moved from it: the mover's
        move (done, or left unfinished) stands behind the opponent's. Looks back over
        the recent boards: lifting a piece the mover had still to take off looks like
        the mover taking it off."""
        p = self.position
        waiting = False
        for before, verdict in reversed(self._explained):
            if isinstance(verdict, Complete):
                answer = Expectation(p.after(verdict.shape.move)).classify(board)
                # an opponent's piece only gone could be the mover taking off one more
                # captured piece: the opponent must be seen putting a piece down
                if isinstance(answer, Complete) or isinstance(answer, Partial) and any(
                        pr.piece and pr.piece != pr.shape.frm for pr in answer.progress):
                    events += self._play(verdict.shape, t)
                    verdict2, seen = self._judge(board, t)
                    events += seen
                    return verdict2
                continue
            finding = judge_unfinished(p, before, verdict)
            assert finding.situation is not None  # an unfinished move shows a position
            answer = Expectation(finding.situation).classify(board)
            if isinstance(answer, Complete):
                events += self._report(finding, before, t)
                if self.policy is Policy.TOURNAMENT:
                    return _Accepting(answer.shape)
                return _Unexplained(board)
            # as above: an opponent's piece only gone may be one taken off wrongly
            # (5.4.12); the opponent answering must be seen putting a piece down
            waiting |= isinstance(answer, Partial) and any(
                pr.piece and pr.piece != pr.shape.frm for pr in answer.progress)
        return _Waiting() if waiting else None

    def _judge_setup(self, board: Board):
        if board.known != self.position.layout.valid:
            return _Waiting()
        occupancy = (board.white, board.black)
        if self.mode is Mode.SETUP and occupancy == (self.position.white, self.position.black):
            return _SetupSeen(self.position, self.position == self._start)
        if occupancy == (self._start.white, self._start.black):
            return _SetupSeen(self._start, True)
        return _Waiting()

    def _shows_new_start(self, board: Board) -> bool:
        """The start position set up again (not the first move taken back)."""
        s, p = self._start, self.position
        if board.known != p.layout.valid or (board.white, board.black) != (s.white, s.black):
            return False
        shown = [(q.white, q.black) for q in self.game.positions[-2:]]
        return (s.white, s.black) not in shown

    def _put_back_displaced(self, board: Board, t: float, events: list[Event]
                            ) -> tuple[Board, tuple[str, ...]]:
        """Pieces seen on a light square next to the empty square they belong on were
        knocked off it (000 §5.5): count them on their square and say where to put them.
        Any other piece on a light square is out of play (000 §5.3)."""
        displaced: list[tuple[int, str]] = []
        stray: list[str] = []
        if board.light:
            p, bit = self.position, self.position.layout.bit_of
            white, black, kings = board.white, board.black, board.kings
            for name, reading in board.light:
                mine = p.black if reading in "bB" else p.white
                home = [sq for sq in dark_neighbours(self.variant.size, name)
                        if bit[sq] & mine & board.known & ~(white | black)
                        and sq not in (d for d, _ in displaced)]
                if not home:
                    stray.append(name)
                    continue
                b = bit[home[0]]
                if reading in "bB":
                    black |= b
                else:
                    white |= b
                kings |= p.kings & b
                displaced.append((home[0], name))
            board = board.replace(white=white, black=black, kings=kings, light=())
        now = tuple(sorted(displaced))
        if now != self._displaced:
            if now:
                events.append(Displaced(t, tuple(sq for sq, _ in now),
                                        tuple(name for _, name in now)))
            self._away = True  # back on their squares: say so when the board is right
            self._displaced = now
        return board, tuple(stray)

    # --- when a board has stayed long enough (or at a commit) ------------------------------

    def _settle(self, t: float) -> list[Event]:
        held = self._held
        assert held is not None  # settling is of the board held
        held.settled = True
        verdict = held.verdict
        if isinstance(verdict, Complete):
            events = self._play(verdict.shape, t)
        elif isinstance(verdict, _Accepting):
            events = self._accept(verdict.shape, t)
        elif isinstance(verdict, _Unexplained):
            finding = diagnose(self._history(), verdict.board, verdict.stray_light)
            return self._report(finding, verdict.board, t)
        elif isinstance(verdict, _SetupSeen):
            events = self._setup(verdict, t)
        else:
            return []
        # the position changed: judge the same board again against it
        verdict2, seen = self._judge(held.board, t)
        self._held = _Held(held.board, verdict2, t)
        return events + seen

    def _history(self) -> History:
        game = self.game
        if game.moves:
            return History(self._expect, game.positions[-2], game.notations()[-1],
                           game.moves[-1])
        return History(self._expect)

    def _report(self, finding: Finding, board: Board, t: float) -> list[Event]:
        active = self._active
        if active is not None and (active.finding.name, active.finding.squares) == (
                finding.name, finding.squares):
            active.board = board
            return []
        article, pt, en = render(finding.name, finding.offender, finding.squares,
                                 **finding.extra)
        event = Irregular(t, article, pt, en, finding.squares, finding.fix,
                          side_name(finding.offender), finding.light)
        situation = finding.situation
        expectation = Expectation(situation) if situation is not None else None
        self._active = _Active(finding, event, board, expectation)
        self._away = True
        return [event]

    def _play(self, shape: Shape, t: float) -> list[Event]:
        game = self.game
        mover = int(game.position.turn)
        move: Move = game.push(shape.move)
        self._plies += 1
        outcome = game.outcome()
        result = f"{outcome.result} {outcome.reason}" if outcome else None
        self._expect = Expectation(game.position)
        self._active = self._pending_shown = None
        self._explained = []
        self._away = bool(self._displaced)
        if outcome is not None:
            self.mode = Mode.OVER
        return [MoveSeen(t, shape.notation, game.position.fen(), self._plies,
                         side_name(mover), move, result)]

    def _accept(self, shape: Shape, t: float) -> list[Event]:
        active = self._active
        assert active is not None  # accepting is of the irregularity active
        article = active.event.article
        situation, expectation = active.finding.situation, active.expectation
        assert situation is not None and expectation is not None  # else no _Accepting
        self.record.go_on_from(situation, f"{article} accepted (000 §5.7): play goes on "
                                          f'from FEN "{situation.fen()}"')
        self._expect = expectation
        self._active = None
        return [Accepted(t, article, situation.fen())] + self._play(shape, t)

    def _setup(self, seen: _SetupSeen, t: float) -> list[Event]:
        if seen.start and seen.position != self.position:
            self.record = Record.of(Game(self.variant))
            self._plies = 0
            self._expect = Expectation(self._start)
        self.mode = Mode.PLAY
        self._active = self._pending_shown = None
        self._explained = []
        self._away = False
        return [Setup(t, seen.position.fen(), seen.start)]


def _standing(p: Position, board: Board) -> Hypothesis:
    """The irregular board reported: what stands on the board until it is put right (a
    crown where the rules know a man is a crown, not a piece of either kind)."""
    known = board.known
    white = board.white | (p.white & ~known)
    black = board.black | (p.black & ~known)
    rules_kings = p.kings & (white | black)
    h = hypothesis(p.layout, white, black, rules_kings, 0, "standing", "the irregular board")
    crowned = board.kings & ~p.kings & (white | black)
    if not crowned:
        return h
    masks = list(h.masks)
    for k in range(len(masks)):
        masks[k] &= ~crowned
    masks[WKING] |= crowned & white
    masks[BKING] |= crowned & black
    return Hypothesis(tuple(masks), "standing", h.label, h.board.replace(kings=board.kings))


def _knocked_off(size: int, chosen: Board, read: Board) -> Board:
    """A piece seen on a light square explains its empty home beside it: those squares are
    taken as read, not as misread."""
    lay = layout_of(size)
    empty_read = read.known & ~read.occupied
    gone = 0
    for name, reading in read.light:
        mine = chosen.black if reading in "bB" else chosen.white
        for sq in dark_neighbours(size, name):
            b = lay.bit_of[sq]
            if b & mine & empty_read:
                gone |= b
                break
    return chosen.replace(white=chosen.white & ~gone, black=chosen.black & ~gone,
                          kings=chosen.kings & ~gone)
