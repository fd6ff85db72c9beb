"""Property tests: FEN and PDN round-trip; parsers given any text raise only our errors."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from damas.rules import DamasError, Game, Position, variant
from damas.rules.fen import parse_fen
from damas.rules.pdn import PdnGame, comment_value, read_pdn, tag_value, write_pdn

VARIANTS = st.sampled_from(["international", "brazilian", "english"])


@st.composite
def positions(draw):
    v = variant(draw(VARIANTS))
    per_row = v.size // 2
    most = v.start_rows * per_row  # no side has more than it starts with
    squares = draw(st.lists(st.integers(1, v.squares), unique=True, max_size=2 * most))
    pieces = {}
    for sq in squares:
        piece = draw(st.sampled_from("wbWB"))
        if sum(p.lower() == piece.lower() for p in pieces.values()) == most:
            piece = "wbWB"["bwBW".index(piece)]  # the other side's, then
        if piece == "w" and sq <= per_row or piece == "b" and sq > v.squares - per_row:
            piece = piece.upper()  # a man on its crowning row is a king
        pieces[sq] = piece
    return Position.from_pieces(v, pieces, draw(st.integers(0, 1)))


@given(positions())
def test_fen_round_trip(pos):
    assert Position.from_fen(pos.fen(), pos.variant) == pos


@given(positions())
def test_fen_sections_in_either_order(pos):
    side, white, black = pos.fen().split(":")
    assert Position.from_fen(f"{side}:{black}:{white}", pos.variant) == pos


comment_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1,
                       max_size=30).filter(lambda s: comment_value(s))
# any text at all: braces, quotes, backslashes, newlines, control characters
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(VARIANTS, st.integers(0, 10**6), st.integers(0, 40), st.data())
def test_pdn_round_trip(name, seed, plies, data):
    rng = random.Random(seed)
    game = Game(name)
    while game.ply < plies and game.outcome() is None:
        game.push(rng.choice(game.legal_moves()))
    comments = data.draw(st.dictionaries(st.integers(0, game.ply), st.lists(
        comment_text, min_size=1, max_size=2), max_size=3))
    nags = data.draw(st.dictionaries(st.integers(1, max(game.ply, 1)), st.lists(
        st.integers(1, 200), min_size=1, max_size=2), max_size=3)) if game.ply else {}
    tags = {"Event": data.draw(any_text), "White": "A \"quoted\" name \\ here",
            "Black": data.draw(any_text), "Site": data.draw(any_text)}
    original = PdnGame(tags, game, comments, nags, data.draw(st.sampled_from(
        [*game.variant.results, "*"])))
    text = write_pdn(original)
    (back,) = read_pdn(text)
    assert back.game.moves == game.moves and back.game.start == game.start
    assert back.result == original.result
    assert back.nags == nags
    # what was written is read back exactly: a comment as comment_value writes it (no
    # brace, spaces as one), a tag's value as tag_value does (no control character)
    assert back.comments == {k: [comment_value(c) for c in v] for k, v in comments.items()}
    assert {k: back.tags[k] for k in tags} == {k: tag_value(v) for k, v in tags.items()}
    for value in tags.values():
        if not any(c < " " or "\x7f" <= c <= "\x9f" or c in "\u2028\u2029" for c in value):
            assert tag_value(value) == value  # text that fits on a line is kept whole
    # pydraughts (an independent reader) sees the same tags (it keeps the escapes
    # as written), the same moves and the same result: nothing injected. (Its reader
    # loses its count at a comment between a move and "N...", so the game goes to it
    # without comments and annotations.)
    from draughts.PDN import PDNReader

    text = write_pdn(PdnGame(tags, game, {}, {}, original.result))
    (theirs,) = PDNReader(pdn_text=text).games
    assert theirs.tags == {line[1:line.index(" ")]: line[line.index('"') + 1:-2]
                           for line in text.split("\n\n")[0].split("\n")}
    assert len(theirs.tags) == len({**{name: "" for name in ("Event", "Site", "Date", "Round",
                                                             "White", "Black")}, **tags,
                                    "Result": "", "GameType": ""}) + game.is_setup
    assert theirs.game_ending == original.result
    assert len(theirs.moves) == game.ply


@given(st.text(max_size=200))
def test_pdn_reader_raises_only_our_error(text):
    try:
        read_pdn(text)
    except DamasError:
        pass


@given(st.text(alphabet="WBK0123456789:,-. xH", max_size=40) | st.text(max_size=40))
def test_fen_reader_raises_only_our_error(text):
    try:
        parse_fen(text, variant("international"))
    except DamasError:
        pass


@given(st.text(alphabet="0123456789x-:abch ", max_size=20) | st.text(max_size=20))
def test_move_parser_raises_only_our_error(text):
    try:
        Position.start("brazilian").parse_move(text)
    except DamasError:
        pass
