"""A child process spoken to in text lines, with time-outs: the transport of the Hub
client. A reader thread moves each stdout line into a queue, so `readline(timeout)` can
wait with a deadline and notice the end of the process (EOF) at once; stderr is kept
(the last lines) to explain a crash.
"""

from __future__ import annotations

import collections
import os
import queue
import signal
import subprocess
import threading
import time
from typing import IO

from .errors import EngineCrashed, EngineTimeout

_EOF = object()


class LineProcess:
    def __init__(self, command: list[str], name: str, cwd: str | None = None):
        self.name = name
        try:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, bufsize=1, cwd=cwd,
                start_new_session=True)  # our Ctrl-C is not the engine's
        except OSError as e:
            raise EngineCrashed(f"cannot start engine {name}: {e}") from None
        # all three are pipes (PIPE above): bound once, so no use needs to check for None
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._stdin: IO[str] = self.proc.stdin
        self._stdout: IO[str] = self.proc.stdout
        self._stderr: IO[str] = self.proc.stderr
        self.lines: queue.Queue = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=5)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self._write_lock = threading.Lock()

    def _read_stdout(self) -> None:
        try:
            for line in self._stdout:
                self.lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self.lines.put(_EOF)

    def _read_stderr(self) -> None:
        try:
            for line in self._stderr:
                self.stderr_tail.append(line.rstrip())
        except (OSError, ValueError):
            pass

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def crash_message(self, doing: str) -> str:
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        how = f"exited with status {code}" if code is not None else "closed its output"
        if code is not None and code < 0:
            how = f"was killed by signal {-code}"
        tail = " | ".join(self.stderr_tail)
        return (f"engine {self.name} {how} while {doing}" + (f" (stderr: {tail})" if tail else "")
                + "; the game is unchanged")

    def send(self, line: str, doing: str = "receiving a command") -> None:
        try:
            with self._write_lock:
                self._stdin.write(line + "\n")
                self._stdin.flush()
        except (OSError, ValueError):
            raise EngineCrashed(self.crash_message(doing)) from None

    def readline(self, timeout: float, doing: str) -> str:
        """The next line; EngineTimeout after `timeout` seconds of silence, EngineCrashed
        when the process has ended."""
        try:
            line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise EngineTimeout(f"engine {self.name} said nothing for {timeout:.1f} s while "
                                f"{doing}") from None
        if line is _EOF:
            self.lines.put(_EOF)  # later reads see the end too
            raise EngineCrashed(self.crash_message(doing))
        return line

    def kill(self) -> None:
        if self.alive:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
        self._reap()

    def terminate(self, grace: float = 1.0) -> None:
        """Wait `grace` seconds for the process to end by itself, then kill it."""
        deadline = time.monotonic() + grace
        while self.alive and time.monotonic() < deadline:
            try:
                self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                break
        self.kill()

    def _reap(self) -> None:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self._stdin, self._stdout, self._stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
