"""DXP: the messages (also checked against pydraughts' own parser), our client against
our server for whole games, take-backs, and a client that survives a server that dies,
falls silent or answers nonsense."""

import socket
import subprocess
import threading

import pytest
from engine_helpers import DAMAS, play_out
from hypothesis import given
from hypothesis import strategies as st

from damas.engine import (
    BuiltinEngine,
    DxpEngine,
    DxpServer,
    EngineCrashed,
    EngineIllegalMove,
    EngineTimeout,
    Limit,
    RandomEngine,
)
from damas.engine.dxpwire import (
    BackAccept,
    BackRequest,
    Chat,
    Connection,
    GameAccept,
    GameEnd,
    GameRequest,
    MoveMessage,
    decode,
    encode,
    move_number,
    ply_of,
)
from damas.rules import Color, Game, Position, variant

INTL = variant("international")


def roundtrip(msg, v=INTL):
    raw = encode(msg)
    assert raw.endswith(b"\0") and raw.count(b"\0") == 1
    return decode(raw[:-1].decode("ascii"), v)


def test_every_message_round_trips():
    setup = Position.from_fen("B:W31,K45:B3,K12", INTL)
    for msg in (GameRequest("damas", Color.BLACK, 10, 50), GameRequest("x", Color.WHITE, 0, 0,
                                                                        setup),
                GameAccept("Kingsrow", 0), MoveMessage(12, 28, 19, (23, 24, 19)),
                GameEnd(3, 1), Chat("hello there"), BackRequest(12, Color.BLACK),
                BackAccept(0)):
        assert roundtrip(msg) == msg


@pytest.mark.parametrize("text", ["R01damas        C             \t    Z005050A",
                                  "A" + "Kingsrow\t".ljust(32) + "0"])
def test_a_name_is_read_exactly_up_to_its_space_padding(text):
    # found by the fuzz test: other whitespace at a name's end is the name's own
    assert encode(decode(text, INTL))[:-1] == text.encode("ascii")


@given(st.integers(0, 400), st.sampled_from(list(Color)))
def test_move_numbers_and_plies_are_inverse(ply, start):
    colour = Color((int(start) + ply) % 2)
    assert ply_of(move_number(ply, start), colour, start) == ply


def test_move_numbers_follow_the_usual_counting():
    assert [move_number(p, Color.WHITE) for p in range(4)] == [1, 1, 2, 2]
    assert [move_number(p, Color.BLACK) for p in range(4)] == [1, 2, 2, 3]


def test_pydraughts_reads_our_messages_and_we_read_theirs():
    pytest.importorskip("draughts")
    from draughts.engines.dxp_communication.dxp_classes import DamExchange

    theirs = DamExchange()
    ours = encode(MoveMessage(5, 28, 19, (23, 24)))[:-1].decode()
    parsed = theirs.parse(ours)
    assert (parsed["from"], parsed["to"], parsed["captures"]) == ("28", "19", ["23", "24"])
    parsed = theirs.parse(encode(GameRequest("damas", Color.BLACK, 10, 50))[:-1].decode())
    assert (parsed["name"], parsed["fColor"], parsed["posInd"]) == ("damas", "Z", "A")
    assert decode(theirs.msg_move([32, 28], [], 7)) == MoveMessage(7, 32, 28, ())
    assert decode(theirs.msg_gameend("2")) == GameEnd(2, 1)
    assert decode(theirs.msg_backreq(4, 1)) in (BackRequest(4, Color.WHITE),
                                                BackRequest(4, Color.BLACK))


@pytest.fixture
def server():
    servers = []

    def start(variant_name="international", **engine_options):
        s = DxpServer(lambda: BuiltinEngine(variant_name, **engine_options), variant_name)
        s.serve_in_thread()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


@pytest.mark.parametrize("name", ["international", "brazilian"])
def test_our_client_plays_whole_games_against_our_server(server, name):
    s = server(name, depth=2)
    with DxpEngine("127.0.0.1", s.port, name) as remote:
        for colour in (Color.WHITE, Color.BLACK):
            game = Game(name)
            engines = {int(colour): remote, 1 - int(colour): RandomEngine(seed=int(colour))}
            play_out(game, engines, Limit(movetime=5))
            assert game.outcome() is not None
            remote.new_game()
        assert remote.remote_name == "damas"


def test_a_game_from_a_setup_position(server):
    s = server("international", depth=2)
    with DxpEngine("127.0.0.1", s.port) as remote:
        game = Game("international", fen="B:W28,K45:B3,12,K20")
        reply = remote.play(game, Limit(movetime=5))
        assert reply.move in game.legal_moves()


def test_a_take_back_is_asked_and_the_game_goes_on(server):
    s = server("international", depth=2)
    with DxpEngine("127.0.0.1", s.port) as remote:
        game = Game("international")
        for _ in range(3):  # we are White, the remote Black
            game.push(game.legal_moves()[0])
            game.push(remote.play(game, Limit(movetime=5)).move)
        game.pop()  # the remote's answer
        taken_back = game.pop()  # and our move before it
        while len(game.legal_moves()) < 2:  # it was forced: take back a move more
            game.pop()
            taken_back = game.pop()
        game.push(next(m for m in game.legal_moves() if m != taken_back))  # another instead
        sent = []
        real_send = remote._conn.send
        remote._conn.send = lambda msg: (sent.append(msg), real_send(msg))[1]
        game.push(remote.play(game, Limit(movetime=5)).move)
        assert isinstance(sent[0], BackRequest) and isinstance(sent[1], MoveMessage)
        assert not any(isinstance(m, GameRequest) for m in sent)  # no new game was needed
        play_out(game, {0: RandomEngine(seed=3), 1: remote}, Limit(movetime=5))
        assert game.outcome() is not None


def test_a_killed_server_raises_and_the_game_goes_on_with_a_new_one():
    def start_server(port):
        proc = subprocess.Popen(DAMAS + ["dxp", "--listen", str(port), "--depth", "2"],
                                stdout=subprocess.PIPE, text=True)
        line = proc.stdout.readline()
        assert "listening on 127.0.0.1:" in line
        return proc, int(line.split(":")[-1].split()[0])

    proc, port = start_server(0)
    try:
        remote = DxpEngine("127.0.0.1", port, grace=30)
        game = Game("international")
        game.push("32-28")
        game.push(remote.play(game, Limit(movetime=5)).move)
        game.push(game.legal_moves()[0])
        proc.kill()
        proc.wait()
        with pytest.raises(EngineCrashed):
            remote.play(game, Limit(movetime=5))
        assert game.ply == 3
        proc, port = start_server(port)
        play_out(game, {0: RandomEngine(seed=4), 1: remote}, Limit(movetime=5))
        assert game.outcome() is not None
        remote.close()
    finally:
        proc.kill()
        proc.wait()


def test_no_server_at_all_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free, and nobody listens once closed
    with pytest.raises(EngineCrashed, match="cannot connect"):
        DxpEngine("127.0.0.1", port).play(Game("international"))


def test_other_hosts_are_refused():
    with pytest.raises(Exception, match="127.0.0.1"):
        DxpEngine("192.0.2.1", 27531)


class FakeServer:
    """A DXP peer written by hand: `behave(connection, first_message)` decides."""

    def __init__(self, behave):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.behave = behave
        self.done = threading.Event()
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        sock, _ = self.listener.accept()
        conn = Connection(sock, INTL, "client")
        try:
            self.behave(conn, conn.receive(10, "waiting"))
        except Exception:
            pass
        self.done.wait(10)
        conn.close()

    def close(self):
        self.done.set()
        self.listener.close()


def test_a_server_silent_after_the_request_times_out():
    fake = FakeServer(lambda conn, msg: None)
    try:
        remote = DxpEngine("127.0.0.1", fake.port, answer_timeout=0.3)
        with pytest.raises(EngineTimeout, match="game request"):
            remote.play(Game("international"), Limit(movetime=0.1))
    finally:
        fake.close()


def test_a_server_that_never_moves_times_out():
    fake = FakeServer(lambda conn, msg: conn.send(GameAccept("sloth", 0)))
    try:
        remote = DxpEngine("127.0.0.1", fake.port, grace=0.3)
        game = Game("international")
        with pytest.raises(EngineTimeout, match="thinking"):
            remote.play(game, Limit(movetime=0.1))
        assert game.ply == 0
    finally:
        fake.close()


def test_an_illegal_move_from_the_server_is_refused():
    def cheat(conn, msg):
        conn.send(GameAccept("cheat", 0))
        conn.send(MoveMessage(0, 32, 23, ()))

    fake = FakeServer(cheat)
    try:
        game = Game("international")
        with pytest.raises(EngineIllegalMove, match="32-23"):
            DxpEngine("127.0.0.1", fake.port).play(game, Limit(movetime=1))
        assert game.ply == 0
    finally:
        fake.close()


def test_a_refused_game_is_a_clear_error():
    fake = FakeServer(lambda conn, msg: conn.send(GameAccept("busy", 1)))
    try:
        with pytest.raises(Exception, match="refused"):
            DxpEngine("127.0.0.1", fake.port).play(Game("international"), Limit(movetime=1))
    finally:
        fake.close()


def test_the_server_answers_a_game_end_and_announces_its_own(server):
    s = server("international", depth=1)
    sock = socket.create_connection(("127.0.0.1", s.port))
    conn = Connection(sock, INTL, "server")
    try:
        # White to move can take everything: the server (White) wins and says so.
        conn.send(GameRequest("test", Color.WHITE, 0, 0,
                              Position.from_fen("W:W48:B42,32,23", INTL)))
        assert conn.receive(10, "accept") == GameAccept("damas", 0)
        assert conn.receive(10, "move") == MoveMessage(0, 48, 19, (42, 32, 23))
        assert conn.receive(10, "end") == GameEnd(3, 0)  # 3: I win
        conn.send(GameEnd(1, 0))  # our echo: no answer expected
        conn.send(GameRequest("test", Color.BLACK, 0, 0))
        assert conn.receive(10, "accept") == GameAccept("damas", 0)
        conn.send(GameEnd(0, 1))
        assert conn.receive(10, "end") == GameEnd(0, 1)
    finally:
        conn.close()


def test_a_game_the_remote_ends_at_its_move_count_is_a_result():
    """Scan 2.0 ends a DXP game itself at the move count of the game request, with
    "unknown result": the match records the game (a draw), it does not abort."""
    from damas.engine import MatchTimeControl
    from damas.engine.match import play_game

    requests = []

    def moves_then_ends(conn, msg):
        requests.append(msg)
        conn.send(GameAccept("counter", 0))
        conn.send(MoveMessage(0, 32, 28, ()))
        conn.receive(10, "our move")
        conn.send(GameEnd(0, 0))  # 0: unknown result
        assert conn.receive(10, "the echo") == GameEnd(0, 0)

    fake = FakeServer(moves_then_ends)
    try:
        remote = DxpEngine("127.0.0.1", fake.port)
        game, result, winner, reason = play_game(
            remote, BuiltinEngine("international", depth=1), Game("international"),
            MatchTimeControl(base=300.0))
        assert game.ply == 2 and winner is None and result == "1-1"
        assert "ended the game" in reason and "draw" in reason
        # the clock was announced as it is: five minutes for the whole game
        assert (requests[0].minutes, requests[0].moves) == (5, 0)
    finally:
        fake.close()


@pytest.mark.parametrize("reason, claim, winner", [(1, "resigns", Color.BLACK),
                                                    (3, "claims a win", Color.WHITE),
                                                    (2, "claims a draw", None)])
def test_a_remote_resignation_or_claim_ends_the_game(reason, claim, winner):
    from damas.engine import MatchTimeControl
    from damas.engine.match import play_game

    def ends(conn, msg):
        conn.send(GameAccept("claimer", 0))
        conn.send(GameEnd(reason, 0))

    fake = FakeServer(ends)
    try:
        _, _, won, why = play_game(DxpEngine("127.0.0.1", fake.port),
                                   BuiltinEngine("international", depth=1),
                                   Game("international"), MatchTimeControl(movetime=0.5))
        assert won == winner and claim in why
    finally:
        fake.close()


@pytest.mark.parametrize("limit, minutes, moves", [
    (Limit(time=60), 1, 0), (Limit(time=90, inc=2), 1, 0), (Limit(time=20), 1, 0),
    (Limit(time=600, moves_to_go=40), 10, 40), (Limit(movetime=1.2), 1, 50),
    (Limit(movetime=6), 5, 50), (Limit(depth=3), 0, 0)])
def test_the_game_request_announces_the_time_control(limit, minutes, moves):
    from damas.engine.dxpclient import _time_control

    assert _time_control(limit) == (minutes, moves)


@pytest.mark.parametrize("text", ["K00", "E01e", "M0003281902022319", "M00_1322800",
                                  "M 001322800", "B005W ", "A" + "x" * 31 + "0",
                                  "R01damas                           Z005050A!",
                                  "R01" + "d" * 32 + "W001000BW" + "w" * 50])
def test_malformed_messages_are_refused_never_misread(text):
    """Fixed widths and ASCII digits only: `int` alone would read " 1", "+1", "1_0"; and
    a setup no FEN could hold (50 white men) is no position."""
    from damas.engine import EngineProtocolError

    with pytest.raises(EngineProtocolError, match="bad DXP message"):
        decode(text, INTL)


def test_the_server_drops_a_peer_that_sends_nonsense_and_serves_the_next(server):
    s = server("international", depth=1)
    with socket.create_connection(("127.0.0.1", s.port)) as sock:
        sock.sendall(b"R01damas         \xff\xff               \0")
        conn = Connection(sock, INTL, "server")
        said = conn.receive(10, "the answer")
        assert isinstance(said, Chat) and "closing" in said.text
    game = play_out(Game("international"),
                    {0: DxpEngine("127.0.0.1", s.port), 1: RandomEngine(seed=2)},
                    Limit(movetime=0.05), max_plies=6)
    assert game.ply == 6
