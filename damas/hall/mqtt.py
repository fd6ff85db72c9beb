"""The MQTT client both sides of the hall use: paho-mqtt (MQTT 3.1.1), its network loop in
a thread of its own, reconnecting by itself after a broker restart; and what can go wrong
when reaching a broker, said in one line."""

from __future__ import annotations

import os
import socket

from damas.rules import DamasError

from .topics import Broker

KEEPALIVE = 10  # seconds: a dropped board's last will is sent after 1.5 times this


class BrokerError(DamasError):
    pass


def client(client_id: str, clean: bool = True):
    import paho.mqtt.client as paho

    c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id,
                    clean_session=clean, protocol=paho.MQTTv311)
    # a restarted broker is back soon (paho takes seconds as floats, though typed int)
    c.reconnect_delay_set(min_delay=0.2, max_delay=2)  # type: ignore[arg-type]
    c.max_inflight_messages_set(100)  # QoS 1 acknowledgements in flight: one round trip
    # carries many messages, so a board's backlog after an outage drains quickly
    return c


def reachable(broker: Broker, timeout: float = 3.0) -> str | None:
    """Why the broker cannot be reached now (one line), or None when it answers.
    A name that does not resolve raises BrokerError: that is a wrong address, not an
    outage."""
    try:
        infos = socket.getaddrinfo(broker.host, broker.port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise BrokerError(f"{broker}: no such broker host ({e.strerror}); check the "
                          "address") from None
    family, kind, proto, _, address = infos[0]
    try:
        with socket.socket(family, kind, proto) as s:
            s.settimeout(timeout)
            s.connect(address)
    except TimeoutError:
        return f"{broker} does not answer (no reply in {timeout:g} s)"
    except OSError as e:
        reason = os.strerror(e.errno) if e.errno else str(e)
        return f"{broker} refuses the connection ({reason.lower()}): is the broker running?"
    return None


def refusal(reason_code) -> str:
    """A CONNACK's refusal in words."""
    return f"the broker refused us: {reason_code}"
