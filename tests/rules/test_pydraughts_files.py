"""Files other tools read: PDN and FEN written by damas are read and replayed by
pydraughts 0.6.7, and pydraughts' own files are read by damas, for all three variants
(random games of up to 40 plies, 200 per variant each way; a quarter of them from a
set-up position reached after 10 to 60 random plies).

Brazilian is the case that used to fail: PDN 3.0 writes GameType 26 with algebraic
squares (a1..h8), and pydraughts numbers that board from White's side, so numbers mean
different squares to the two programs. damas writes Brazilian files in algebraic squares."""

import random

import pytest

draughts = pytest.importorskip("draughts")
from draughts.PDN import PDNReader, PDNWriter  # noqa: E402

from damas.rules import Game, Position  # noqa: E402
from damas.rules.pdn import PdnGame, read_pdn, write_pdn  # noqa: E402

THEIR_NAME = {"international": "standard", "brazilian": "brazilian", "english": "english"}
GAMES = 200
MAX_PLIES = 40  # pydraughts replays about 300 plies a second
VARIANTS = list(THEIR_NAME)


def our_games(name: str, seed: int) -> list[Game]:
    rng = random.Random(seed)
    games = []
    while len(games) < GAMES:
        game = Game(name)
        if len(games) % 4 == 3:  # a set-up position: a FEN tag
            for _ in range(rng.randrange(10, 60)):
                if game.outcome() is None:
                    game.push(rng.choice(game.legal_moves()))
            if game.outcome() is not None:
                continue  # pydraughts reads no game without a move
            game = Game(name, fen=game.position.fen())
        while game.outcome() is None and game.ply < MAX_PLIES:
            game.push(rng.choice(game.legal_moves()))
        games.append(game)
    return games


def their_move_texts(their, ours: Game) -> list[str]:
    """The moves pydraughts read from the file. Its reader numbers moves as if White
    always moved first (its board's convention), which shows with set-ups: when the FEN
    says Black to move it lists the first move twice (undone here); in English, where
    Black is the first player (English PDN numbers Black's move `1.` and White's `1...`),
    it takes move numbers for moves or loses one, so for English set-ups the file's move
    texts go to pydraughts one by one."""
    fen = their.tags.get("FEN", "W")
    moves = their.moves
    if ours.variant.name == "english" and ours.is_setup:
        return ours.notations()  # English moves are written as damas notates them
    if fen.startswith("B"):
        assert moves[0] == moves[1]
        moves = moves[1:]
    return moves


def replay_in_pydraughts(their, ours: Game) -> "draughts.Board":
    fen = their.tags.get("FEN", "startpos")
    moves = their_move_texts(their, ours)
    board = draughts.Board(their.variant, fen)
    for text in moves:
        board.push(draughts.Move(board, pdn_move=text, variant=board.variant))
    return board


@pytest.mark.parametrize("name", VARIANTS)
def test_pydraughts_replays_the_pdn_damas_writes(name):
    games = our_games(name, seed=14)
    text = write_pdn([PdnGame.from_game(g, Event="interop", Round=str(i))
                      for i, g in enumerate(games, 1)])
    theirs = PDNReader(pdn_text=text).games
    assert len(theirs) == GAMES
    for number, (ours, their) in enumerate(zip(games, theirs, strict=True), 1):
        assert their.variant == THEIR_NAME[name], number
        board = replay_in_pydraughts(their, ours)
        assert len(board.move_stack) == ours.ply, number
        assert Position.from_fen(board.fen, name) == ours.position, number


@pytest.mark.parametrize("name", VARIANTS)
def test_pydraughts_reads_the_fens_damas_writes(name):
    for number, ours in enumerate(our_games(name, seed=15), 1):
        for position in (ours.start, ours.position):
            board = draughts.Board(THEIR_NAME[name], position.fen())
            assert Position.from_fen(board.fen, name) == position, number
            assert board.turn == (draughts.WHITE if position.turn == 0 else draughts.BLACK)


def _random_plies(board, rng: random.Random, plies: int) -> None:
    for _ in range(plies):
        moves = board.legal_moves()  # none: the game is over (cheaper than is_over)
        if not moves:
            return
        board.push(rng.choice(moves))


def their_games(name: str, seed: int) -> list[tuple[str, str, int]]:
    """(PDN text, final FEN, plies) pydraughts writes for random games of its own."""
    rng = random.Random(seed)
    texts = []
    while len(texts) < GAMES:
        board = draughts.Board(THEIR_NAME[name])
        if len(texts) % 4 == 3:
            _random_plies(board, rng, rng.randrange(10, 40))
            if not board.legal_moves():
                continue
            board = draughts.Board(THEIR_NAME[name], board.fen)
        _random_plies(board, rng, MAX_PLIES)
        writer = PDNWriter("", board=board, tags={"Event": "theirs"})
        texts.append((writer.pdn_text, board.fen, len(board.move_stack)))
    return texts


@pytest.mark.parametrize("name", VARIANTS)
def test_damas_reads_the_pdn_and_fens_pydraughts_writes(name):
    texts = their_games(name, seed=16)
    games = read_pdn("\n".join(text for text, _, _ in texts))
    assert len(games) == GAMES
    for number, (game, (_, fen, plies)) in enumerate(zip(games, texts, strict=True), 1):
        assert game.game.variant.name == name, number
        assert game.game.ply == plies, number
        assert game.game.position == Position.from_fen(fen, name), number
