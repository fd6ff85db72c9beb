"""A Mosquitto broker on a free loopback port with a configuration of its own (in a
temporary folder), for the tests and `damas bench hall`: the Debian package's broker, run
as a child process, stopped (or killed, for a crash) and started again on the same port.
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from damas.rules import DamasError

from .topics import Broker

CONFIG = """\
listener {port} 127.0.0.1
allow_anonymous {anonymous}
# a hall's burst: QoS 1 messages wait for a slow subscriber instead of being dropped
max_queued_messages 1000000
max_inflight_messages 1000
persistence true
persistence_location {folder}/
log_dest file {folder}/mosquitto.log
# started as root (CI), mosquitto would become the mosquitto user, who cannot write here
user {user}
"""


class MosquittoMissing(DamasError):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    def __init__(self, port: int | None = None, anonymous: bool = True):
        binary = shutil.which("mosquitto") or (
            "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
        if binary is None:
            raise MosquittoMissing("mosquitto is not installed (Debian: apt-get install "
                                   "mosquitto; make test installs it)")
        self.binary: str = binary
        self.port = port or free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="damas-mosquitto-"))
        (self.folder / "mosquitto.conf").write_text(CONFIG.format(
            port=self.port, folder=self.folder, user=getpass.getuser(),
            anonymous="true" if anonymous else "false"))  # false: it refuses us
        self.process: subprocess.Popen | None = None

    @property
    def broker(self) -> Broker:
        return Broker("127.0.0.1", self.port)

    @property
    def url(self) -> str:
        return str(self.broker)

    def start(self, timeout: float = 10.0) -> Mosquitto:
        self.process = subprocess.Popen([self.binary, "-c", str(self.folder / "mosquitto.conf")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = self.process.stderr.read() if self.process.stderr else b""
                raise DamasError(f"mosquitto stopped at its start: "
                                 f"{said.decode(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.02)  # the broker is still starting: ask again
        self.stop()
        raise DamasError(f"mosquitto did not listen on port {self.port} in {timeout:g} s")

    def stop(self, kill: bool = False) -> None:
        """Stops the broker (saving its state), or kills it as a crash would."""
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()
        self.process = None

    def restart(self, kill: bool = False) -> None:
        self.stop(kill=kill)
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
