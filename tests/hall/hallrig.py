"""A broadcaster run as its own process (`damas broadcast`), as in a hall, and HTTP."""

import re
import subprocess
import sys
import threading
import urllib.request


class BroadcasterProcess:
    def __init__(self, broker_url: str, event: str):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "damas", "broadcast", "--broker", broker_url, "--event",
             event, "--web", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True)
        self.lines: list[str] = []
        self.url = None
        for line in self.process.stderr:  # its first line says where it serves
            self.lines.append(line.rstrip("\n"))
            match = re.match(r"hall page: (http://\S+)", line)
            if match:
                self.url = match[1].rstrip("/")
                break
        if self.url is None:
            raise RuntimeError(f"the broadcaster did not start: {self.lines}")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def json(self, path: str):
        import json

        status, body = self.get(path)
        assert status == 200, (path, status, body)
        return json.loads(body)

    def stop(self) -> int:
        self.process.terminate()
        return self.process.wait(timeout=10)
