"""The live display: a small web page served by the session on localhost.

The page polls `/state` (JSON: board, moves, clocks, evaluation, status, events) twice a
second and `/frame.jpg` (the last camera frame with the readings drawn on it) when it
changes. Buttons post to `/action/<name>`; the session decides what they do (a new game,
a clock press). Polling keeps it working through any proxy or kiosk browser.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PAGE = Path(__file__).parent / "static" / "index.html"


class Display:
    """What the page shows. The session updates it; the server only reads it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._state: dict = {"status": "starting", "squares": {}, "moves": [], "size": 10,
                             "clocks": None, "evaluation": None, "events": [], "frame": 0}
        self._frame: bytes | None = None
        self.actions: dict[str, Callable[[], None]] = {}

    def update(self, **fields) -> None:
        with self._lock:
            self._state.update(fields)

    def log(self, text: str, keep: int = 12) -> None:
        with self._lock:
            self._state["events"] = (self._state["events"] + [text])[-keep:]

    def set_frame(self, jpeg: bytes) -> None:
        with self._lock:
            self._frame = jpeg
            self._state["frame"] += 1

    def state(self) -> dict:
        with self._lock:
            return json.loads(json.dumps(self._state))

    def frame(self) -> bytes | None:
        with self._lock:
            return self._frame


class _Handler(BaseHTTPRequestHandler):
    display: Display

    def log_message(self, *args) -> None:  # the session has its own log
        pass

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, PAGE.read_bytes(), "text/html; charset=utf-8")
        elif path == "/state":
            self._send(HTTPStatus.OK, json.dumps(self.display.state()).encode(),
                       "application/json")
        elif path == "/frame.jpg" and self.display.frame() is not None:
            self._send(HTTPStatus.OK, self.display.frame(), "image/jpeg")
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")

    def do_POST(self) -> None:
        name = self.path.split("?")[0].removeprefix("/action/")
        action = self.display.actions.get(name)
        if action is None:
            self._send(HTTPStatus.NOT_FOUND, b"no such action", "text/plain")
            return
        action()
        self._send(HTTPStatus.OK, b'{"ok": true}', "application/json")


class WebServer:
    def __init__(self, display: Display, host: str = "127.0.0.1", port: int = 0):
        handler = type("Handler", (_Handler,), {"display": display})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> WebServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def annotated(image, reading, pose):
    """The camera frame with the readings drawn on it (when the board is located)."""
    from damas.vision.annotate import annotate

    return annotate(image, pose, reading) if pose is not None else image


def camera_view(display: Display):
    """A VisionWatch `on_frame` that puts the annotated frame on the page."""
    import cv2

    def on_frame(image, reading, pose) -> None:
        ok, jpeg = cv2.imencode(".jpg", annotated(image, reading, pose))
        if ok:
            display.set_frame(jpeg.tobytes())

    return on_frame


def serve_page(port: int | None) -> tuple[Display | None, WebServer | None]:
    """The live page on http://127.0.0.1:PORT/ (0: any free port), its address on stderr;
    (None, None) without a port."""
    if port is None:
        return None, None
    display = Display()
    try:
        server = WebServer(display, port=port).start()
    except OSError as e:  # the port is taken, or below 1024 without the right
        from damas.rules import DamasError

        raise DamasError(f"cannot serve the live page on port {port}: {e.strerror}") from None
    print(f"live page: {server.url}", file=sys.stderr, flush=True)
    return display, server
