"""The live page's server under load while a game runs: `damas bench web` and its test.

A simulated game (the perfect-reading camera, the Python machine simulator, the built-in
engine) plays with the page served, while on loopback, all at once: connections that
never say a word, event streams that are read, event streams that are never read (a
frozen browser tab), and clients asking for `/state`, the page and an action without
the token over and over. Figures: the answers' latency (median, p99, worst), what every
kind of client got, the most threads the process had, and the game loop's longest gap
between two camera frames.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class SoakFigures:
    plies: int = 0
    finished: bool = False  # the game came to its end (a result or the ply limit)
    clients: int = 0
    half_open: int = 0
    answers: int = 0
    bad_answers: int = 0  # a status other than the one the request calls for
    latencies: list[float] = field(default_factory=list)  # seconds
    streams_read: int = 0
    streams_saw_end: int = 0  # read streams whose last event showed the game's end
    streams_stalled: int = 0
    threads_before: int = 0
    threads_most: int = 0
    loop_gap_most: float = 0.0  # seconds between two frames of the game loop
    loop_gap_median: float = 0.0
    seconds: float = 0.0

    def summary(self) -> dict:
        lat = sorted(self.latencies)

        def q(p: float) -> float:
            return round(1000 * lat[min(len(lat) - 1, int(p * len(lat)))], 1) if lat else 0.0

        return {"plies": self.plies, "finished": self.finished, "clients": self.clients,
                "half_open": self.half_open,
                "answers": self.answers, "bad_answers": self.bad_answers,
                "latency_ms": {"median": q(0.5), "p99": q(0.99), "worst": q(1.0)},
                "streams": {"read": self.streams_read, "saw_the_end": self.streams_saw_end,
                            "never_read": self.streams_stalled},
                "threads": {"before": self.threads_before, "most": self.threads_most},
                "game_loop_gap_ms": {"median": round(1000 * self.loop_gap_median, 1),
                                     "worst": round(1000 * self.loop_gap_most, 1)},
                "seconds": round(self.seconds, 1)}


def soak(clients: int = 200, half_open: int = 300, variant: str = "english",
         plies: int = 60, seed: int = 3) -> SoakFigures:
    """`clients` at once: a quarter read event streams, a tenth never read theirs, the
    rest ask and ask again; plus `half_open` silent connections."""
    from damas.journal import Journal
    from damas.play import PlayOptions, PlaySession
    from damas.rules import WHITE
    from damas.simulation import simulated_world
    from damas.web import Display, WebServer

    figures = SoakFigures(clients=clients, half_open=half_open,
                          threads_before=threading.active_count())
    display = Display()
    server = WebServer(display).start()
    host, port = server.address
    session = None
    world = simulated_world(variant, robot="sim-python", camera="board", seed=seed,
                            slip_rate=0.0)
    frames: list[float] = []
    look = world.watch.look

    def timed_look():
        frames.append(time.perf_counter())
        return look()

    world.watch.look = timed_look  # type: ignore[method-assign]  # counts the frames
    done = threading.Event()
    folder = Path(tempfile.mkdtemp(prefix="damas-soak-"))

    def play() -> None:
        nonlocal session
        try:
            with Journal(folder / "soak.jsonl") as journal:
                session = PlaySession(
                    PlayOptions(variant=variant, engine=f"builtin:level=1,seed={seed}",
                                machine_sides=(WHITE.opponent,), settle=0.3, max_plies=plies),
                    world.watch, world.mover, journal, folder / "soak.pdn",
                    clock=world.clock, wait=world.wait, out=lambda *a: None,
                    display=display)
                world.visitor.join((WHITE,), session)
                session.run()
        finally:
            done.set()

    started = time.perf_counter()
    loop = asyncio.new_event_loop()
    try:
        game = threading.Thread(target=play, name="soak-game")
        # the clients connect before the game starts, so it runs with all of them there
        loop.run_until_complete(_clients(loop, host, port, clients,
                                         half_open, figures, done, game))
        game.join(timeout=600)
    finally:
        loop.close()
        figures.seconds = time.perf_counter() - started
        server.stop()
        world.close()
    figures.plies = session.game.ply if session else 0
    figures.finished = session is not None and (session.game.outcome() is not None
                                                or session.game.ply >= plies)
    gaps = sorted(b - a for a, b in zip(frames, frames[1:], strict=False))
    if gaps:
        figures.loop_gap_most = gaps[-1]
        figures.loop_gap_median = gaps[len(gaps) // 2]
    return figures


async def _clients(loop, host, port, clients, half_open, figures: SoakFigures,
                   done: threading.Event, game: threading.Thread) -> None:
    silent = []
    for _ in range(half_open):
        silent.append(await asyncio.open_connection(host, port))
    n_read = clients // 4
    n_stalled = clients // 10
    n_ask = clients - n_read - n_stalled
    ended = asyncio.Event()
    read = [asyncio.ensure_future(_stream(host, port, figures, ended)) for _ in range(n_read)]
    stalled = [await _stalled_stream(host, port) for _ in range(n_stalled)]
    figures.streams_stalled = n_stalled
    askers = [asyncio.ensure_future(_ask(host, port, k, figures, ended))
              for k in range(n_ask)]

    async def watch_threads():
        while not ended.is_set():
            figures.threads_most = max(figures.threads_most, threading.active_count())
            await asyncio.sleep(0.05)

    watcher = asyncio.ensure_future(watch_threads())
    game.start()
    await loop.run_in_executor(None, done.wait)
    # a read stream ends once it has seen the game over (the failsafe: a lost push)
    await asyncio.wait(read, timeout=120)
    ended.set()
    await asyncio.gather(*read, *askers, watcher, return_exceptions=True)
    for _, writer in silent + stalled:
        writer.close()


async def _stream(host, port, figures: SoakFigures, ended: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    figures.streams_read += 1
    try:
        while not ended.is_set():
            try:
                line = await asyncio.wait_for(reader.readline(), 0.5)
            except TimeoutError:
                continue
            if not line:
                break
            if line.startswith(b"data: ") and \
                    json.loads(line[6:]).get("status", "").startswith("game over"):
                figures.streams_saw_end += 1
                break
    finally:
        writer.close()


async def _stalled_stream(host, port):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET /events HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    await writer.drain()
    return reader, writer  # and never read


REQUESTS = (  # (what, the status it must get)
    ("GET /state", 200), ("GET /", 200), ("POST /action/new-game", 403),
    ("GET /nothing", 404),
)


async def _ask(host, port, k: int, figures: SoakFigures, ended: asyncio.Event):
    i = k
    while not ended.is_set():
        what, want = REQUESTS[i % len(REQUESTS)]
        i += 1
        method, path = what.split()
        t = time.perf_counter()
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                         "Content-Length: 0\r\n\r\n".encode())
            head = await asyncio.wait_for(reader.readline(), 30)
            await asyncio.wait_for(reader.read(), 30)
            writer.close()
            status = int(head.split()[1])
        except (OSError, TimeoutError, ValueError, IndexError):
            status = None
        figures.latencies.append(time.perf_counter() - t)
        figures.answers += 1
        if status != want:
            figures.bad_answers += 1
        await asyncio.sleep(0.02)  # a browser's pace, not a flood
