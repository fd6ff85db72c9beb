"""Waiting for a device that went away (a camera, a serial port, an engine): the one
retry loop of the play session, the kiosk and the recorder. Time is passed in (`wait`),
so a simulated world waits without sleeping."""

from __future__ import annotations

from collections.abc import Callable

from damas.rules import DamasError

from .events import Continued, Paused
from .journal import Journal


class Stopped(Exception):
    """The session was asked to stop (a new game, Ctrl-C): the record stays as it is."""


def retry_until(attempt: Callable[[], object], *, wait: Callable[[float], object],
                retry: float, stop: Callable[[], bool] = lambda: False,
                max_retry: float | None = None) -> int:
    """Waits, then tries `attempt()`, until it works (returns anything but False, raises
    no DamasError): every `retry` seconds, or with `max_retry` after a wait that doubles
    up to it. Returns the number of tries; raises Stopped once `stop()` says so."""
    tries = 0
    delay = retry
    while True:
        if stop():
            raise Stopped
        wait(delay)
        if max_retry is not None:
            delay = min(max_retry, delay * 2)
        tries += 1
        try:
            if attempt() is not False:
                return tries
        except DamasError:
            continue


def wait_for_device(journal: Journal, device: str, reason: str,
                    attempt: Callable[[], object], *, wait: Callable[[float], object],
                    retry: float, stop: Callable[[], bool], status: Callable[[str], None],
                    max_retry: float | None = None) -> None:
    """Pause a game until `attempt()` works (see `retry_until`); `paused` and `continued`
    go to the journal, once each, whatever the tries."""
    journal.write(Paused(device, reason))
    status(f"PAUSED: {reason}")
    tries = retry_until(attempt, wait=wait, retry=retry, stop=stop, max_retry=max_retry)
    journal.write(Continued(device, tries))
    status(f"the {device} is back: play goes on")
