"""Game history and every end rule of rules.md, each with its seed article."""

import random

import pytest

from damas.rules import Game, IllegalMoveError


def test_push_pop_restores_everything():
    game = Game("international")
    start = game.position
    game.push("32-28")
    game.push("19-23")
    assert game.push("28x19").captured == (23,)
    assert game.notations() == ["32-28", "19-23", "28x19"]
    game.pop()
    game.pop()
    game.pop()
    assert game.position == start and game.moves == [] and game.notations() == []
    with pytest.raises(IndexError):
        game.pop()


def test_illegal_push_is_refused_and_changes_nothing():
    game = Game("english")
    with pytest.raises(IllegalMoveError):
        game.push(Game("international").legal_moves()[0])
    assert game.ply == 0


def test_no_legal_move_loses():
    game = Game("international", fen="W:W46:B37,41")  # 46 is stuck
    out = game.outcome()
    assert (out.result, out.winner, out.reason) == ("0-2", 1, "no-legal-moves")
    game = Game("english", fen="B:W32:B")
    assert game.outcome().result == "1-0"


def quiet_king_walk(game, plies, seed=0):
    """Extend the game by `plies` quiet king moves that give the opponent no capture
    and never make a position occur a third time (backtracking when stuck)."""
    rng = random.Random(seed)

    def extend(left):
        if left == 0:
            return True
        moves = [m for m in game.legal_moves()
                 if not m.captured and game.position.piece(m.start) in "WB"]
        rng.shuffle(moves)
        for m in moves:
            game.push(m)
            ok = (not game.position.capture_required()
                  and game.positions.count(game.position) < 3
                  and (game.outcome() is None or left == 1))
            if ok and extend(left - 1):
                return True
            game.pop()
        return False

    assert extend(plies), "no quiet walk found"


@pytest.mark.parametrize("variant, fen, moves, name, article", [
    ("international", "W:WK46,K47,K48,K49:BK1,K2,K3,K4", 25, "25-king-moves", "001 §6.2"),
    ("brazilian", "W:WK29,K30,K31:BK2,K3,K4", 20, "20-king-moves", "002 Empate; 004 §4"),
    ("english", "W:WK29,K30,K31:BK2,K3,K4", 40, "40-move-rule", "WCDF; rules.md"),
    ("international", "W:WK46,K47,K48:BK3", 16, "16-move-ending", "001 §6.3"),
    ("international", "W:WK46,K47:BK3", 5, "5-move-ending", "001 §6.4"),
    ("international", "W:WK46,36:BK3", 5, "5-move-ending", "001 §6.4"),
    ("brazilian", "W:WK29,K30:BK2,K3", 5, "5-move-ending", "002 Empate; 004 §4"),
    ("brazilian", "W:WK29:BK3,10", 5, "5-move-ending", "002 Empate; 004 §4"),
])
def test_draw_after_so_many_moves_of_each_side(variant, fen, moves, name, article):
    game = Game(variant, fen=fen)
    quiet_king_walk(game, 2 * moves - 1)
    assert game.outcome() is None
    quiet_king_walk(game, 1, seed=1)
    out = game.outcome()
    assert (out.reason, out.article, out.winner) == (name, article, None)
    assert out.result == game.variant.results[2]


def test_threefold_repetition():
    game = Game("english", fen="W:WK29:BK4")
    for _ in range(2):
        for move in ("29-25", "4-8", "25-29", "8-4"):
            assert game.outcome() is None
            game.push(move)
    out = game.outcome()
    assert (out.reason, out.result) == ("threefold-repetition", "1/2-1/2")


def test_a_man_move_resets_the_king_move_count():
    game = Game("international", fen="W:WK46,K47,K48,K49,36:BK1,K2,K3,K4")
    quiet_king_walk(game, 48)
    game.push(next(m for m in game.legal_moves() if game.position.piece(m.start) == "w"))
    assert game._king_move_run() == 0
    assert game.outcome() is None


def test_endgame_count_starts_when_the_material_arises():
    # 2K v 2K is no listed international ending: nothing until a capture makes it 2K v 1K
    game = Game("international", fen="W:WK46,K47:BK3,K4")
    quiet_king_walk(game, 12)
    assert game.outcome() is None


def test_an_adjourned_ending_goes_on_counting_from_the_fens_h_field():
    """`:H6` (Lidraughts' count of plies since the ending arose): a 5-move ending
    adjourned after 6 plies is drawn 4 plies later, not 10; the count survives the PDN."""
    from damas.rules.pdn import PdnGame, read_pdn, write_pdn

    game = Game("international", fen="W:WK46,K47:BK3:H6")
    assert game.ending_plies_before == 6 and game.is_setup
    quiet_king_walk(game, 3)
    assert game.outcome() is None
    quiet_king_walk(game, 1, seed=1)
    assert game.outcome().reason == "5-move-ending"
    text = write_pdn(PdnGame.from_game(Game("international", fen="W:WK46,K47:BK3:H6")))
    assert '[FEN "W:WK46,K47:BK3:H6"]' in text
    (again,) = read_pdn(text)
    assert again.game.ending_plies_before == 6
    # no ending on the board: the count given means nothing
    not_yet = Game("international", fen="W:WK46,K47:BK3,K4:H9")
    quiet_king_walk(not_yet, 2)
    assert not_yet.outcome() is None
