"""The hall's fuzz test on its message schema: honest boards' messages mutated field by
field and byte by byte, and random ones, through a real Mosquitto to a `damas broadcast`
process; after each batch the broadcaster is alive, /state is strict JSON, every board's
and round's PDN reads back, and its memory stays bounded. A quick run here; the figure
for the record is `damas bench hall-fuzz` (20,000 messages)."""

from damas.hall import fuzz


def test_mutated_and_random_messages_leave_the_hall_standing(mosquitto):
    # (the fixture checks Mosquitto is there; the run starts its own, as the bench does)
    figures = fuzz.run(600, seed=5, batch=200, out=lambda line: None)
    assert figures.messages == 600 and figures.batches == 3
    assert figures.stops == 0, figures.problems
    assert figures.non_json_states == 0
    assert figures.unreadable_pdns == 0, figures.problems
    assert figures.boards >= 6  # the honest boards got through, in every script
    assert 0 < figures.peak_rss_mb < 100
