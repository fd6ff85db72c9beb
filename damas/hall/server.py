"""The broadcaster's HTTP side, on damas.web's server (one asyncio thread, the Host check,
server-sent events, the run's token):

| path | what |
|---|---|
| `/` | the tournament page: every board at a glance, click one for its clocks and moves |
| `/state`, `/events` | the summary of every board (JSON once, or pushed on every change) |
| `/board/ROUND/BOARD.pdn` | one board's live PDN (broadcast sites poll it) |
| `/board/ROUND/BOARD.json` | one board: tags, clocks, moves with their clock times, alerts |
| `/round/ROUND.pdn` | the round's live PDN, every board in order; `?download` to save it |
| `/alerts.json` | the arbiter's alerts (irregular moves, cameras away) and the hall's problems |
| `/stats.json` | messages, duplicates dropped, garbage, moves, latency move -> PDN |
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote, unquote_to_bytes

from damas.web import Display, WebServer, host_allowed

from .broadcaster import Hall

PAGE = Path(__file__).resolve().parent.parent / "static" / "hall.html"
BOARD = re.compile(r"/board/([^/]+)/([^/]+)\.(pdn|json)")
ROUND = re.compile(r"/round/([^/]+)\.pdn")


def disposition(filename: str, download: bool) -> str:
    """The Content-Disposition header of a file whose name may be in any script: headers
    are latin-1, so an ASCII name for every client and the UTF-8 one (RFC 6266/5987) for
    those that read it."""
    ascii_name = re.sub(r"[^A-Za-z0-9.-]", "_", filename)
    how = "attachment" if download else "inline"
    return (f'Content-Disposition: {how}; filename="{ascii_name}"; '
            f"filename*=UTF-8''{quote(filename, safe='')}\r\n")


class HallDisplay(Display):
    """The page's state is the hall's summary, made when a client asks (at most once per
    change, damas.web caches it), not at every message."""

    def __init__(self, hall: Hall):
        super().__init__()
        self.hall = hall
        hall.listen(self._changed)

    def state(self) -> dict:
        return {**self.hall.summary(), "actions": []}


class HallServer(WebServer):
    page = PAGE

    def __init__(self, hall: Hall, host: str = "127.0.0.1", port: int = 0):
        self.hall = hall
        super().__init__(HallDisplay(hall), host=host, port=port)

    async def _answer(self, request, writer) -> None:
        path, _, query = request.path.partition("?")
        if request.method != "GET" or not host_allowed(request.headers.get("host"),
                                                       self.names):
            return await super()._answer(request, writer)
        try:  # percent-encoded UTF-8 (a browser), or raw UTF-8 bytes (read as latin-1)
            name = unquote_to_bytes(path.encode("latin-1")).decode("utf-8")
        except UnicodeError:
            name = None
        answer = None if name is None else self._route(name, query)
        if answer is None:
            return await super()._answer(request, writer)
        await self._send(writer, *answer)

    def _route(self, path: str, query: str):
        """(status, body, content type, extra headers) for the hall's paths, else None."""
        hall = self.hall
        text = "text/plain; charset=utf-8"
        match = BOARD.fullmatch(path)
        if match:
            name = f"{match[1]}/{match[2]}"
            if match[3] == "pdn":
                pdn = hall.board_pdn(name)
                return None if pdn is None else ("200 OK", pdn.encode(), text)
            detail = hall.board_detail(name)
            return None if detail is None else ("200 OK", json.dumps(detail).encode(),
                                                "application/json")
        match = ROUND.fullmatch(path)
        if match:
            pdn = hall.round_pdn(match[1])
            if pdn is None:
                return None
            return ("200 OK", pdn.encode(), text,
                    disposition(f"{hall.event}-round-{match[1]}.pdn", "download" in query))
        if path == "/alerts.json":
            return "200 OK", json.dumps(hall.alert_view()).encode(), "application/json"
        if path == "/stats.json":
            return "200 OK", json.dumps(hall.stats()).encode(), "application/json"
        return None
