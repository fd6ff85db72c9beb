"""The scale test of issue 16: 100 simulated boards (real recorders and publishers, perfect
readings) play at accelerated speed through one Mosquitto and one broadcaster process; the
broker is killed and started again mid-round and one board's connection drops and comes
back. Every board's broadcast PDN must equal the board's own record, and the round's PDN
must hold them all."""

from damas.hall.sim import SimBoard, wait_until
from damas.rules.pdn import read_pdn

from .hallrig import BroadcasterProcess

BOARDS = 100
PLIES = 30
PACE = 0.05  # wall seconds between a board's moves


def test_a_hundred_boards_through_a_broker_restart_and_a_dropped_board(
        mosquitto, tmp_path, progress):
    caster = BroadcasterProcess(mosquitto.url, "open")
    boards = [SimBoard(mosquitto.broker, "open", "1", str(n), tmp_path / f"b{n}",
                       plies=PLIES, pace=PACE, seed=n) for n in range(1, BOARDS + 1)]
    try:
        for board in boards:
            board.start()
        total = sum(len(b.moves) for b in boards)
        played = lambda: sum(b.played for b in boards)  # noqa: E731
        wait_until(lambda: played() >= total // 3, 120, "a third of the round played")
        dropped = boards[6]
        dropped.publisher.drop()  # its network goes away; paho reconnects by itself
        wait_until(lambda: played() >= total // 2, 120, "half the round played")
        mosquitto.restart(kill=True)  # a crash: what it held in memory is gone
        progress(f"hall scale: broker killed and restarted after {played()} of {total} plies")
        for board in boards:
            board.join(120)
        assert [b.error for b in boards if b.error] == []
        for board in boards:
            assert board.publisher.flush(60), f"board {board.address.name} never delivered"
        expected = {b.address.name: b.pdn.read_text() for b in boards}
        assert all(len(read_pdn(t)[0].game.moves) == len(b.moves)
                   for b, t in zip(boards, expected.values(), strict=True))

        def all_there():
            stats = caster.json("/stats.json")
            return stats["moves"] >= total and stats["boards"] == BOARDS

        wait_until(all_there, 60, "every move at the broadcaster")
        wrong = [name for name, text in expected.items()
                 if caster.get(f"/board/{name}.pdn") != (200, text)]
        assert wrong == [], f"boards whose broadcast PDN differs from their record: {wrong}"
        status, round_pdn = caster.get("/round/1.pdn")
        assert status == 200
        games = read_pdn(round_pdn, "english")
        assert [g.tags["Board"] for g in games] == [str(n) for n in range(1, BOARDS + 1)]
        assert round_pdn == "\n".join(expected[f"1/{n}"].rstrip() + "\n"
                                      for n in range(1, BOARDS + 1))
        stats = caster.json("/stats.json")
        progress(f"hall scale: {stats}")
        assert stats["garbage"] == 0 and stats["held_now"] == 0
        summary = caster.json("/state")
        assert len(summary["boards"]) == BOARDS
        assert {b["ply"] for b in summary["boards"]} == {len(b.moves) for b in boards}
    finally:
        for board in boards:
            board.stop.set()
        for board in boards:
            board.close(timeout=5)
        caster.stop()


def test_a_board_restarted_while_the_broker_is_down_sends_its_spool(mosquitto, tmp_path):
    """The board process stops with events the broker never had; its next start sends
    them from the spool, and the broadcaster applies each once."""
    from damas.hall.broadcaster import Broadcaster, Hall
    from damas.hall.publisher import Publisher

    hall = Hall("club", out=lambda line: None)
    caster = Broadcaster(mosquitto.broker, hall)
    board = SimBoard(mosquitto.broker, "club", "2", "5", tmp_path, plies=40, seed=7)
    board.moves, rest = board.moves[:20], board.moves[20:]
    board.start().join(60)
    assert board.error is None and board.publisher.flush(10)
    wait_until(lambda: hall.board_pdn("2/5") == board.pdn.read_text(), 20, "the first half")
    board.close()
    mosquitto.stop()
    # the board goes on (same journal, spool and PDN) while the broker is down, then stops
    from damas.clock import parse_time_control
    from damas.record import Recorder

    publisher = Publisher(board.address, board.spool, out=lambda line: None)
    recorder = Recorder("english", parse_time_control("45+0"), board.journal, board.pdn,
                        resume=True, settle=0.5, out=lambda line: None, publisher=publisher,
                        tags={"Round": "2", "Board": "5"}, white="White 5", black="Black 5",
                        event="club")
    board.moves = rest
    recorder.record_boards(_continued(board, recorder))
    publisher.close(timeout=0.5)  # nobody to acknowledge: it stays in the spool
    assert publisher.spool.unacked(), "the events the broker never had are in the spool"
    mosquitto.start()
    again = Publisher(board.address, board.spool, out=lambda line: None)
    try:
        assert again.flush(20)
        wait_until(lambda: hall.board_pdn("2/5") == board.pdn.read_text(), 20,
                   "the second half from the spool")
        assert hall.board_pdn("2/5").count("[%clock") == recorder.tracker.game.ply
    finally:
        again.close()
        caster.stop()


def _continued(board, recorder):
    """The board as it stands, then the remaining moves (perfect readings)."""
    from damas.hall.sim import SETTLE, squares
    from damas.rules import variant

    v = variant("english")
    position = recorder.tracker.position
    t = 1000.0
    board_now = squares(v, position.pieces())
    yield t, board_now
    yield t + SETTLE, board_now
    for move in board.moves:
        position = position.after(move)
        t += 10
        yield t, squares(v, position.pieces())
        yield t + SETTLE, squares(v, position.pieces())


def test_the_hall_bench_runs_its_boards_in_processes_and_checks_every_pdn(mosquitto,
                                                                          tmp_path):
    """`damas bench hall`'s one run, small: boards in two worker processes, every move at
    the broadcaster, every broadcast PDN equal to its board's record (figures not
    checked: they are the bench's to print)."""
    from damas.hall import bench

    run = bench.one_run(mosquitto, 3, tmp_path, pace=0.01, plies=8, per_process=2)
    assert run["board_processes"] == 2 and run["errors"] == []
    assert run["arrived"] == run["moves"] > 0 and run["pdn_equal"] == 3
    assert run["latency_ms"]["median"] >= 0 and run["broadcaster_peak_mb"] > 0
