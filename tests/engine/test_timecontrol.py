"""Deadlines from a Limit: never past the clock, longer with an increment or fewer moves
to go, and a level's share of the time."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from damas.engine import Limit
from damas.engine.timecontrol import ANSWER_MARGIN, budget


@given(st.floats(0.0, 3600), st.floats(0.0, 30), st.one_of(st.none(), st.integers(1, 80)))
def test_a_clock_never_gives_more_than_what_is_left(remaining, inc, moves):
    soft, hard = budget(Limit(time=remaining, inc=inc, moves_to_go=moves))
    assert 0 < soft <= hard
    assert hard <= max(0.01, remaining - ANSWER_MARGIN, 0.2 * remaining + 0.5 * inc)


def test_more_time_for_an_increment_and_for_fewer_moves_to_go():
    base = budget(Limit(time=60))[0]
    assert budget(Limit(time=60, inc=2))[0] > base
    assert budget(Limit(time=60, moves_to_go=5))[0] > base


def test_a_move_time_is_used_whole_less_a_margin():
    assert budget(Limit(movetime=1.0)) == (pytest.approx(0.95), pytest.approx(0.95))
    assert budget(Limit(movetime=0.1)) == (pytest.approx(0.09), pytest.approx(0.09))


def test_a_share_scales_the_budget_and_depth_alone_has_none():
    assert budget(Limit(movetime=2.0), share=0.25)[1] == pytest.approx(1.95 * 0.25)
    assert budget(Limit(depth=5)) == (None, None)
