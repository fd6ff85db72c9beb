"""The live display: a web page a session serves for spectators, a kiosk's screen or an
arbiter.

The page (damas/static/index.html) gets the state pushed as server-sent events on
`/events` (JSON: board, moves, clocks, evaluation, players, status, events); `/state`
answers the same once; `/frame.jpg` is the last camera frame with the readings drawn on
it, fetched when the state says it changed; `/game.pdn` is the game so far. Buttons post
to `/action/<name>` and only the actions the session registered are shown.

Hostile pages are kept out. Actions need the run's token, which only the page itself
carries (another site's page cannot read it); a request whose Host is not an address or
this machine's name is refused (a DNS-rebinding page cannot read `/state`); a POST whose
Origin is another site's is refused.

One thread serves every connection (asyncio): a client that connects and says nothing
is dropped after a few seconds, the number of connections is capped, the listen backlog
is deep, and a client that goes away mid-answer is simply forgotten, without a trace on
stderr.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

PAGE = Path(__file__).parent / "static" / "index.html"
REQUEST_TIMEOUT = 5.0  # seconds a client has to send its request
SEND_TIMEOUT = 10.0  # seconds a slow reader may hold up an answer or an event
MAX_CONNECTIONS = 1000
BACKLOG = 512
HEARTBEAT = 15.0  # seconds between keep-alive comments on an idle event stream
PUSH_EVERY = 0.1  # the most often the state is pushed: changes in between are merged
FRAME_EVERY = 0.2  # the most often a camera frame is encoded for the page


class Display:
    """What the page shows. The session updates it from its own thread; the server only
    reads it, and is told when it changed."""

    def __init__(self):
        self._lock = threading.Lock()
        self._state: dict = {"status": "starting", "squares": {}, "moves": [], "size": 10,
                             "clocks": None, "evaluation": None, "events": [], "frame": 0,
                             "tags": {}, "variant": None, "last": None, "arrow": None,
                             "history": [], "first_ply": 0, "first_mover": "white",
                             "result": None, "reason": None, "actions": []}
        self._frame: bytes | None = None
        self._pdn: str | None = None
        self.actions: dict[str, Callable[[], None]] = {}
        self.version = 0
        self._listeners: list[Callable[[], None]] = []

    def _changed(self) -> None:
        self.version += 1
        for listener in list(self._listeners):
            listener()

    def listen(self, callback: Callable[[], None]) -> None:
        """`callback()` after every change (from the thread that made it)."""
        self._listeners.append(callback)

    def update(self, **fields) -> None:
        with self._lock:
            self._state.update(fields)
        self._changed()

    def log(self, text: str, keep: int = 12) -> None:
        with self._lock:
            self._state["events"] = (self._state["events"] + [text])[-keep:]
        self._changed()

    def set_frame(self, jpeg: bytes) -> None:
        with self._lock:
            self._frame = jpeg
            self._state["frame"] += 1
        self._changed()

    def set_pdn(self, text: str) -> None:
        with self._lock:
            self._pdn = text
            self._state["pdn"] = True
        self._changed()

    def state(self) -> dict:
        with self._lock:
            state = json.loads(json.dumps(self._state))
        state["actions"] = sorted(self.actions)
        state["now"] = time.time()  # clocks tick on the page from here
        return state

    def frame(self) -> bytes | None:
        with self._lock:
            return self._frame

    def pdn(self) -> str | None:
        with self._lock:
            return self._pdn


def local_names() -> set[str]:
    """Names this machine answers to besides its addresses (lower case)."""
    names = {"localhost"}
    try:
        host = socket.gethostname().lower()
        names |= {host, host + ".local", socket.getfqdn().lower()}
    except OSError:
        pass
    return names


def host_allowed(host_header: str | None, names: set[str]) -> bool:
    """A Host header naming an IP address or this machine: a page from a name that
    rebinds to us names itself, which we refuse."""
    if not host_header:
        return False
    try:
        host = urlsplit("//" + host_header).hostname
    except ValueError:
        return False
    if host is None:
        return False
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return host.lower() in names


class Request:
    def __init__(self, method: str, path: str, headers: dict[str, str]):
        self.method = method
        self.path = path
        self.headers = headers


class WebServer:
    """Serves a Display on host:port (port 0: any free port) from one thread."""

    page = PAGE  # what `/` serves (the hall's broadcaster serves its own)

    def __init__(self, display: Display, host: str = "127.0.0.1", port: int = 0,
                 request_timeout: float = REQUEST_TIMEOUT):
        self.display = display
        self.request_timeout = request_timeout
        self.token = secrets.token_urlsafe(24)  # per run: the page carries it
        self.names = local_names()
        self.loop = asyncio.new_event_loop()
        self.changed = asyncio.Event()
        self.connections = 0
        self.streams = 0
        self.tasks: set[asyncio.Task] = set()  # the connections being served
        self.requests: dict[str, int] = {}  # requests by path
        self._json, self._json_version = "", -1
        self.stopping = False
        try:
            self.server = self.loop.run_until_complete(asyncio.start_server(
                self._serve, host, port, backlog=BACKLOG, reuse_address=True, limit=16384))
        except BaseException:
            self.loop.close()
            raise
        display.listen(self._wake)
        self.thread = threading.Thread(target=self._run, name="damas-web", daemon=True)

    def _state_json(self) -> str:
        """The state as JSON, made once per change however many clients want it."""
        version = self.display.version
        if self._json_version != version:
            self._json, self._json_version = json.dumps(self.display.state()), version
        return self._json

    def _wake(self) -> None:
        """The display changed (in the session's thread): the streams push it."""
        try:
            self.loop.call_soon_threadsafe(self.changed.set)
        except RuntimeError:
            pass  # stopped: nobody is listening any more

    @property
    def address(self) -> tuple[str, int]:
        return self.server.sockets[0].getsockname()[:2]

    @property
    def url(self) -> str:
        host, port = self.address
        if ":" in host:
            host = f"[{host}]"
        if host in ("0.0.0.0", "[::]"):
            host = socket.gethostname()
        return f"http://{host}:{port}/"

    def start(self) -> WebServer:
        self.thread.start()
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(lambda loop, context: None)  # no traces on stderr
        try:
            self.loop.run_forever()
        finally:
            self.loop.close()

    def stop(self) -> None:
        if not self.thread.is_alive():  # never started, or already stopped
            if not self.loop.is_closed():
                self.server.close()
                self.loop.close()
            return

        async def close():
            self.stopping = True
            self.server.close()
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)

    # --- one connection -----------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None  # asyncio serves each connection in a task
        self.tasks.add(task)
        try:
            if self.connections > MAX_CONNECTIONS:
                return
            request = await asyncio.wait_for(self._read(reader), self.request_timeout)
            if request is not None:
                await self._answer(request, writer)
        except (TimeoutError, OSError, asyncio.IncompleteReadError,
                asyncio.LimitOverrunError, ValueError, UnicodeDecodeError):
            pass  # the client went away, was too slow, or spoke something else
        finally:
            self.connections -= 1
            self.tasks.discard(task)
            writer.close()

    async def _read(self, reader: asyncio.StreamReader) -> Request | None:
        head = await reader.readuntil(b"\r\n\r\n")  # the stream's limit caps its size
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return None
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        length = headers.get("content-length", "0")
        if length.isdigit() and 0 < int(length) <= 4096:
            await reader.readexactly(int(length))  # a POST's body says nothing to us
        return Request(parts[0], parts[1], headers)

    async def _send(self, writer, status: str, body: bytes, kind: str,
                    extra: str = "") -> None:
        writer.write((f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n"
                      f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n"
                      f"X-Content-Type-Options: nosniff\r\n{extra}Connection: close\r\n\r\n")
                     .encode("latin-1") + body)
        await asyncio.wait_for(writer.drain(), SEND_TIMEOUT)

    async def _answer(self, request: Request, writer) -> None:
        path = request.path.split("?")[0]
        if len(self.requests) < 64 or path in self.requests:  # what was asked, for tests
            self.requests[path] = self.requests.get(path, 0) + 1
        if not host_allowed(request.headers.get("host"), self.names):
            await self._send(writer, "421 Misdirected Request", b"unknown host",
                             "text/plain")
        elif request.method == "POST":
            await self._action(request, path, writer)
        elif request.method != "GET":
            await self._send(writer, "405 Method Not Allowed", b"GET or POST", "text/plain")
        elif path in ("/", "/index.html"):
            page = self.page.read_text(encoding="utf-8").replace("{{TOKEN}}", self.token)
            await self._send(writer, "200 OK", page.encode(), "text/html; charset=utf-8",
                             "Content-Security-Policy: frame-ancestors 'none'\r\n")
        elif path == "/state":
            await self._send(writer, "200 OK", self._state_json().encode(), "application/json")
        elif path == "/events":
            await self._events(writer)
        elif path == "/frame.jpg" and (jpeg := self.display.frame()) is not None:
            await self._send(writer, "200 OK", jpeg, "image/jpeg")
        elif path == "/game.pdn" and (pdn := self.display.pdn()) is not None:
            await self._send(writer, "200 OK", pdn.encode(),
                             "text/plain; charset=utf-8",
                             'Content-Disposition: inline; filename="game.pdn"\r\n')
        else:
            await self._send(writer, "404 Not Found", b"not found", "text/plain")

    async def _action(self, request: Request, path: str, writer) -> None:
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            await self._send(writer, "403 Forbidden", b"cross-site request", "text/plain")
            return
        if not secrets.compare_digest(request.headers.get("x-damas-token", ""), self.token):
            await self._send(writer, "403 Forbidden", b"no or wrong token", "text/plain")
            return
        action = self.display.actions.get(path.removeprefix("/action/"))
        if action is None:
            await self._send(writer, "404 Not Found", b"no such action", "text/plain")
            return
        action()  # the session's actions only set a flag: nothing blocks here
        await self._send(writer, "200 OK", b'{"ok": true}', "application/json")

    async def _events(self, writer) -> None:
        """Server-sent events: the state now, then after every change (merged to at
        most one push every PUSH_EVERY seconds), a comment when nothing happens."""
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     b"Cache-Control: no-store\r\nConnection: close\r\n\r\nretry: 1000\n\n")
        self.streams += 1
        try:
            sent = -1
            while not self.stopping:
                if self.display.version != sent:
                    sent = self.display.version
                    writer.write(f"event: state\ndata: {self._state_json()}\n\n".encode())
                    await asyncio.wait_for(writer.drain(), SEND_TIMEOUT)
                    await asyncio.sleep(PUSH_EVERY)
                    continue
                self.changed.clear()
                try:
                    await asyncio.wait_for(self.changed.wait(), HEARTBEAT)
                except TimeoutError:
                    writer.write(b": still here\n\n")
                    await asyncio.wait_for(writer.drain(), SEND_TIMEOUT)
        finally:
            self.streams -= 1


def game_view(game) -> dict:
    """The display fields of a game: the board as the rules number it, the position after
    every move, the moves, the last one, and how PDN numbers them."""
    from damas.rules import WHITE, geometry

    v = game.variant
    g = geometry(v.size)
    plies = [{"path": list(m.path), "captured": list(m.captured)} for m in game.moves]
    return {"size": v.size, "variant": v.name,
            "layout": {str(sq): g.row_col(sq) for sq in range(1, v.squares + 1)},
            "squares": {str(k): p for k, p in game.position.pieces().items()},
            "history": [{str(k): p for k, p in pos.pieces().items()} for pos in game.positions],
            "moves": game.notations(), "plies": plies, "last": plies[-1] if plies else None,
            # PDN numbers a move pair from the variant's first mover: "1... 19-23" when
            # the game starts with the other side to move
            "first_ply": 0 if game.start.turn == v.first_to_move else 1,
            "first_mover": "white" if v.first_to_move == WHITE else "black"}


def white_men(score: int | None, side_to_move) -> float | str | None:
    """An engine score (hundredths of a man for the side to move) as the page shows it:
    men from White's side, or "win in N" / "loss in N" (plies, White's view)."""
    from damas.engine.search import WIN, WIN_THRESHOLD
    from damas.rules import WHITE

    if score is None:
        return None
    white = score if side_to_move == WHITE else -score
    if abs(white) >= WIN_THRESHOLD:
        return f"White wins in {WIN - white}" if white > 0 else f"Black wins in {WIN + white}"
    return round(white / 100, 2)


def annotated(image, reading, pose):
    """The camera frame with the readings drawn on it (when the board is located)."""
    from damas.vision.annotate import annotate

    return annotate(image, pose, reading) if pose is not None else image


def camera_view(display: Display, every: float = FRAME_EVERY):
    """A VisionWatch `on_frame` that puts the annotated frame on the page, at most one
    every `every` seconds of wall time (a page does not need each one)."""
    import cv2

    last = [-every]

    def on_frame(image, reading, pose) -> None:
        now = time.monotonic()
        if now - last[0] < every:
            return
        last[0] = now
        ok, jpeg = cv2.imencode(".jpg", annotated(image, reading, pose))
        if ok:
            display.set_frame(jpeg.tobytes())

    return on_frame


def serve_page(port: int | None, host: str = "127.0.0.1"
               ) -> tuple[Display | None, WebServer | None]:
    """The live page on http://HOST:PORT/ (0: any free port), its address on stderr;
    (None, None) without a port. A port that cannot be had is a usage error."""
    from damas.rules import DamasError

    if port is None:
        return None, None
    if not 0 <= port <= 65535:
        raise DamasError(f"--web {port}: a port is 0 to 65535 (0: any free port)")
    display = Display()
    try:
        server = WebServer(display, host=host, port=port).start()
    except OSError as e:
        import os

        # the port is taken, or below 1024 without the right
        reason = os.strerror(e.errno) if e.errno else str(e)
        raise DamasError(f"cannot serve the live page on port {port}: {reason} (host "
                         f"{host}): choose another --web port or --host") from None
    print(f"live page: {server.url}", file=sys.stderr, flush=True)
    return display, server
