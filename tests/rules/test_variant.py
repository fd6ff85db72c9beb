"""Variants are data: the literal reading of seed 003 is a variant of a few lines."""

from damas.rules import ENGLISH, BackRowInCapture, CaptureChoice, Position, Variant

# Seed 003 read literally: flying kings (§6), men capture forward only (§4),
# free choice of capture (§7), crowning ends the move (§5).
SEED_003_LITERAL = Variant(
    name="english-seed-003", size=8, first_to_move=ENGLISH.first_to_move,
    men_capture_backwards=False, flying_kings=True,
    capture_choice=CaptureChoice.FREE,
    back_row_in_capture=BackRowInCapture.CROWNS_AND_STOPS,
    draw_rules=ENGLISH.draw_rules, gametype=ENGLISH.gametype,
)


def test_the_literal_seed_003_variant_differs_from_wcdf_english_only_in_kings():
    fen = "W:WK29:B18"  # the king on a1 sees a black man three squares away
    wcdf = Position.from_fen(fen, ENGLISH)
    literal = Position.from_fen(fen, SEED_003_LITERAL)
    assert sorted(m.short for m in wcdf.legal_moves()) == ["29-25"]
    assert sorted(m.short for m in literal.legal_moves()) == ["29x11", "29x15", "29x4", "29x8"]


def test_the_literal_variant_still_plays_english_openings():
    start = Position.start(SEED_003_LITERAL)
    assert start.fen() == Position.start(ENGLISH).fen()
    assert len(start.legal_moves()) == 7
