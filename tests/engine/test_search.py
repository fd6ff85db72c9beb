"""The built-in search: it answers legal moves, sees wins and losses, reports what it
does, keeps its Zobrist keys right, and stops when asked from another thread."""

import threading
from dataclasses import replace
from typing import NamedTuple

import pytest
from engine_helpers import random_games

from damas.engine import WIN, BuiltinEngine, Limit, Search
from damas.engine.evaluation import load_weights, write_weights
from damas.engine.native import module
from damas.engine.search import POLL_EVERY, new_searcher
from damas.rules import DrawKind, Game, Position

VARIANTS = ["international", "brazilian", "english"]
FEATURES = module().FEATURES


@pytest.mark.parametrize("variant", VARIANTS)
def test_evaluation_is_the_same_seen_from_either_side(variant):
    core = new_searcher(Position.start(variant).variant)
    checked = 0
    for game in random_games(variant, 8, seed=5):
        p = game.position
        mine = core.evaluate(p.white, p.black, p.kings, int(p.turn))
        theirs = core.evaluate(p.white, p.black, p.kings, 1 - int(p.turn))
        terms = core.features(p.white, p.black, p.kings, int(p.turn))
        assert [-t for t in terms] == list(core.features(p.white, p.black, p.kings,
                                                          1 - int(p.turn)))
        if abs(mine) < 9000 and abs(theirs) < 9000:  # both sides can move
            assert mine == -theirs
            checked += 1
    assert checked > 100


def test_the_evaluation_is_the_weighted_sum_of_its_terms():
    variant = Position.start("international").variant
    core = new_searcher(variant)
    core.set_patterns(None)  # the tables' own test: tests/engine/test_teacher.py
    shipped = load_weights(variant)
    weights = shipped.vector(FEATURES)
    # White is a man up in a quiet middle game, and no term but the sum applies (pieces
    # enough that the ending adjustments stay out, a lead the trade term adds to)
    p = Position.from_fen("W:W27,28,30-33,35,37-43,45-50:B1-6,8-11,13-19,21,23", variant)
    terms = core.features(p.white, p.black, p.kings, 0)
    total = sum(w * t for w, t in zip(weights, terms, strict=True)) // 16
    lead = weights[FEATURES.index("man")] * terms[FEATURES.index("man")] // 16
    pieces = (p.white | p.black).bit_count()
    assert terms[FEATURES.index("man")] == 1
    trade = lead * shipped.trade // (pieces + 4)
    assert core.evaluate(p.white, p.black, p.kings, 0) == total + trade
    core.set_weights(weights, 4, shipped.chase, shipped.flying_ending_divisor)
    assert core.evaluate(p.white, p.black, p.kings, 0) == total + lead * 4 // (pieces + 4)


def test_material_evaluation_counts_men_and_kings_only():
    variant = Position.start("brazilian").variant
    core = new_searcher(variant, "material")
    p = Position.from_fen("W:WK1,5,9:B20,24", variant)
    king = load_weights(variant).terms["king"] // 16
    assert core.evaluate(p.white, p.black, p.kings, 0) == king


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_answer_is_legal_at_every_level(variant):
    for number in range(1, 9):
        engine = BuiltinEngine(variant, level=number, seed=number)
        game = Game(variant)
        for _ in range(6):
            move = engine.play(game, Limit(depth=min(number, 4))).move
            assert move in game.legal_moves()
            game.push(move)


def test_a_win_in_one_is_scored_as_a_win_and_played():
    # White 48 takes 42, 32 and 23: Black has nothing left.
    result = BuiltinEngine("international").play(
        Position.from_fen("W:W48:B42,32,23", "international"), Limit(depth=4))
    assert result.move.short == "48x19"
    assert result.info.score == WIN - 1


def test_a_lost_position_is_scored_as_a_loss():
    # Black must take 22x31 and White's 36 takes the man back: Black has nothing left.
    pos = Position.from_fen("B:W27,36:B22", "international")
    result = BuiltinEngine("international").play(pos, Limit(depth=6))
    assert result.move.short == "22x31"
    assert result.info.score == -(WIN - 2)


def test_info_reports_grow_and_the_pv_starts_with_the_move():
    infos = []
    engine = BuiltinEngine("international")
    result = engine.play(Game("international"), Limit(depth=5), on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4, 5]
    assert all(a.nodes < b.nodes for a, b in zip(infos, infos[1:], strict=False))
    assert result.info.pv[0] == result.move
    assert result.info.pv_text[0] == Position.start("international").notation(result.move)


def test_node_limit_is_kept_within_one_poll():
    result = BuiltinEngine("brazilian").play(Game("brazilian"), Limit(nodes=5000))
    assert 5000 <= result.extra["nodes"] < 5000 + POLL_EVERY


def test_fixed_depth_is_deterministic():
    a = BuiltinEngine("english").play(Game("english"), Limit(depth=7))
    b = BuiltinEngine("english").play(Game("english"), Limit(depth=7))
    assert (a.move, a.info.score, a.info.nodes) == (b.move, b.info.score, b.info.nodes)


def test_seeded_levels_are_reproducible_and_noise_changes_choices():
    def choices(seed):
        engine = BuiltinEngine("international", level=1, seed=seed)
        game, out = Game("international"), []
        for _ in range(10):
            move = engine.play(game, Limit()).move
            out.append(move)
            game.push(move)
        return out

    assert choices(1) == choices(1)
    assert len({tuple(choices(s)) for s in range(4)}) > 1


def test_stop_from_another_thread_returns_the_best_move_so_far():
    engine = BuiltinEngine("international")
    game = Game("international")
    reached_depth_3 = threading.Event()
    result = {}

    def on_info(info):
        if info.depth >= 3:
            reached_depth_3.set()

    def think():
        result["r"] = engine.play(game, Limit(movetime=3600), on_info=on_info)

    thread = threading.Thread(target=think)
    thread.start()
    assert reached_depth_3.wait(timeout=120)
    while thread.is_alive():  # a stop that lands between two searches is repeated
        engine.stop()
        thread.join(timeout=0.1)
    assert result["r"].move in game.legal_moves()
    assert result["r"].info.depth >= 3


def test_the_side_that_would_lose_steers_into_a_threefold_repetition():
    # White (two kings against four kings and a man) is lost; the kings have gone round
    # twice, so 18-22 now repeats the position a third time: a draw.
    game = Game("english", fen="W:WK22,K23:BK1,K2,K3,K4,5")
    for text in "22-18 1-6 18-22 6-1 22-18 1-6 18-22 6-1 22-18 1-6".split():
        game.push(text)
    without_history = BuiltinEngine("english").play(game.position, Limit(depth=6))
    assert without_history.info.score < -200
    result = BuiltinEngine("english").play(game, Limit(depth=6))
    # a player's draw is worth its contempt less than a level game
    contempt = load_weights("english").contempt
    assert result.move.short == "18-22" and result.info.score == -contempt
    game.push(result.move)
    assert game.outcome().reason == "threefold-repetition"


def test_single_legal_move_is_answered_at_once_on_a_clock():
    pos = Position.from_fen("W:W28:B23,11", "international")  # 28x19 is forced
    assert len(pos.legal_moves()) == 1
    result = BuiltinEngine("international").play(pos, Limit(time=30))
    assert result.move == pos.legal_moves()[0] and result.info.depth == 0


def test_a_new_game_forgets_the_transposition_table():
    engine = BuiltinEngine("english")
    fresh = engine.play(Game("english"), Limit(depth=9)).info.nodes
    again = engine.play(Game("english"), Limit(depth=9)).info.nodes
    assert again < fresh  # the table of the first search answered much of the second
    engine.new_game()
    assert engine.play(Game("english"), Limit(depth=9)).info.nodes == fresh


def test_search_of_a_finished_position_has_no_move():
    result = Search(Position.start("english").variant).run(
        Position.from_fen("B:W32,K1:B28", "english"), max_depth=3)
    assert result.move is None and result.score == -WIN


def test_the_search_knows_the_ending_rules_count():
    # three kings against one: 16 moves each (32 plies) and it is a draw (001 §6.3); the
    # FEN's H field says how many plies of it were played before
    def score(plies):
        game = Game("international", fen=f"W:WK27,K38,K49:BK5:H{plies}")
        return BuiltinEngine("international").play(game, Limit(depth=6)).info.score

    fresh, late, last = score(0), score(20), score(31)
    assert fresh > late > 0  # the fewer plies left, the less the lead is worth
    assert last == 0  # no capture in one ply: the next move ends the game drawn


def test_the_search_knows_the_king_move_rule():
    # English: 40 moves each of kings only (80 plies) and the game is drawn. Two kings
    # against one are ahead, unless the count is at 79: every move but a capture ends it.
    pos = Position.from_fen("W:WK1,K3:BK32", "english")
    core = new_searcher(pos.variant)
    assert searched(core, pos, 6).score > 100
    assert searched(core, pos, 6, king_run=79).score == 0


class Searched(NamedTuple):
    score: int
    nodes: int


def searched(core, pos: Position, depth: int, turn: int = 0, king_run: int = 0) -> Searched:
    """The core's search of `pos` (`turn` to move, `king_run` plies of king moves before
    it) finished to `depth`."""
    assert core.root(pos.white, pos.black, pos.kings, turn, [], king_run, 0, 0, 0) > 0
    for d in range(1, depth + 1):
        assert core.iterate(d)
    report = core.report()
    return Searched(report[1], report[5])


def with_contempt(tmp_path, variant: str, contempt: int) -> str:
    """A weights file: the variant's shipped weights with this contempt."""
    path = tmp_path / "w.json"
    write_weights(replace(load_weights(variant), contempt=contempt), path)
    return str(path)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_player_values_a_draw_at_its_contempt_and_a_judge_at_zero(variant, tmp_path):
    # a king against a king, and the king-move rule ends the game at the next move: a
    # draw whatever is played, which a player (the built-in engine) scores minus its
    # weights' contempt and a judge (the evaluation bar, the teacher) zero
    fen = {"international": "W:WK46:BK5", "brazilian": "W:WK29:BK4",
           "english": "W:WK29:BK4"}[variant]
    pos = Position.from_fen(fen, variant)
    rule = next(r for r in pos.variant.draw_rules if r.kind is DrawKind.KING_MOVES)
    weights = with_contempt(tmp_path, variant, 40)

    def score(contempt):
        core = new_searcher(pos.variant, weights, contempt=contempt)
        return searched(core, pos, 4, king_run=2 * rule.moves - 1).score

    assert score(False) == 0
    assert score(True) == -40


def test_a_player_forgets_its_draws_when_it_searches_for_the_other_side(tmp_path):
    # the table keeps draws scored for the side searched for: a search for the other
    # side starts from an empty table, as a fresh searcher's; one for the same side
    # reuses it (fewer nodes)
    game = Game("english")
    for text in "11-15 23-19 8-11 22-17".split():
        game.push(text)
    pos = game.position
    weights = with_contempt(tmp_path, "english", 30)

    def nodes(core, turn):
        return searched(core, pos, 7, turn).nodes

    fresh = {turn: nodes(new_searcher(pos.variant, weights, contempt=True), turn)
             for turn in (0, 1)}
    core = new_searcher(pos.variant, weights, contempt=True)
    assert nodes(core, 0) == fresh[0]
    assert nodes(core, 0) < fresh[0]
    assert nodes(core, 1) == fresh[1]


def test_two_threads_answer_legal_moves_and_stop_when_asked():
    engine = BuiltinEngine("international", threads=2)
    game = Game("international")
    for _ in range(6):
        result = engine.play(game, Limit(depth=7))
        assert result.move in game.legal_moves() and result.info.depth == 7
        game.push(result.move)
    game = Game("international")  # several legal moves: a search, not a forced answer
    started, answer = threading.Event(), []
    thinker = threading.Thread(target=lambda: answer.append(engine.play(
        game, Limit(movetime=3600), on_info=lambda info: started.set())))
    thinker.start()
    assert started.wait(60)
    while thinker.is_alive():  # a stop that lands between two searches is repeated
        engine.stop()
        thinker.join(timeout=0.1)
    assert answer[0].move in game.legal_moves()


def test_the_table_survives_two_threads_writing_it_at_once():
    # the helpers share the table with the main thread; a tactic must still be found
    result = BuiltinEngine("international", threads=4).play(
        Position.from_fen("W:W48:B42,32,23", "international"), Limit(depth=8))
    assert result.move.short == "48x19" and result.info.score == WIN - 1
