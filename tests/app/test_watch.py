"""The camera as the session sees it hands on the board with vision's confidence."""

from damas.rules import Occupancy, Position
from damas.simulation import simulated_world


def test_a_rendered_board_comes_with_a_confidence_per_square():
    world = simulated_world("english", camera="rendered", seed=4)
    try:
        seen = None
        for _ in range(20):
            seen = world.watch.look()
            if seen is not None:
                break
        assert isinstance(seen, Occupancy)
        assert seen.differing(Occupancy.of_position(Position.start("english"))) == []
        assert len(seen.confidence) == 32
        assert all(0.0 <= c <= 1.0 for c in seen.confidence) and min(seen.confidence) > 0.5
    finally:
        world.close()
